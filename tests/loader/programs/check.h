// Shared by the loader test programs: abort with a message when a CUDA runtime call fails.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(X)                                                                                   \
  do {                                                                                             \
    cudaError_t E_ = (X);                                                                          \
    if (E_ != cudaSuccess) {                                                                       \
      std::printf("FAIL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #X, cudaGetErrorString(E_));      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The same for a library's status code (cuBLAS, cuRAND, the driver API), whose success is 0.
#define CHECK_STATUS(X)                                                                            \
  do {                                                                                             \
    long long S_ = static_cast<long long>(X);                                                      \
    if (S_ != 0) {                                                                                 \
      std::printf("FAIL: %s:%d: %s -> status %lld\n", __FILE__, __LINE__, #X, S_);                 \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// A new device allocation holding the host vector's elements.
template <typename T> T *toDevice(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
// N elements copied back from the device.
template <typename T> std::vector<T> toHost(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Checks that do not stop the program: the first ten failures are printed, all are counted.
inline int failures = 0;
inline void expect(bool ok, const char *what, long i) {
  if (!ok && failures++ < 10)
    std::printf("FAIL: %s at %ld\n", what, i);
}

// Value checks that go on after a mismatch: EXPECT(cond, printf-style message) prints the first 20
// failures; a program ends with `return report();` (PASS, or FAILED and the count).
inline int Fails = 0;
#define EXPECT(C, ...)                                                                             \
  do {                                                                                             \
    if (!(C) && Fails++ < 20) {                                                                    \
      std::printf("MISMATCH %s:%d: ", __FILE__, __LINE__);                                         \
      std::printf(__VA_ARGS__);                                                                    \
      std::printf("\n");                                                                           \
    }                                                                                              \
  } while (0)
inline int report() {
  std::printf(Fails ? "FAILED: %d mismatches\n" : "PASS\n", Fails);
  return Fails != 0;
}
