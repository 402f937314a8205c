// Fixture source for separate compilation (-rdc=true): defines the device symbols rdc_a.cu uses,
// plus a kernel of its own so this module's PTX is not just a library of functions.
__device__ unsigned gBlendCalls = 0;

__device__ float blendWeights(float First, float Second, float Weight) {
  return First + (Second - First) * Weight;
}

__global__ void resetBlendCalls() { gBlendCalls = 0; }
