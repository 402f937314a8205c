# The device helper library (backend/README.md, "Device helper library"): each source below is
# compiled by clang-22 to AMDGPU bitcode once per wave size, the bitcode of a wave size is linked
# into one module with llvm-link, and that module is embedded into reptx_backend as a byte array
# (DeviceLibraryWave32.inc, DeviceLibraryWave64.inc) that lib/DeviceLibrary.cpp links into every
# compiled module. A new helper file is one more line here.
set(REPTX_DEVICE_SOURCES
  device/Barrier.cpp
  device/DeviceLaunch.cpp
  device/Directed.cpp
  device/Malloc.cpp
  device/Matrix.cpp
  device/Mbarrier.cpp
  device/Printf.cpp
  device/Sleep.cpp
  device/Surface.cpp
  device/Texture.cpp
  device/Warp.cpp
)

find_program(REPTX_DEVICE_CLANG NAMES clang-22 clang HINTS /usr/lib/llvm-22/bin NO_DEFAULT_PATH)
find_program(REPTX_DEVICE_CLANG NAMES clang-22 clang REQUIRED)
find_program(REPTX_LLVM_LINK NAMES llvm-link-22 llvm-link HINTS /usr/lib/llvm-22/bin NO_DEFAULT_PATH)
find_program(REPTX_LLVM_LINK NAMES llvm-link-22 llvm-link REQUIRED)

set(DeviceOut ${CMAKE_CURRENT_BINARY_DIR}/device)
file(MAKE_DIRECTORY ${DeviceOut})
set(DeviceIncs)
# One processor per wave size, only so that clang accepts the wave-size-specific builtins; the
# backend strips target-cpu and target-features from the helpers, which then take the features of
# the processor they are compiled for.
foreach(Wave 32 64)
  if(Wave EQUAL 64)
    set(Cpu gfx900)
  else()
    set(Cpu gfx1030)
  endif()
  set(Bitcodes)
  foreach(Src ${REPTX_DEVICE_SOURCES})
    get_filename_component(Stem ${Src} NAME_WE)
    set(Bc ${DeviceOut}/${Stem}.wave${Wave}.bc)
    add_custom_command(
      OUTPUT ${Bc}
      COMMAND ${REPTX_DEVICE_CLANG} -x c++ -std=c++20 --target=amdgcn-amd-amdhsa -mcpu=${Cpu}
              -nogpulib -ffreestanding -fno-exceptions -fconvergent-functions -O2
              -Wall -Wextra -Werror -DREPTX_WAVE_SIZE=${Wave}
              -MD -MF ${Bc}.d -emit-llvm -c ${CMAKE_CURRENT_SOURCE_DIR}/${Src} -o ${Bc}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${Src}
      DEPFILE ${Bc}.d
      COMMENT "Compiling device helpers ${Src} (wave${Wave})"
      VERBATIM)
    list(APPEND Bitcodes ${Bc})
  endforeach()
  set(Linked ${DeviceOut}/helpers.wave${Wave}.bc)
  set(Inc ${DeviceOut}/DeviceLibraryWave${Wave}.inc)
  add_custom_command(
    OUTPUT ${Inc}
    COMMAND ${REPTX_LLVM_LINK} ${Bitcodes} -o ${Linked}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${Linked} -DOUTPUT=${Inc}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/device/EmbedFile.cmake
    DEPENDS ${Bitcodes} ${CMAKE_CURRENT_SOURCE_DIR}/device/EmbedFile.cmake
    COMMENT "Linking the wave${Wave} device helper library"
    VERBATIM)
  list(APPEND DeviceIncs ${Inc})
endforeach()

target_sources(reptx_backend PRIVATE lib/DeviceLibrary.cpp ${DeviceIncs})
target_include_directories(reptx_backend PRIVATE ${DeviceOut})
set_source_files_properties(lib/DeviceLibrary.cpp PROPERTIES OBJECT_DEPENDS "${DeviceIncs}")
