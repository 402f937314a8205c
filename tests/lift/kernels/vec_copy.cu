// Vector loads and stores (ld.global.v4.f32 / st.global.v4) and a loop with a predicate.
extern "C" __global__ void vec_copy(const float4 *in, float4 *out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i];
    float acc = 0.0f;
    for (int k = 0; k < (i & 7); ++k)
      acc += v.x;
    out[i] = make_float4(v.w * scale, v.z + acc, v.y, v.x);
  }
}
