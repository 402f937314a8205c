// The CUDA driver API as this library implements it: the toolkit's cuda.h with every ABI variant
// declared (__CUDA_API_VERSION_INTERNAL: the unsuffixed legacy ABIs, _v2/_v3, _ptds/_ptsz) and
// default visibility, so that each definition in loader/lib is checked against the toolkit's
// declaration and exported even though the library is compiled with -fvisibility=hidden.
#pragma once

#define __CUDA_API_VERSION_INTERNAL 1
#pragma GCC visibility push(default)
#include <cuda.h>
#pragma GCC visibility pop
