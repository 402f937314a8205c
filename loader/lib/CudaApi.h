// The CUDA driver API as this library implements it: reptx's own declarations
// (reptx/loader/DriverApi.h, no CUDA toolkit needed) under default visibility, so that each
// definition in loader/lib is checked against its declaration and exported even though the
// library is compiled with -fvisibility=hidden.
#pragma once

#pragma GCC visibility push(default)
#include "reptx/loader/DriverApi.h"
#pragma GCC visibility pop
