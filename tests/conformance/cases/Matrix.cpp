// Warp-level matrix instructions (PTX ISA 9.7.14): mma.sync .row.col of every shape and type
// pair the toolkit's PTX uses (m16n8k16 f16/bf16 with f32 and f16 accumulators, m16n8k8 tf32 and
// f16, m16n8k32 s8/u8 with and without .satfinite and e4m3 x e5m2, m8n8k4 f64), ldmatrix (.x1,
// .x2.trans, .x4, .x4.trans), stmatrix, movmatrix and wmma (load, mma and store of every shape and
// type, below). Each thread's row holds its fragment registers; the reference rebuilds
// A, B and C of each warp from the fragment layouts of the PTX ISA ("Matrix Fragments for
// mma.m16n8k*", "mma.m8n8k4 with .f64"), multiplies on the host and hands every thread its
// registers of D. Inputs are small integers and binary fractions, so every product and sum is
// exact (the tensor cores' order of summation is not specified); tf32 inputs are valid tf32
// values (cvt.rna.tf32.f32 results). Two blocks of two warps: both warps of a wave64 wave in
// packed mode multiply their own matrices.
#include "../Conformance.h"

#include <cmath>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;
constexpr unsigned Threads = 128, Block = 64;

// A deterministic generator per case.
struct Gen {
  uint64_t S;
  int range(int Lo, int Hi) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    return Lo + int((S >> 33) % uint64_t(Hi - Lo + 1));
  }
};

// ---- element encodings (PTX ISA 5.2.5); values are exactly representable
uint32_t halfBits(double V) { // f16
  if (V == 0)
    return std::signbit(V) ? 0x8000 : 0;
  uint32_t S = V < 0 ? 0x8000 : 0;
  int E;
  double M = std::frexp(std::fabs(V), &E); // V = M * 2^E, M in [0.5, 1)
  return S | uint32_t(E - 1 + 15) << 10 | uint32_t((M * 2 - 1) * 1024);
}
double fromHalf(uint32_t B) {
  int E = (B >> 10) & 31, M = B & 1023;
  double V = E ? std::ldexp(1 + M / 1024.0, E - 15) : std::ldexp(M / 1024.0, -14);
  return (B & 0x8000) ? -V : V;
}
uint32_t bf16Bits(double V) {
  float F = float(V);
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U >> 16;
}
double fromBf16(uint32_t B) { return asF32(u64(B) << 16); }
double fromTf32(uint32_t B) { return asF32(B); }
uint32_t e4m3Bits(double V) { // 1.4.3, bias 7
  if (V == 0)
    return 0;
  uint32_t S = V < 0 ? 0x80 : 0;
  int E;
  double M = std::frexp(std::fabs(V), &E);
  return S | uint32_t(E - 1 + 7) << 3 | uint32_t((M * 2 - 1) * 8);
}
double fromE4m3(uint32_t B) {
  int E = (B >> 3) & 15, M = B & 7;
  double V = E ? std::ldexp(1 + M / 8.0, E - 7) : std::ldexp(M / 8.0, -6);
  return (B & 0x80) ? -V : V;
}
uint32_t e5m2Bits(double V) { return halfBits(V) >> 8; } // the upper byte of an f16
double fromE5m2(uint32_t B) { return fromHalf(B << 8); }

enum class Elem { F16, Bf16, Tf32, E4m3, E5m2, S8, U8 };
unsigned elemBits(Elem E) {
  return E == Elem::F16 || E == Elem::Bf16 ? 16 : E == Elem::Tf32 ? 32 : 8;
}
const char *elemName(Elem E) {
  switch (E) {
  case Elem::F16:
    return "f16";
  case Elem::Bf16:
    return "bf16";
  case Elem::Tf32:
    return "tf32";
  case Elem::E4m3:
    return "e4m3";
  case Elem::E5m2:
    return "e5m2";
  case Elem::S8:
    return "s8";
  default:
    return "u8";
  }
}
// A random exact value of the type: integers (and halves for the float types). Small: values whose
// sums of 16 products stay exact in f16 (for f16 accumulators).
double randomValue(Elem E, Gen &G, bool Small) {
  if (Small)
    return G.range(-4, 4);
  switch (E) {
  case Elem::S8:
    return G.range(-128, 127);
  case Elem::U8:
    return G.range(0, 255);
  case Elem::E4m3:
    return G.range(-12, 12) * 0.5;
  case Elem::E5m2: { // two mantissa bits: 1, 1.25, 1.5, 1.75 times a power of two
    static const double V[] = {0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8};
    double X = V[G.range(0, 12)];
    return G.range(0, 1) ? -X : X;
  }
  case Elem::Tf32:
    return G.range(-64, 64) * 0.125;
  default:
    return G.range(-16, 16) * 0.5;
  }
}
uint32_t encode(Elem E, double V) {
  switch (E) {
  case Elem::F16:
    return halfBits(V);
  case Elem::Bf16:
    return bf16Bits(V);
  case Elem::Tf32:
    return uint32_t(f32(float(V)));
  case Elem::E4m3:
    return e4m3Bits(V);
  case Elem::E5m2:
    return e5m2Bits(V);
  default:
    return uint32_t(int64_t(V)) & 0xff;
  }
}
double decode(Elem E, uint32_t B) {
  switch (E) {
  case Elem::F16:
    return fromHalf(B);
  case Elem::Bf16:
    return fromBf16(B);
  case Elem::Tf32:
    return fromTf32(B);
  case Elem::E4m3:
    return fromE4m3(B);
  case Elem::E5m2:
    return fromE5m2(B);
  case Elem::S8:
    return double(int8_t(B));
  default:
    return double(B & 0xff);
  }
}

enum class Acc { F32, F16, S32 };

// mma.m16n8kK with .row A and .col B (PTX ISA "Matrix Fragments for mma.m16n8k*"): lane 4g + t,
// P = 32 / bits elements per register, S = K / 4P spans of k:
//   A register r + 2s: row g + 8r, k = 4Ps + Pt + (0..P-1);   B register s: column g, same k;
//   C/D element i: row g + 8(i / 2), column 2t + (i & 1).
struct MmaCase {
  unsigned K;
  Elem A, B;
  Acc C, D;
  bool Satfinite = false;
};

std::string accType(Acc A) { return A == Acc::F32 ? "f32" : A == Acc::F16 ? "f16" : "s32"; }

Case mmaCase(const MmaCase &M, uint64_t Seed) {
  unsigned P = 32 / elemBits(M.A), S = M.K / (4 * P);
  unsigned ARegs = 2 * S, BRegs = S, CRegs = M.C == Acc::F16 ? 2 : 4,
           DRegs = M.D == Acc::F16 ? 2 : 4;
  Case C;
  C.Family = "matrix";
  std::string Types = accType(M.D) + "." + elemName(M.A) + "." + elemName(M.B) + "." + accType(M.C);
  std::string Ptx = "mma.sync.aligned.m16n8k" + std::to_string(M.K) + ".row.col" +
                    (M.Satfinite ? ".satfinite." : ".") + Types;
  C.Name = Ptx;
  auto List = [](const char *Reg, unsigned First, unsigned N) {
    std::string S = "{";
    for (unsigned I = 0; I < N; ++I)
      S += (I ? ", %" : "%") + std::string(Reg) + std::to_string(First + I);
    return S + "}";
  };
  C.Body = Ptx + " " + List("d", 0, DRegs) + ", " + List("a", 0, ARegs) + ", " +
           List("a", ARegs, BRegs) + ", " + List("a", ARegs + BRegs, CRegs) + ";";
  for (unsigned I = 0; I < ARegs + BRegs; ++I)
    C.InTypes.push_back("b32");
  for (unsigned I = 0; I < CRegs; ++I)
    C.InTypes.push_back(M.C == Acc::F16 ? "b32" : accType(M.C));
  for (unsigned I = 0; I < DRegs; ++I)
    C.OutTypes.push_back(M.D == Acc::F16 ? "b32" : accType(M.D));
  Gen G{Seed};
  for (unsigned T = 0; T < Threads; ++T) {
    std::vector<u64> Row;
    for (unsigned R = 0; R < ARegs + BRegs; ++R) {
      Elem E = R < ARegs ? M.A : M.B;
      uint32_t Reg = 0;
      for (unsigned Sub = 0; Sub < P; ++Sub)
        Reg |= encode(E, randomValue(E, G, M.C == Acc::F16) *
                             (R >= ARegs && M.C == Acc::F16 ? 0.25 : 1))
               << (Sub * (32 / P));
      Row.push_back(Reg);
    }
    if (M.C == Acc::F16) {
      for (unsigned R = 0; R < 2; ++R)
        Row.push_back(halfBits(G.range(-20, 20) * 0.5) | halfBits(G.range(-20, 20) * 0.5) << 16);
    } else {
      for (unsigned R = 0; R < 4; ++R) {
        if (M.C == Acc::F32)
          Row.push_back(f32(float(G.range(-100, 100))));
        else if (R < 2) // near the ends of the s32 range: the sum saturates or wraps
          Row.push_back(
              uint32_t(R == 0 ? 0x7fff0000 + G.range(0, 99) : -0x7fff0000 - G.range(0, 99)));
        else
          Row.push_back(uint32_t(G.range(-1000, 1000)));
      }
    }
    C.Rows.push_back(Row);
  }
  C.Ref = [M, P, S, ARegs, BRegs](RefContext &X) {
    for (size_t W = 0; W < X.In.size(); W += 32) {
      double A[16][32] = {}, B[32][8] = {}, Cm[16][8] = {};
      for (unsigned L = 0; L < 32; ++L) {
        const std::vector<u64> &R = X.In[W + L];
        unsigned Gr = L >> 2, T = L & 3;
        for (unsigned Sp = 0; Sp < S; ++Sp)
          for (unsigned Sub = 0; Sub < P; ++Sub) {
            unsigned K = 4 * P * Sp + P * T + Sub, Shift = Sub * (32 / P);
            uint32_t Mask = P == 1 ? ~0u : (1u << (32 / P)) - 1;
            for (unsigned Half = 0; Half < 2; ++Half)
              A[Gr + 8 * Half][K] = decode(M.A, uint32_t(R[Half + 2 * Sp] >> Shift) & Mask);
            B[K][Gr] = decode(M.B, uint32_t(R[ARegs + Sp] >> Shift) & Mask);
          }
        for (unsigned I = 0; I < 4; ++I) {
          unsigned Row = Gr + 8 * (I / 2), Col = 2 * T + (I & 1);
          u64 V = M.C == Acc::F16 ? (R[ARegs + BRegs + I / 2] >> (16 * (I & 1))) & 0xffff
                                  : R[ARegs + BRegs + I];
          Cm[Row][Col] = M.C == Acc::F16   ? fromHalf(uint32_t(V))
                         : M.C == Acc::F32 ? double(asF32(V))
                                           : double(int32_t(uint32_t(V)));
        }
      }
      for (unsigned L = 0; L < 32; ++L) {
        unsigned Gr = L >> 2, T = L & 3;
        std::vector<u64> Out(M.D == Acc::F16 ? 2 : 4, 0);
        for (unsigned I = 0; I < 4; ++I) {
          unsigned Row = Gr + 8 * (I / 2), Col = 2 * T + (I & 1);
          double Sum = Cm[Row][Col];
          for (unsigned K = 0; K < M.K; ++K)
            Sum += A[Row][K] * B[K][Col];
          if (M.D == Acc::F16)
            Out[I / 2] |= u64(halfBits(Sum)) << (16 * (I & 1));
          else if (M.D == Acc::F32)
            Out[I] = f32(float(Sum));
          else if (M.Satfinite)
            Out[I] = uint32_t(int32_t(std::fmin(std::fmax(Sum, -2147483648.0), 2147483647.0)));
          else // wraps as s32 arithmetic
            Out[I] = uint32_t(int64_t(Sum));
        }
        X.Out[W + L] = Out;
      }
    }
  };
  C.Block = Block;
  return C;
}

// mma.m8n8k4 .f64 (PTX ISA "mma.m8n8k4 with .f64"): lane 4g + t holds A[g][t], B[t][g] and
// D[g][2t + i]; D = fma(A[g][k], B[k][n], ...) in k order (each step exact here).
Case mmaF64Case(uint64_t Seed) {
  Case C;
  C.Family = "matrix";
  C.Name = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";
  C.Body = C.Name + " {%d0, %d1}, {%a0}, {%a1}, {%a2, %a3};";
  C.InTypes = {"f64", "f64", "f64", "f64"};
  C.OutTypes = {"f64", "f64"};
  Gen G{Seed};
  for (unsigned T = 0; T < Threads; ++T)
    C.Rows.push_back({f64(G.range(-999, 999) / 64.0), f64(G.range(-999, 999) / 32.0),
                      f64(G.range(-9999, 9999)), f64(G.range(-9999, 9999))});
  C.Ref = [](RefContext &X) {
    for (size_t W = 0; W < X.In.size(); W += 32)
      for (unsigned L = 0; L < 32; ++L) {
        unsigned Gr = L >> 2, T = L & 3;
        std::vector<u64> Out;
        for (unsigned I = 0; I < 2; ++I) {
          unsigned N = 2 * T + I;
          double Sum = asF64(X.In[W + L][2 + I]);
          for (unsigned K = 0; K < 4; ++K)
            Sum = std::fma(asF64(X.In[W + 4 * Gr + K][0]), asF64(X.In[W + 4 * N + K][1]), Sum);
          Out.push_back(f64(Sum));
        }
        X.Out[W + L] = Out;
      }
  };
  C.Block = Block;
  return C;
}

// The scaffolding of the ldmatrix/stmatrix cases: OP.sync.aligned.m8n8.xN[.trans].shared.b16 on a
// shared tile of 512 bytes per warp, where matrix m's row r sits at 128m + 16r, the 16 bytes of
// lane 8m + r; the body's prefix leaves that row's address in %r4 (%r1 = lane, %r3 = the warp's
// area). Rows: four random words per thread. Regs: the register list "{%PREFIX0, ...}" of N.
struct TileCase {
  Case C;
  std::string Ptx, Regs, Prefix;
};
TileCase tileCase(const std::string &Op, unsigned N, bool Trans, const char *RegPrefix,
                  uint64_t Seed) {
  TileCase T;
  T.C.Family = "matrix";
  T.Ptx = Op + ".sync.aligned.m8n8.x" + std::to_string(N) + (Trans ? ".trans" : "") + ".shared.b16";
  T.C.Name = T.Ptx;
  T.C.ModuleDecls = ".shared .align 16 .b8 $tile[1024];";
  T.Regs = "{";
  for (unsigned I = 0; I < N; ++I)
    T.Regs += (I ? ", %" : "%") + std::string(RegPrefix) + std::to_string(I);
  T.Regs += "}";
  T.Prefix = "mov.u32 %r1, %laneid;\n shr.u32 %r2, %tid.x, 5;\n mov.u32 %r3, $tile;\n"
             " mad.lo.u32 %r3, %r2, 512, %r3;\n mad.lo.u32 %r4, %r1, 16, %r3;\n";
  T.C.InTypes = {"b32", "b32", "b32", "b32"};
  Gen G{Seed};
  for (unsigned I = 0; I < Threads; ++I) {
    std::vector<u64> Row;
    for (unsigned K = 0; K < 4; ++K)
      Row.push_back(uint32_t(G.range(1, 0xffff)) | uint32_t(G.range(1, 0xffff)) << 16);
    T.C.Rows.push_back(Row);
  }
  T.C.Block = Block;
  return T;
}

// ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (PTX ISA 9.7.14.5.15). Every thread stores its
// row's value (two b16 elements) into its warp's 512-byte area of a shared array, so matrix m of
// the warp is the 8 x 8 b16 block at byte 128m, row r at 128m + 16r; lane l then gives the
// address of row l % 8 of matrix l / 8 (lanes past 8N give theirs too, which ldmatrix ignores).
// Without .trans lane l receives row l / 4, elements 2(l % 4) and 2(l % 4) + 1 of each matrix;
// with .trans, row 2(l % 4) and 2(l % 4) + 1 of column l / 4.
Case ldmatrixCase(unsigned N, bool Trans) {
  TileCase T = tileCase("ldmatrix", N, Trans, "d", 0x1d3a + N * 2 + Trans);
  Case &C = T.C;
  C.OutTypes.assign(N, "b32");
  C.Body = T.Prefix + " st.shared.v4.b32 [%r4], {%a0, %a1, %a2, %a3};\n bar.sync 0;\n " + T.Ptx +
           " " + T.Regs + ", [%r4];";
  C.Ref = [N, Trans](RefContext &X) {
    for (size_t W = 0; W < X.In.size(); W += 32) {
      // Element (matrix m, row r, column c) = b16 number 8r + c of row 8m + r's 16 bytes, which
      // thread 8m + r of the warp stored (word c / 2, half c % 2).
      auto At = [&](unsigned Mtx, unsigned R, unsigned Col) {
        return uint32_t(X.In[W + 8 * Mtx + R][Col / 2] >> (16 * (Col % 2))) & 0xffff;
      };
      for (unsigned L = 0; L < 32; ++L) {
        std::vector<u64> Out;
        for (unsigned Mtx = 0; Mtx < N; ++Mtx) {
          unsigned R = L / 4, Col = 2 * (L % 4);
          uint32_t Lo = Trans ? At(Mtx, Col, R) : At(Mtx, R, Col);
          uint32_t Hi = Trans ? At(Mtx, Col + 1, R) : At(Mtx, R, Col + 1);
          Out.push_back(Lo | Hi << 16);
        }
        X.Out[W + L] = Out;
      }
    }
  };
  return C;
}

// stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (PTX ISA 9.7.14.5.16): every thread clears its
// 16-byte row of its warp's 512-byte area (matrix m's row r at 128m + 16r, lane 8m + r's), the
// warp stores its registers with each lane giving its row's address, and every thread reads its
// row back. Lane l's register of matrix m holds row l / 4, elements 2(l % 4) and 2(l % 4) + 1;
// with .trans it is stored to rows 2(l % 4) and 2(l % 4) + 1 at column l / 4.
Case stmatrixCase(unsigned N, bool Trans) {
  TileCase T = tileCase("stmatrix", N, Trans, "a", 0x57a + N * 2 + Trans);
  Case &C = T.C;
  C.Body = T.Prefix +
           " mov.b32 %r5, 0;\n st.shared.v4.b32 [%r4], {%r5, %r5, %r5, %r5};\n"
           " bar.warp.sync -1;\n " +
           T.Ptx + " [%r4], " + T.Regs +
           ";\n bar.warp.sync -1;\n ld.shared.v4.b32 {%d0, %d1, %d2, %d3}, [%r4];";
  C.OutTypes = {"b32", "b32", "b32", "b32"};
  C.Ref = [N, Trans](RefContext &X) {
    for (size_t W = 0; W < X.In.size(); W += 32) {
      uint16_t Img[4][8][8] = {}; // [matrix][row][column]
      for (unsigned L = 0; L < 32; ++L)
        for (unsigned M = 0; M < N; ++M) {
          uint32_t V = uint32_t(X.In[W + L][M]);
          unsigned R = L / 4, Col = 2 * (L % 4);
          for (unsigned J = 0; J < 2; ++J) {
            uint16_t E = uint16_t(V >> (16 * J));
            if (Trans)
              Img[M][Col + J][R] = E;
            else
              Img[M][R][Col + J] = E;
          }
        }
      for (unsigned L = 0; L < 32; ++L) {
        std::vector<u64> Out;
        for (unsigned Wd = 0; Wd < 4; ++Wd)
          Out.push_back(Img[L / 8][L % 8][2 * Wd] | uint32_t(Img[L / 8][L % 8][2 * Wd + 1]) << 16);
        X.Out[W + L] = Out;
      }
    }
  };
  return C;
}

// movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.7.14.5.17): lane 4r + c / 2 holds elements (r,
// c) and (r, c + 1) of an 8 x 8 matrix (c even); each lane receives its position of the transpose.
Case movmatrixCase() {
  Case C;
  C.Family = "matrix";
  C.Name = "movmatrix.sync.aligned.m8n8.trans.b16";
  C.Body = C.Name + " %d0, %a0;";
  C.InTypes = {"b32"};
  C.OutTypes = {"b32"};
  Gen G{0x30e};
  for (unsigned T = 0; T < Threads; ++T)
    C.Rows.push_back({uint32_t(G.range(0, 0xffff)) | uint32_t(G.range(0, 0xffff)) << 16});
  C.Ref = [](RefContext &X) {
    for (size_t W = 0; W < X.In.size(); W += 32) {
      auto At = [&](unsigned R, unsigned Col) {
        return uint32_t(X.In[W + 4 * R + Col / 2][0] >> (16 * (Col % 2))) & 0xffff;
      };
      for (unsigned L = 0; L < 32; ++L)
        X.Out[W + L] = {At(2 * (L % 4), L / 4) | At(2 * (L % 4) + 1, L / 4) << 16};
    }
  };
  C.Block = Block;
  return C;
}

// wmma (PTX ISA 9.7.14.4): the element-to-register mapping of a fragment is unspecified, so a case
// checks what is observable: load A, B and C from shared memory, multiply, store D and read it
// back. Each warp has its own area; thread l of a warp writes bytes l * n .. of each matrix's
// dense image (n = the matrix's bytes / 32) from its input slots, and reads its output slots from
// D's image the same way. The images are in the layout each instruction names (row- or
// column-major, leading dimension = the number of columns or rows: the default stride, or given).
struct WmmaCase {
  unsigned M, N, K;
  Elem A, B; // B's type is A's but for s8/u8 pairs
  Acc C, D;
  bool ARow, BRow, CRow, DRow;
  bool Satfinite = false, Stride = false;
  bool F64 = false;
};

unsigned wmmaBytes(Elem E) { return elemBits(E) / 8; }
unsigned accBytes(Acc A) { return A == Acc::F16 ? 2 : 4; }

Case wmmaCase(const WmmaCase &W, uint64_t Seed) {
  std::string Shape =
      "m" + std::to_string(W.M) + "n" + std::to_string(W.N) + "k" + std::to_string(W.K);
  unsigned AEl = W.F64 ? 8 : wmmaBytes(W.A), CEl = W.F64 ? 8 : accBytes(W.C),
           DEl = W.F64 ? 8 : accBytes(W.D);
  unsigned ABytes = W.M * W.K * AEl, BBytes = W.K * W.N * AEl, CBytes = W.M * W.N * CEl,
           DBytes = W.M * W.N * DEl, Total = ABytes + BBytes + CBytes + DBytes;
  unsigned ASlots = ABytes / 256, BSlots = BBytes / 256, CSlots = CBytes / 256,
           DSlots = DBytes / 256; // 8-byte slots per thread
  std::string AT = W.F64 ? "f64" : elemName(W.A), BT = W.F64 ? "f64" : elemName(W.B);
  std::string CT = W.F64 ? "f64" : accType(W.C), DT = W.F64 ? "f64" : accType(W.D);
  // Fragment registers (PTX ISA 9.7.14.4.1, the counts nvcc's mma.h uses).
  unsigned P = W.F64 ? 1 : 32 / elemBits(W.A);
  unsigned ARegs = W.F64 ? 1 : W.A == Elem::F16 ? 8 : W.M * W.K / (32 * P);
  unsigned BRegs = W.F64 ? 1 : W.B == Elem::F16 ? 8 : W.K * W.N / (32 * P);
  unsigned CRegs = W.F64 ? 2 : W.C == Acc::F16 ? 4 : 8, DRegs = W.F64 ? 2 : W.D == Acc::F16 ? 4 : 8;
  auto Regs = [](const char *Kind, unsigned First, unsigned N) {
    std::string S = "{";
    for (unsigned I = 0; I < N; ++I)
      S += (I ? ", %" : "%") + std::string(Kind) + std::to_string(First + I);
    return S + "}";
  };
  auto RegKind = [&](Acc T) { return W.F64 ? "fd" : T == Acc::F32 ? "f" : "r"; };
  // A in %r11.., B in %r30.. (%fd1, %fd2 for f64); C in %f1.. / %r40.. / %fd3..; D in %f20.. /
  // %r50.. / %fd5...
  std::string ARegList = W.F64 ? "{%fd1}" : Regs("r", 11, ARegs);
  std::string BRegList = W.F64 ? "{%fd2}" : Regs("r", 30, BRegs);
  std::string CRegList = Regs(RegKind(W.C), W.F64 ? 3 : W.C == Acc::F32 ? 1 : 40, CRegs);
  std::string DRegList = Regs(RegKind(W.D), W.F64 ? 5 : W.D == Acc::F32 ? 20 : 50, DRegs);
  auto Ld = [](bool Row, unsigned Rows, unsigned Cols) { return Row ? Cols : Rows; };
  auto StrideOp = [&](unsigned Ldv) {
    return W.Stride ? ", " + std::to_string(Ldv) : std::string();
  };
  std::string Lay = [](bool R) { return R ? ".row" : ".col"; }(W.ARow);
  Case C;
  C.Family = "matrix";
  std::string MmaTypes = W.F64              ? ".f64.f64.f64.f64"
                         : W.A == Elem::F16 ? "." + DT + "." + CT
                                            : "." + DT + "." + AT + "." + BT + "." + CT;
  std::string Mma = std::string("wmma.mma.sync.aligned") + (W.ARow ? ".row" : ".col") +
                    (W.BRow ? ".row" : ".col") + "." + Shape + MmaTypes +
                    (W.Satfinite ? ".satfinite" : "") + (W.F64 ? ".rn" : "");
  C.Name = Mma + (W.CRow ? " c.row" : " c.col") + (W.DRow ? " d.row" : " d.col") +
           (W.Stride ? " stride" : "");
  C.ModuleDecls = ".shared .align 32 .b8 $buf[" + std::to_string(2 * Total) + "];";
  std::string B = "mov.u32 %r1, %laneid;\n shr.u32 %r2, %tid.x, 5;\n mov.u32 %r3, $buf;\n"
                  " mad.lo.u32 %r3, %r2, " +
                  std::to_string(Total) + ", %r3;\n";
  // %r4..%r7: this thread's parts of A, B, C and D; %r7.. the bases.
  unsigned Offs[4] = {0, ABytes, ABytes + BBytes, ABytes + BBytes + CBytes};
  unsigned Per[4] = {ABytes / 32, BBytes / 32, CBytes / 32, DBytes / 32};
  for (unsigned M = 0; M < 4; ++M)
    B += " mad.lo.u32 %r" + std::to_string(4 + M) + ", %r1, " + std::to_string(Per[M]) +
         ", %r3;\n add.u32 %r" + std::to_string(4 + M) + ", %r" + std::to_string(4 + M) + ", " +
         std::to_string(Offs[M]) + ";\n add.u32 %r" + std::to_string(60 + M) + ", %r3, " +
         std::to_string(Offs[M]) + ";\n";
  unsigned Slot = 0;
  unsigned Counts[3] = {ASlots, BSlots, CSlots};
  for (unsigned M = 0; M < 3; ++M)
    for (unsigned J = 0; J < Counts[M]; ++J)
      B += " st.shared.b64 [%r" + std::to_string(4 + M) + "+" + std::to_string(8 * J) + "], %a" +
           std::to_string(Slot++) + ";\n";
  B += " bar.warp.sync -1;\n";
  B += " wmma.load.a.sync.aligned" + Lay + "." + Shape + ".shared." + AT + " " + ARegList +
       ", [%r60]" + StrideOp(Ld(W.ARow, W.M, W.K)) + ";\n";
  B += std::string(" wmma.load.b.sync.aligned") + (W.BRow ? ".row" : ".col") + "." + Shape +
       ".shared." + BT + " " + BRegList + ", [%r61]" + StrideOp(Ld(W.BRow, W.K, W.N)) + ";\n";
  B += std::string(" wmma.load.c.sync.aligned") + (W.CRow ? ".row" : ".col") + "." + Shape +
       ".shared." + CT + " " + CRegList + ", [%r62]" + StrideOp(Ld(W.CRow, W.M, W.N)) + ";\n";
  B += " " + Mma + " " + DRegList + ", " + ARegList + ", " + BRegList + ", " + CRegList + ";\n";
  B += std::string(" wmma.store.d.sync.aligned") + (W.DRow ? ".row" : ".col") + "." + Shape +
       ".shared." + DT + " [%r63], " + DRegList + StrideOp(Ld(W.DRow, W.M, W.N)) + ";\n";
  B += " bar.warp.sync -1;\n";
  for (unsigned J = 0; J < DSlots; ++J)
    B += " ld.shared.b64 %d" + std::to_string(J) + ", [%r7+" + std::to_string(8 * J) + "];\n";
  C.Body = B;
  for (unsigned I = 0; I < ASlots + BSlots + CSlots; ++I)
    C.InTypes.push_back("b64");
  for (unsigned I = 0; I < DSlots; ++I)
    C.OutTypes.push_back("b64");

  // Images: random exact elements, written into each warp's thread slots.
  Gen G{Seed};
  bool Small = W.D == Acc::F16 || W.C == Acc::F16;
  for (unsigned T = 0; T < Threads; ++T)
    C.Rows.push_back(std::vector<u64>(ASlots + BSlots + CSlots, 0));
  for (unsigned Wp = 0; Wp < Threads / 32; ++Wp) {
    std::vector<uint8_t> Img(ABytes + BBytes + CBytes, 0);
    auto Put = [&](unsigned Off, u64 V, unsigned Bytes) { std::memcpy(&Img[Off], &V, Bytes); };
    for (unsigned I = 0; I < W.M * W.K; ++I) {
      double V = W.F64 ? G.range(-999, 999) / 64.0 : randomValue(W.A, G, Small);
      Put(I * AEl, W.F64 ? f64(V) : encode(W.A, V), AEl);
    }
    for (unsigned I = 0; I < W.K * W.N; ++I) {
      double V =
          W.F64 ? G.range(-999, 999) / 32.0 : randomValue(W.B, G, Small) * (Small ? 0.25 : 1);
      Put(ABytes + I * AEl, W.F64 ? f64(V) : encode(W.B, V), AEl);
    }
    for (unsigned I = 0; I < W.M * W.N; ++I) {
      u64 V;
      if (W.F64)
        V = f64(G.range(-9999, 9999));
      else if (W.C == Acc::F16)
        V = halfBits(G.range(-20, 20) * 0.5);
      else if (W.C == Acc::F32)
        V = f32(float(G.range(-100, 100)));
      else
        V = uint32_t(I % 3 == 0   ? 0x7fff0000 + G.range(0, 99)
                     : I % 3 == 1 ? -0x7fff0000 - G.range(0, 99)
                                  : G.range(-1000, 1000));
      Put(ABytes + BBytes + I * CEl, V, CEl);
    }
    for (unsigned L = 0; L < 32; ++L) {
      std::vector<u64> &Row = C.Rows[Wp * 32 + L];
      unsigned S = 0;
      for (unsigned M = 0; M < 3; ++M)
        for (unsigned J = 0; J < Counts[M]; ++J)
          std::memcpy(&Row[S++], &Img[Offs[M] + L * Per[M] + 8 * J], 8);
    }
  }
  C.Ref = [=](RefContext &X) {
    for (size_t Wb = 0; Wb < X.In.size(); Wb += 32) {
      std::vector<uint8_t> Img(ABytes + BBytes + CBytes + DBytes, 0);
      for (unsigned L = 0; L < 32; ++L) {
        unsigned S = 0;
        for (unsigned M = 0; M < 3; ++M)
          for (unsigned J = 0; J < Counts[M]; ++J)
            std::memcpy(&Img[Offs[M] + L * Per[M] + 8 * J], &X.In[Wb + L][S++], 8);
      }
      auto Get = [&](unsigned Off, unsigned Bytes) {
        u64 V = 0;
        std::memcpy(&V, &Img[Off], Bytes);
        return V;
      };
      auto At = [](bool Row, unsigned R, unsigned Cl, unsigned Rows, unsigned Cols) {
        return Row ? R * Cols + Cl : Cl * Rows + R;
      };
      for (unsigned R = 0; R < W.M; ++R)
        for (unsigned Cl = 0; Cl < W.N; ++Cl) {
          u64 Cv = Get(Offs[2] + At(W.CRow, R, Cl, W.M, W.N) * CEl, CEl);
          double Sum = W.F64             ? asF64(Cv)
                       : W.C == Acc::F16 ? fromHalf(uint32_t(Cv))
                       : W.C == Acc::F32 ? double(asF32(Cv))
                                         : double(int32_t(uint32_t(Cv)));
          for (unsigned K = 0; K < W.K; ++K) {
            u64 Av = Get(At(W.ARow, R, K, W.M, W.K) * AEl, AEl);
            u64 Bv = Get(Offs[1] + At(W.BRow, K, Cl, W.K, W.N) * AEl, AEl);
            double Ad = W.F64 ? asF64(Av) : decode(W.A, uint32_t(Av));
            double Bd = W.F64 ? asF64(Bv) : decode(W.B, uint32_t(Bv));
            Sum = W.F64 ? std::fma(Ad, Bd, Sum) : Sum + Ad * Bd;
          }
          u64 Out;
          if (W.F64)
            Out = f64(Sum);
          else if (W.D == Acc::F16)
            Out = halfBits(Sum);
          else if (W.D == Acc::F32)
            Out = f32(float(Sum));
          else if (W.Satfinite)
            Out = uint32_t(int32_t(std::fmin(std::fmax(Sum, -2147483648.0), 2147483647.0)));
          else
            Out = uint32_t(int64_t(Sum));
          std::memcpy(&Img[Offs[3] + At(W.DRow, R, Cl, W.M, W.N) * DEl], &Out, DEl);
        }
      for (unsigned L = 0; L < 32; ++L) {
        std::vector<u64> Out(DSlots);
        for (unsigned J = 0; J < DSlots; ++J)
          std::memcpy(&Out[J], &Img[Offs[3] + L * Per[3] + 8 * J], 8);
        X.Out[Wb + L] = Out;
      }
    }
  };
  C.Block = Block;
  return C;
}

} // namespace

void addMatrixCases(CaseList &L) {
  uint64_t Seed = 0x6d6d61;
  for (MmaCase M : {MmaCase{16, Elem::F16, Elem::F16, Acc::F32, Acc::F32},
                    MmaCase{16, Elem::Bf16, Elem::Bf16, Acc::F32, Acc::F32},
                    MmaCase{16, Elem::F16, Elem::F16, Acc::F16, Acc::F16},
                    MmaCase{8, Elem::F16, Elem::F16, Acc::F32, Acc::F32},
                    MmaCase{8, Elem::Tf32, Elem::Tf32, Acc::F32, Acc::F32},
                    MmaCase{32, Elem::S8, Elem::S8, Acc::S32, Acc::S32, true},
                    MmaCase{32, Elem::U8, Elem::S8, Acc::S32, Acc::S32, false},
                    MmaCase{16, Elem::S8, Elem::U8, Acc::S32, Acc::S32, true},
                    MmaCase{32, Elem::E4m3, Elem::E5m2, Acc::F32, Acc::F32},
                    MmaCase{32, Elem::E4m3, Elem::E4m3, Acc::F32, Acc::F32}})
    L.push_back(mmaCase(M, Seed++));
  L.push_back(mmaF64Case(Seed++));
  L.push_back(ldmatrixCase(1, false));
  L.push_back(ldmatrixCase(2, true));
  L.push_back(ldmatrixCase(4, false));
  L.push_back(ldmatrixCase(4, true));
  L.push_back(stmatrixCase(1, false));
  L.push_back(stmatrixCase(2, true));
  L.push_back(stmatrixCase(4, false));
  L.push_back(movmatrixCase());
  WmmaCase F64Case{8, 8, 4, Elem::F16, Elem::F16, Acc::F32, Acc::F32, true, false, true, false};
  F64Case.F64 = true;
  for (WmmaCase W :
       {WmmaCase{16, 16, 16, Elem::F16, Elem::F16, Acc::F32, Acc::F32, true, false, true, true,
                 false, true},
        WmmaCase{32, 8, 16, Elem::F16, Elem::F16, Acc::F16, Acc::F16, false, true, false, true},
        WmmaCase{8, 32, 16, Elem::F16, Elem::F16, Acc::F32, Acc::F16, true, true, false, false},
        WmmaCase{16, 16, 16, Elem::Bf16, Elem::Bf16, Acc::F32, Acc::F32, false, false, true, false},
        WmmaCase{32, 8, 16, Elem::S8, Elem::S8, Acc::S32, Acc::S32, true, false, true, true, true,
                 true},
        WmmaCase{8, 32, 16, Elem::U8, Elem::U8, Acc::S32, Acc::S32, true, false, false, true},
        WmmaCase{16, 16, 8, Elem::Tf32, Elem::Tf32, Acc::F32, Acc::F32, true, false, true, true},
        F64Case})
    L.push_back(wmmaCase(W, Seed++));
}

} // namespace reptx::conformance
