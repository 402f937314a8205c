// nanosleep.u32 t (PTX ISA 9.7.19.2): the thread sleeps for a time in [0, 2t] nanoseconds, t at
// most 1 ms. S_SLEEP 1 idles the wave for about 64 clocks (AMD ISA, "S_SLEEP"), 21-43 ns at the
// 1.5-3 GHz of current targets, so t / 64 of them stay well inside [0, 2t] without reading a
// clock.
#include "Device.h"

namespace reptx::device {

REPTX_HELPER("reptx.nanosleep", void, nanosleep, (u32 Ns)) {
  if (Ns > 1000000u)
    Ns = 1000000u;
  for (u32 K = Ns / 64; K; --K)
    __builtin_amdgcn_s_sleep(1);
}

} // namespace reptx::device
