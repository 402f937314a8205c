# Every dependency is a Debian 12 package (scripts/setup.sh installs them).

find_package(LLVM 22.1 REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/llvm)
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# LLVM through the shared libLLVM-22.so (never the static component libraries: lld, linked later
# by backend/, would pull LLVM in twice; see shared/reference/amdgpu-codegen.md §3).
add_library(reptx_llvm INTERFACE)
target_include_directories(reptx_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(REPTX_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(reptx_llvm INTERFACE ${REPTX_LLVM_DEFS})
target_link_libraries(reptx_llvm INTERFACE LLVM)

find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LIBLZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(LIBZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBXXHASH REQUIRED IMPORTED_TARGET libxxhash)

find_package(CLI11 CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(GTest CONFIG REQUIRED)
find_package(benchmark CONFIG REQUIRED)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# mimalloc (libmimalloc-dev) as the malloc of the programs that run LLVM: LLVM allocates and
# frees small objects at a high rate, and glibc's malloc took 8% of compile time (bench/
# RESULTS.md, "Compile throughput"). Only executables link it (never libcuda.so.1, which lives in
# the application's process), and not under the sanitizers, which bring their own allocator.
find_package(mimalloc 2.0 CONFIG REQUIRED)
add_library(reptx_fast_malloc INTERFACE)
if(NOT REPTX_SANITIZE)
  target_link_libraries(reptx_fast_malloc INTERFACE mimalloc)
endif()
