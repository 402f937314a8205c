// tex1Dfetch on texture objects (tex.1d.v4.f32.s32 and tex.1d.v4.u32.s32 in nvcc's PTX): the
// lifted IR's texture fetch must map back onto PTX's own instruction (RetargetTest).
extern "C" __global__ void texture_fetch(cudaTextureObject_t f, cudaTextureObject_t u, float4 *a,
                                         uint2 *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = tex1Dfetch<float4>(f, n - 1 - i);
    b[i] = tex1Dfetch<uint2>(u, i);
  }
}
