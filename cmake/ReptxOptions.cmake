# Compiler launcher, warnings and sanitizers shared by every reptx target.

find_program(REPTX_CCACHE ccache)
if(REPTX_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # Paths relative to the source root and no working directory in the hash: a fresh clone (CI)
  # and every build directory share one cache.
  set(_reptx_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1
                      ${REPTX_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${_reptx_launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_reptx_launcher})
endif()

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# Applied to reptx's own targets only (not to imported ones).
add_library(reptx_warnings INTERFACE)
target_compile_options(reptx_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)
if(REPTX_WERROR)
  target_compile_options(reptx_warnings INTERFACE -Werror)
endif()

if(REPTX_SANITIZE)
  add_compile_options(-fsanitize=${REPTX_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${REPTX_SANITIZE})
endif()
