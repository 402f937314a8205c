// vote, match and redux in a divergent region: only lanes with lane % 3 != 1 enter (bit lane of
// 0x6db6db6d), and threads past n have left, so every operation sees a partial set of active
// lanes.
extern "C" __global__ void warp_vote(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned v = in[i], lane = threadIdx.x & 31;
  unsigned *o = out + i * 20;
  if ((0x6db6db6du >> lane) & 1) {
    unsigned am = __activemask();
    bool p = (v & 3) == 0;
    o[0] = am;
    o[1] = __all_sync(am, p);
    o[2] = __any_sync(am, p);
    o[3] = __uni_sync(am, p);
    o[4] = __ballot_sync(am, p);
    unsigned notall;
    asm("{ .reg .pred q, r; setp.ne.u32 q, %1, 0; vote.sync.all.pred r, !q, %2; selp.u32 %0, 1, 0, "
        "r; }"
        : "=r"(notall)
        : "r"(unsigned(p)), "r"(am));
    o[5] = notall;
    o[6] = __match_any_sync(am, v >> 28);
    int pred;
    o[7] = __match_all_sync(am, v >> 30, &pred);
    o[8] = pred;
    o[9] = __match_any_sync(am, (unsigned long long)(v >> 29) << 33 | (v & 1));
    o[10] = __reduce_add_sync(am, v);
    o[11] = __reduce_min_sync(am, int(v));
    o[12] = __reduce_max_sync(am, int(v));
    o[13] = __reduce_min_sync(am, v);
    o[14] = __reduce_max_sync(am, v);
    o[15] = __reduce_and_sync(am, v);
    o[16] = __reduce_or_sync(am, v);
    o[17] = __reduce_xor_sync(am, v);
    o[18] = __match_all_sync(am, (unsigned long long)(v >> 30) << 32 | 5u, &pred);
    o[19] = pred;
  }
}

// The warp special registers.
extern "C" __global__ void warp_ids(unsigned *out) {
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned *o = out + (b * threads + t) * 8;
  unsigned r[8];
  asm("mov.u32 %0, %%laneid;" : "=r"(r[0]));
  asm("mov.u32 %0, %%warpid;" : "=r"(r[1]));
  asm("mov.u32 %0, %%nwarpid;" : "=r"(r[2]));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r[3]));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(r[4]));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r[5]));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r[6]));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r[7]));
  for (int k = 0; k < 8; ++k)
    o[k] = r[k];
}
