// Warp-ballot stream compaction: the kept elements of each warp go, in order, to the start of the
// warp's slice of out; threads past n leave first, so the last warp may be partial.
extern "C" __global__ void warp_compact(const int *in, int *out, unsigned *counts,
                                        unsigned *ballots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int v = in[i];
  bool keep = v > 0 && v % 3 != 0;
  unsigned mask = __ballot_sync(__activemask(), keep);
  unsigned lt;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  if (keep)
    out[(i & ~31) + __popc(mask & lt)] = v;
  if ((threadIdx.x & 31) == 0)
    counts[i >> 5] = __popc(mask);
  ballots[i] = mask;
}
