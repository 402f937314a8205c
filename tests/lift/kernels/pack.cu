// Doubles built from and split into 32-bit halves (__hiloint2double, __double2hiint and
// __double2loint: mov.b64 pack and unpack in nvcc's PTX).
extern "C" __global__ void pack(const int *a, const double *d, double *packed, int *halves,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    packed[i] = __hiloint2double(a[2 * i + 1], a[2 * i]);
    double v = d[i];
    halves[2 * i] = __double2hiint(v) + 1;
    halves[2 * i + 1] = __double2loint(v) * 3;
  }
}
