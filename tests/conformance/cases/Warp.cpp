// Warp-level operations (PTX ISA 9.7.9.6 shfl.sync, 9.7.13.7 vote.sync, 9.7.13.8 match.sync,
// 9.7.13.10 redux.sync, 9.7.13.12 activemask, 9.7.13.13 elect.sync), with divergent predicates,
// partial member masks (lanes that leave early) and partial warps at the end of blocks whose
// size is not a multiple of 32.
#include "../Conformance.h"

#include <algorithm>
#include <bit>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

// Rows: {value}; blocks of Block threads; lane = index in block % 32.
Case W(std::string Name, std::vector<std::string> Out, std::string Body,
       std::function<void(RefContext &)> F, unsigned Threads, unsigned Block) {
  Case C;
  C.Family = "warp";
  C.Name = std::move(Name);
  C.InTypes = {"u32"};
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  for (unsigned I = 0; I < Threads; ++I)
    C.Rows.push_back({u64((I * 2654435761u) ^ (I << 3)) & 0xffffffu});
  C.Ref = std::move(F);
  C.Block = Block;
  return C;
}

// The threads of thread T's warp: first global index and count.
struct WarpOf {
  size_t First;
  unsigned Size;
  unsigned Lane;
};
WarpOf warpOf(size_t T, unsigned Block) {
  size_t Base = T / Block * Block, InB = T - Base;
  size_t First = Base + InB / 32 * 32;
  unsigned Size = unsigned(std::min<size_t>(32, Base + Block - First));
  return {First, Size, unsigned(T - First)};
}
uint32_t fullMask(unsigned Size) { return Size == 32 ? 0xffffffffu : (1u << Size) - 1; }

// redux.sync's operations (9.7.13.10), K: 0 add.u32, 1 min.s32, 2 max.u32, 3 and, 4 or, 5 xor,
// 6 max.s32; their identities.
uint32_t reduxIdentity(int K) {
  return K == 1 ? 0x7fffffffu : K == 6 ? 0x80000000u : K == 3 ? ~0u : 0u;
}
uint32_t reduxStep(int K, uint32_t Acc, uint32_t V) {
  switch (K) {
  case 0:
    return Acc + V;
  case 1:
    return uint32_t(std::min(int32_t(Acc), int32_t(V)));
  case 2:
    return std::max(Acc, V);
  case 3:
    return Acc & V;
  case 4:
    return Acc | V;
  case 5:
    return Acc ^ V;
  default:
    return uint32_t(std::max(int32_t(Acc), int32_t(V)));
  }
}

// Each lane's membermask names its own tile of Width lanes (cooperative groups' tiled_partition:
// tiles of one warp execute a warp operation together, each with its own mask): %r9 = the mask,
// %r8 = the tile's first lane.
std::string tileMaskPtx(unsigned Width) {
  return "mov.u32 %r7, %laneid;\n and.b32 %r8, %r7, " + std::to_string(-int(Width)) +
         ";\n mov.u32 %r6, " + std::to_string(Width == 32 ? 0xffffffffu : (1u << Width) - 1) +
         ";\n shl.b32 %r9, %r6, %r8;\n";
}
// The lanes of thread T's tile that exist (a partial warp ends the block).
std::pair<size_t, unsigned> tileOf(size_t T, unsigned Block, unsigned Width) {
  WarpOf Wp = warpOf(T, Block);
  unsigned First = Wp.Lane & ~(Width - 1);
  return {Wp.First + First, std::min(Width, Wp.Size - First)};
}

// Shfl reference (9.7.9.6) with all lanes of the warp active.
std::function<void(RefContext &)> shflRef(int Mode, uint32_t B, uint32_t Cc) {
  return [=](RefContext &X) {
    for (size_t T = 0; T < X.In.size(); ++T) {
      WarpOf Wp = warpOf(T, X.BlockThreads);
      int L = int(Wp.Lane), Bv = int(B & 31), Cv = int(Cc & 31), Seg = int((Cc >> 8) & 31);
      int MaxLane = (L & Seg) | (Cv & ~Seg), MinLane = L & Seg, J = 0;
      bool P = false;
      if (Mode == 0) {
        J = L - Bv;
        P = J >= MaxLane;
      } else if (Mode == 1) {
        J = L + Bv;
        P = J <= MaxLane;
      } else if (Mode == 2) {
        J = L ^ Bv;
        P = J <= MaxLane;
      } else {
        J = MinLane | (Bv & ~Seg);
        P = J <= MaxLane;
      }
      if (!P)
        J = L;
      bool Valid = unsigned(J) < Wp.Size;
      X.Out[T] = {Valid ? X.In[Wp.First + J][0] : Any, P ? 1u : 0u};
    }
  };
}

} // namespace

void addWarpCases(CaseList &L) {
  struct S {
    const char *Mode;
    int M;
    uint32_t B, C;
  };
  for (S Sh : {S{"up", 0, 1, 0}, S{"up", 0, 5, 0x1800}, S{"down", 1, 3, 0x1f},
               S{"down", 1, 16, 0x1f}, S{"bfly", 2, 5, 0x181f & 0x1f1f}, S{"bfly", 2, 12, 0x100f},
               S{"idx", 3, 7, 0x1f}, S{"idx", 3, 40, 0x1003}, S{"idx", 3, 2, 0x1c1f}})
    L.push_back(W(std::string("shfl.sync.") + Sh.Mode + ".b=" + std::to_string(Sh.B) +
                      ".c=" + std::to_string(Sh.C),
                  {"u32", "pred"},
                  std::string("shfl.sync.") + Sh.Mode + ".b32 %d0|%d1, %a0, " +
                      std::to_string(Sh.B) + ", " + std::to_string(Sh.C) + ", 0xffffffff;",
                  shflRef(Sh.M, Sh.B, Sh.C), 160, 80));
  // bfly with a mask inside the segment becomes a DPP move (b = 1, 2, 3, 7, 8, 15) or
  // ds_swizzle (backend/lib/AmdgpuIntrinsics.cpp, specializeShflBfly): every pattern, widths 32,
  // 16, 8 and 4, and a mask outside the segment (p false everywhere, the general path).
  for (S Sh : {S{"bfly", 2, 1, 0x1f}, S{"bfly", 2, 2, 0x1f}, S{"bfly", 2, 3, 0x1f},
               S{"bfly", 2, 7, 0x1f}, S{"bfly", 2, 8, 0x1f}, S{"bfly", 2, 15, 0x1f},
               S{"bfly", 2, 16, 0x1f}, S{"bfly", 2, 8, 0x101f}, S{"bfly", 2, 4, 0x181f},
               S{"bfly", 2, 2, 0x1c1f}, S{"bfly", 2, 16, 0x101f}})
    L.push_back(W(std::string("shfl.sync.bfly.fixed.b=") + std::to_string(Sh.B) +
                      ".c=" + std::to_string(Sh.C),
                  {"u32", "pred"},
                  "shfl.sync.bfly.b32 %d0|%d1, %a0, " + std::to_string(Sh.B) + ", " +
                      std::to_string(Sh.C) + ", 0xffffffff;",
                  shflRef(Sh.M, Sh.B, Sh.C), 128, 64));
  // idx with a constant lane inside the segment becomes ds_swizzle (lane & seg | k): widths 32,
  // 16, 8 and 4, and a lane past the clamp (the general path).
  for (S Sh : {S{"idx", 3, 0, 0x1f}, S{"idx", 3, 31, 0x1f}, S{"idx", 3, 9, 0x101f},
               S{"idx", 3, 5, 0x181f}, S{"idx", 3, 3, 0x1c1f}, S{"idx", 3, 12, 0x1007}})
    L.push_back(W(std::string("shfl.sync.idx.fixed.b=") + std::to_string(Sh.B) +
                      ".c=" + std::to_string(Sh.C),
                  {"u32", "pred"},
                  "shfl.sync.idx.b32 %d0|%d1, %a0, " + std::to_string(Sh.B) + ", " +
                      std::to_string(Sh.C) + ", 0xffffffff;",
                  shflRef(Sh.M, Sh.B, Sh.C), 128, 64));
  // A butterfly sum over the warp as nvcc writes __shfl_xor_sync loops: the masks moved into
  // registers first, each shuffle feeding an add (which the DPP move folds into); then lane 0's
  // value broadcast with idx. Every lane gets the sum of its warp's 32 values plus lane 0's.
  L.push_back(W(
      "shfl.sync.bfly.warp_sum", {"u32"},
      "mov.u32 %r1, %a0;\n"
      " mov.u32 %r2, 16;\n shfl.sync.bfly.b32 %r3, %r1, %r2, 31, -1;"
      " add.u32 %r1, %r1, %r3;\n"
      " mov.u32 %r2, 8;\n shfl.sync.bfly.b32 %r3, %r1, %r2, 31, -1;"
      " add.u32 %r1, %r1, %r3;\n"
      " mov.u32 %r2, 4;\n shfl.sync.bfly.b32 %r3, %r1, %r2, 31, -1;"
      " add.u32 %r1, %r3, %r1;\n"
      " mov.u32 %r2, 2;\n shfl.sync.bfly.b32 %r3, %r1, %r2, 31, -1;"
      " add.u32 %r1, %r1, %r3;\n"
      " mov.u32 %r2, 1;\n shfl.sync.bfly.b32 %r3, %r1, %r2, 31, -1;"
      " add.u32 %r1, %r1, %r3;\n"
      " mov.u32 %r2, 0;\n mov.u32 %r4, 31;\n shfl.sync.idx.b32 %r3, %a0, %r2, %r4, -1;"
      " add.u32 %d0, %r1, %r3;",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          uint32_t Sum = 0;
          for (unsigned I = 0; I < Wp.Size; ++I)
            Sum += uint32_t(X.In[Wp.First + I][0]);
          X.Out[T] = {Sum + uint32_t(X.In[Wp.First][0])};
        }
      },
      192, 96));
  // A butterfly max.f32 over the warp with NaNs of either sign and any payload in some lanes and
  // in every lane of warp 1: a NaN lane gives the others' maximum, an all-NaN warp the canonical
  // NaN 0x7fffffff (the steps' own canonicalization is dropped, backend/lib/MinMaxNaN.h).
  {
    std::string Body = "and.b32 %r1, %a0, 7;\n setp.eq.u32 %p1, %r1, 0;\n shr.u32 %r2, %gid, 5;\n"
                       " setp.eq.u32 %p2, %r2, 1;\n or.pred %p1, %p1, %p2;\n"
                       " cvt.rn.f32.u32 %f1, %a0;\n or.b32 %r3, %a0, 0xff800001;\n"
                       " mov.b32 %f2, %r3;\n selp.f32 %f1, %f2, %f1, %p1;\n";
    for (int M : {16, 8, 4, 2, 1})
      Body += " mov.b32 %r4, %f1;\n mov.u32 %r5, " + std::to_string(M) +
              ";\n shfl.sync.bfly.b32 %r6, %r4, %r5, 31, -1;\n mov.b32 %f3, %r6;\n"
              " max.f32 %f1, %f1, %f3;\n";
    Body += " mov.b32 %d0, %f1;";
    L.push_back(W(
        "shfl.sync.bfly.warp_max_nan", {"u32"}, Body,
        [](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            WarpOf Wp = warpOf(T, X.BlockThreads);
            float Max = 0;
            bool Any = false;
            for (unsigned I = 0; I < Wp.Size; ++I) {
              size_t G = Wp.First + I;
              uint32_t V = uint32_t(X.In[G][0]);
              if ((V & 7) == 0 || G / 32 == 1)
                continue; // a NaN lane
              float F = float(V);
              Max = Any ? std::max(Max, F) : F;
              Any = true;
            }
            X.Out[T] = {Any ? std::bit_cast<uint32_t>(Max) : 0x7fffffffu};
          }
        },
        192, 96));
  }
  // Operand b in a register, a float payload.
  L.push_back(W("shfl.sync.bfly.reg", {"u32", "pred"},
                "and.b32 %r0, %gid, 3;\n add.u32 %r0, %r0, 1;\n"
                " shfl.sync.bfly.b32 %d0|%d1, %a0, 1, 0x1f, 0xffffffff;",
                shflRef(2, 1, 0x1f), 64, 64));
  // vote.sync with a divergent predicate.
  auto Pred = [](u64 V) { return (V & 7) < 3; };
  L.push_back(W(
      "vote.sync.ballot", {"u32"},
      "and.b32 %r0, %a0, 7;\n setp.lt.u32 %p0, %r0, 3;\n vote.sync.ballot.b32 %d0, %p0, "
      "0xffffffff;",
      [Pred](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          uint32_t B = 0;
          for (unsigned I = 0; I < Wp.Size; ++I)
            B |= uint32_t(Pred(X.In[Wp.First + I][0])) << I;
          X.Out[T][0] = B;
        }
      },
      176, 88));
  for (std::string Kind : {"all", "any", "uni"})
    L.push_back(W(
        "vote.sync." + Kind, {"pred"},
        "and.b32 %r0, %a0, 7;\n setp.lt.u32 %p0, %r0, 3;\n mov.u32 %r1, %laneid;\n"
        " setp.lt.u32 %p1, %r1, 4;\n and.pred %p0, %p0, %p1;\n"
        " mov.u32 %r2, %warpid;\n setp.eq.u32 %p2, %r2, 1;\n or.pred %p0, %p0, %p2;\n"
        " vote.sync." +
            Kind + ".pred %d0, %p0, 0xffffffff;",
        [Kind, Pred](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            WarpOf Wp = warpOf(T, X.BlockThreads);
            unsigned Cnt = 0;
            bool WarpIsOne = (Wp.First % X.BlockThreads) / 32 == 1;
            for (unsigned I = 0; I < Wp.Size; ++I)
              Cnt += WarpIsOne || (Pred(X.In[Wp.First + I][0]) && I < 4);
            bool R = Kind == "all"   ? Cnt == Wp.Size
                     : Kind == "any" ? Cnt > 0
                                     : (Cnt == 0 || Cnt == Wp.Size);
            X.Out[T][0] = R;
          }
        },
        192, 96));
  // Partial member mask: the odd lanes leave before the vote.
  L.push_back(W(
      "vote.sync.ballot.partial", {"u32"},
      "mov.u32 %r1, %laneid;\n and.b32 %r2, %r1, 1;\n setp.ne.u32 %p3, %r2, 0;\n"
      " mov.u32 %d0, 0;\n @%p3 bra $Lskip;\n and.b32 %r0, %a0, 7;\n"
      " setp.lt.u32 %p0, %r0, 3;\n vote.sync.ballot.b32 %d0, %p0, 0x55555555;\n$Lskip:",
      [Pred](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          if (Wp.Lane & 1) {
            X.Out[T][0] = 0;
            continue;
          }
          uint32_t B = 0;
          for (unsigned I = 0; I < Wp.Size; I += 2)
            B |= uint32_t(Pred(X.In[Wp.First + I][0])) << I;
          X.Out[T][0] = B;
        }
      },
      128, 64));
  L.push_back(W(
      "activemask", {"u32"},
      "mov.u32 %r1, %laneid;\n mov.u32 %d0, 0;\n setp.ge.u32 %p0, %r1, 20;\n"
      " @%p0 bra $Lskip;\n activemask.b32 %d0;\n$Lskip:",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          X.Out[T][0] = Wp.Lane < 20 ? fullMask(std::min(Wp.Size, 20u)) : 0;
        }
      },
      100, 50));
  // match.any: lanes holding the same value (values with few distinct classes); match.all.
  L.push_back(W(
      "match.any.sync.b32", {"u32"},
      "and.b32 %r0, %a0, 3;\n match.any.sync.b32 %d0, %r0, 0xffffffff;",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          uint32_t M = 0;
          for (unsigned I = 0; I < Wp.Size; ++I)
            M |= uint32_t((X.In[Wp.First + I][0] & 3) == (X.In[T][0] & 3)) << I;
          X.Out[T][0] = M;
        }
      },
      96, 48));
  L.push_back(W(
      "match.any.sync.b64", {"u32"},
      "and.b32 %r0, %a0, 1;\n cvt.u64.u32 %rd0, %r0;\n shl.b64 %rd0, %rd0, 40;\n"
      " match.any.sync.b64 %d0, %rd0, 0xffffffff;",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          uint32_t M = 0;
          for (unsigned I = 0; I < Wp.Size; ++I)
            M |= uint32_t((X.In[Wp.First + I][0] & 1) == (X.In[T][0] & 1)) << I;
          X.Out[T][0] = M;
        }
      },
      64, 64));
  L.push_back(W(
      "match.all.sync.b32", {"u32", "pred"},
      "mov.u32 %r1, %warpid;\n and.b32 %r0, %a0, %r1;\n"
      " match.all.sync.b32 %d0|%d1, %r0, 0xffffffff;",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          uint32_t Warp = uint32_t((Wp.First % X.BlockThreads) / 32);
          bool Same = true;
          for (unsigned I = 0; I < Wp.Size; ++I)
            Same &= (X.In[Wp.First + I][0] & Warp) == (X.In[T][0] & Warp);
          X.Out[T] = {Same ? fullMask(Wp.Size) : 0u, Same};
        }
      },
      128, 128));
  // redux.sync (sm_80): over the warp's lanes.
  struct R {
    const char *Op;
    const char *Type;
    int K;
  };
  for (R Rd : {R{"add", "u32", 0}, R{"min", "s32", 1}, R{"max", "u32", 2}, R{"and", "b32", 3},
               R{"or", "b32", 4}, R{"xor", "b32", 5}, R{"max", "s32", 6}})
    L.push_back(W(
        std::string("redux.sync.") + Rd.Op + "." + Rd.Type, {"u32"},
        "sub.u32 %r0, %a0, 0x800000;\n redux.sync." + std::string(Rd.Op) + "." + Rd.Type +
            " %d0, %r0, 0xffffffff;",
        [K = Rd.K](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            WarpOf Wp = warpOf(T, X.BlockThreads);
            uint32_t Acc = reduxIdentity(K);
            for (unsigned I = 0; I < Wp.Size; ++I)
              Acc = reduxStep(K, Acc, uint32_t(X.In[Wp.First + I][0]) - 0x800000u);
            X.Out[T][0] = Acc;
          }
        },
        144, 72));
  // Tiles of 16, 8 and 4 lanes reduce together, each over its own tile (nvcc's cg::reduce on a
  // thread_block_tile<16>); the block of 72 ends in a warp of 8 lanes.
  for (R Rd : {R{"add", "u32", 0}, R{"min", "s32", 1}, R{"max", "u32", 2}, R{"xor", "b32", 5}})
    for (unsigned Width : {16u, 8u, 4u})
      L.push_back(W(
          std::string("redux.sync.") + Rd.Op + "." + Rd.Type + ".tile" + std::to_string(Width),
          {"u32"},
          tileMaskPtx(Width) + " sub.u32 %r0, %a0, 0x800000;\n redux.sync." + Rd.Op + "." +
              Rd.Type + " %d0, %r0, %r9;",
          [K = Rd.K, Width](RefContext &X) {
            for (size_t T = 0; T < X.In.size(); ++T) {
              auto [First, Size] = tileOf(T, X.BlockThreads, Width);
              uint32_t Acc = reduxIdentity(K);
              for (unsigned I = 0; I < Size; ++I)
                Acc = reduxStep(K, Acc, uint32_t(X.In[First + I][0]) - 0x800000u);
              X.Out[T][0] = Acc;
            }
          },
          144, 72));
  // match.any, match.all and vote.ballot over tiles of 16 and 8 lanes executing together: each
  // lane's result names lanes of its own tile only (tiles of one warp may hold the same values).
  for (unsigned Width : {16u, 8u}) {
    std::string Tile = ".tile" + std::to_string(Width);
    L.push_back(W(
        "match.any.sync.b32" + Tile, {"u32"},
        tileMaskPtx(Width) + " and.b32 %r0, %a0, 3;\n match.any.sync.b32 %d0, %r0, %r9;",
        [Width](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            auto [First, Size] = tileOf(T, X.BlockThreads, Width);
            unsigned Shift = unsigned(First - warpOf(T, X.BlockThreads).First);
            uint32_t M = 0;
            for (unsigned I = 0; I < Size; ++I)
              M |= uint32_t((X.In[First + I][0] & 3) == (X.In[T][0] & 3)) << (Shift + I);
            X.Out[T][0] = M;
          }
        },
        144, 72));
    // All lanes of a tile agree where the tile's first lane's bit 2 is set (a tile-uniform
    // value), not elsewhere (the lane's own bit 0, which differs within most tiles). Whole warps.
    L.push_back(W(
        "match.all.sync.b32" + Tile, {"u32", "pred"},
        tileMaskPtx(Width) +
            " shfl.sync.idx.b32 %r1, %a0, %r8, 31, %r9;\n and.b32 %r2, %r1, 4;\n"
            " setp.ne.u32 %p0, %r2, 0;\n and.b32 %r3, %a0, 1;\n selp.u32 %r0, 7, %r3, %p0;\n"
            " match.all.sync.b32 %d0|%d1, %r0, %r9;",
        [Width](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            auto [First, Size] = tileOf(T, X.BlockThreads, Width);
            unsigned Shift = unsigned(First - warpOf(T, X.BlockThreads).First);
            auto Val = [&](size_t G) {
              return (X.In[First][0] & 4) ? 7u : uint32_t(X.In[G][0] & 1);
            };
            bool Same = true;
            for (unsigned I = 0; I < Size; ++I)
              Same &= Val(First + I) == Val(T);
            X.Out[T] = {Same ? fullMask(Size) << Shift : 0u, Same};
          }
        },
        128, 64));
    L.push_back(W(
        "vote.sync.ballot" + Tile, {"u32"},
        tileMaskPtx(Width) + " and.b32 %r0, %a0, 7;\n setp.lt.u32 %p0, %r0, 3;\n "
                             "vote.sync.ballot.b32 %d0, %p0, %r9;",
        [Width, Pred](RefContext &X) {
          for (size_t T = 0; T < X.In.size(); ++T) {
            auto [First, Size] = tileOf(T, X.BlockThreads, Width);
            unsigned Shift = unsigned(First - warpOf(T, X.BlockThreads).First);
            uint32_t B = 0;
            for (unsigned I = 0; I < Size; ++I)
              B |= uint32_t(Pred(X.In[First + I][0])) << (Shift + I);
            X.Out[T][0] = B;
          }
        },
        144, 72));
  }
  // elect.sync (sm_90): exactly the lowest active member lane is elected.
  L.push_back(W(
      "elect.sync", {"u32", "pred"},
      "mov.u32 %r1, %laneid;\n setp.lt.u32 %p0, %r1, 3;\n mov.u32 %d0, 99;\n"
      " mov.pred %d1, 0;\n @%p0 bra $Lskip;\n elect.sync %d0|%d1, 0xfffffff8;\n$Lskip:",
      [](RefContext &X) {
        for (size_t T = 0; T < X.In.size(); ++T) {
          WarpOf Wp = warpOf(T, X.BlockThreads);
          if (Wp.Lane < 3) {
            X.Out[T] = {99, 0};
            continue;
          }
          X.Out[T] = {3, Wp.Lane == 3};
        }
      },
      96, 96));
}

} // namespace reptx::conformance
