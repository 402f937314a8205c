// Scratch (private) memory: the SCRATCH_* instructions of flat scratch addressing (CDNA3 ISA and
// RDNA3 ISA, "Flat, Scratch and Global Instructions": "Scratch"). Every work-item has its own
// private segment; a scratch address is an offset into it: vaddr (or off) + saddr (or off) +
// the instruction offset. Hardware interleaves lanes in memory, which is invisible to programs,
// so each lane simply has PrivatePerLane bytes of its own (Wave::Private). Also the two messages
// of the GFX11 trap sequence (s_sendmsg_rtn_b32, s_sethalt). And the MUBUF loads and stores
// that kernels without flat scratch (gfx90a) address their private segment with.
#include "Semantics.h"

#include <bit>
#include <cstring>

namespace reptx::emulator::sem {

namespace {

// Lane L's Bytes at private offset A, checked against its private segment; null with Failure set
// (Kind names the access in the message) when they do not fit.
uint8_t *privateAt(Wave &W, uint64_t A, unsigned L, unsigned Bytes, bool Write, const char *Kind,
                   Step &Failure) {
  uint64_t Per = W.Ctx->PrivatePerLane;
  if (A + Bytes > Per) {
    Failure = W.fault(FaultKind::MemoryViolation,
                      std::string(Kind) + (Write ? " store" : " load") + " of " +
                          std::to_string(Bytes) + " bytes at private offset " + std::to_string(A) +
                          " outside the " + std::to_string(Per) + "-byte private segment",
                      L, A);
    return nullptr;
  }
  return W.Private.data() + L * Per + A;
}

// Scratch operands: loads [vdst, vaddr|off, saddr|off], stores [vaddr|off, vdata, saddr|off]; the
// private offset is vaddr + saddr + offset, 32 bits.
uint8_t *scratchAt(Wave &W, const Inst &I, unsigned L, unsigned Bytes, bool Write, Step &Failure) {
  const Operand &Vaddr = I.Ops[Write ? 0 : 1];
  const Operand &Saddr = I.Ops[I.NumOps - 1];
  uint64_t A = uint64_t(int64_t(I.Offset));
  if (Vaddr.Kind != OperandKind::Off)
    A += uint32_t(W.lane(Vaddr, L, 32));
  if (Saddr.Kind != OperandKind::Off)
    A += uint32_t(W.scalar(Saddr, 32));
  return privateAt(W, A & 0xffffffff, L, Bytes, Write, "scratch", Failure);
}

// MUBUF accesses of the private segment, which is what AMDGPU uses them for in kernels without
// flat scratch (gfx90a's and GFX10 callees' stacks): [vdata, vaddr|off, srsrc, soffset]. The
// resource is the private segment buffer the dispatch gave (base 0, the wave's scratch offset 0),
// swizzled: a lane's dwords are interleaved with the other lanes' (AMD ISA manuals, "Buffer
// Instructions", swizzled addressing with ADD_TID_ENABLE and an index stride of the wave size),
// so the wave-level byte offset base + soffset (the stack and frame pointers) is
// (base + soffset) / wave size bytes into each lane's own segment, to which the instruction's
// offset (and vaddr, with offen) adds. Buffer accesses with an index fault by name.
uint8_t *bufferAt(Wave &W, const Inst &I, unsigned L, unsigned Bytes, bool Write, Step &Failure) {
  if (I.Idxen || I.Ops[2].Kind != OperandKind::Sgpr || I.Ops[2].Dwords != 4) {
    Failure = W.fault(FaultKind::UnsupportedInstruction,
                      "a buffer access other than of the private segment");
    return nullptr;
  }
  uint64_t Base = W.scalar(I.Ops[2], 64) & 0xffffffffffffull;
  uint64_t A = (Base + uint32_t(W.scalar(I.Ops[3], 32))) / W.Size + uint64_t(int64_t(I.Offset));
  if (I.Offen && I.Ops[1].Kind != OperandKind::Off)
    A += uint32_t(W.lane(I.Ops[1], L, 32));
  return privateAt(W, A, L, Bytes, Write, "buffer", Failure);
}

// The two forms: where a lane's access lands, the operand count, and which operand holds a
// store's data.
using PrivateAddress = uint8_t *(*)(Wave &, const Inst &, unsigned, unsigned, bool, Step &);
struct ScratchForm {
  static constexpr PrivateAddress At = &scratchAt;
  static constexpr unsigned NumOps = 3, StoreData = 1;
};
struct BufferForm {
  static constexpr PrivateAddress At = &bufferAt;
  static constexpr unsigned NumOps = 4, StoreData = 0;
};

template <typename F, unsigned Bytes, bool SignExtend> Step privateLoad(Wave &W, const Inst &I) {
  if (I.NumOps != F::NumOps || I.Ops[0].Dwords * 4u < Bytes)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected load operands");
  Step Failure = Step::Next;
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  for (uint64_t M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    uint8_t *P = F::At(W, I, L, Bytes, false, Failure);
    if (!P)
      return Failure;
    loadLane<Bytes, SignExtend>(W, Dst, L, P);
  }
  return Step::Next;
}

// The D16 loads: a byte or a short into one half of the destination VGPR, the other half kept.
template <typename F, unsigned Bytes, bool SignExtend, bool Hi>
Step privateLoadD16(Wave &W, const Inst &I) {
  if (I.NumOps != F::NumOps)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected load operands");
  Step Failure = Step::Next;
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  for (uint64_t M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    uint8_t *P = F::At(W, I, L, Bytes, false, Failure);
    if (!P)
      return Failure;
    uint32_t V = 0;
    std::memcpy(&V, P, Bytes);
    W.vcol(Dst)[L] = d16Merge<SignExtend>(W.vcol(Dst)[L], V, Bytes, Hi);
  }
  return Step::Next;
}

// HighHalf: the *_d16_hi stores, which write bits 16-31 of the data VGPR.
template <typename F, unsigned Bytes, bool HighHalf = false>
Step privateStore(Wave &W, const Inst &I) {
  if (I.NumOps != F::NumOps || I.Ops[F::StoreData].Dwords * 4u < Bytes)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected store operands");
  Step Failure = Step::Next;
  unsigned Data = W.vgprIndex(I.Ops[F::StoreData]);
  for (uint64_t M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    uint8_t *P = F::At(W, I, L, Bytes, true, Failure);
    if (!P)
      return Failure;
    storeLane<Bytes, HighHalf>(W, Data, L, P);
  }
  return Step::Next;
}

// s_sendmsg_rtn_b32/b64: MSG_RTN_GET_REALTIME (131) returns a monotonic counter (the wave's
// instruction count, as s_memrealtime does here); the other messages (doorbell id...) return 0.
Step sendmsgRtn(Wave &W, const Inst &I) {
  bool Realtime = I.NumOps == 2 && I.Ops[1].Kind == OperandKind::IntConst && I.Ops[1].Value == 131;
  W.writeScalar(I.Ops[0], Realtime ? W.Executed : 0);
  return Step::Next;
}

// s_sethalt with a non-zero argument halts the wave: the end of the GFX11 trap sequence.
Step setHalt(Wave &W, const Inst &) {
  return W.fault(FaultKind::Trap, "the wave executed a trap (s_sethalt)");
}

} // namespace

void addScratchOps(TableBuilder &T) {
  struct L {
    const char *Gfx9, *Gfx11;
    Handler H;
  };
  const L Loads[] = {
      {"scratch_load_ubyte", "scratch_load_u8", &privateLoad<ScratchForm, 1, false>},
      {"scratch_load_sbyte", "scratch_load_i8", &privateLoad<ScratchForm, 1, true>},
      {"scratch_load_ushort", "scratch_load_u16", &privateLoad<ScratchForm, 2, false>},
      {"scratch_load_sshort", "scratch_load_i16", &privateLoad<ScratchForm, 2, true>},
      {"scratch_load_dword", "scratch_load_b32", &privateLoad<ScratchForm, 4, false>},
      {"scratch_load_dwordx2", "scratch_load_b64", &privateLoad<ScratchForm, 8, false>},
      {"scratch_load_dwordx3", "scratch_load_b96", &privateLoad<ScratchForm, 12, false>},
      {"scratch_load_dwordx4", "scratch_load_b128", &privateLoad<ScratchForm, 16, false>},
      {"scratch_store_byte", "scratch_store_b8", &privateStore<ScratchForm, 1>},
      {"scratch_store_short", "scratch_store_b16", &privateStore<ScratchForm, 2>},
      {"scratch_store_dword", "scratch_store_b32", &privateStore<ScratchForm, 4>},
      {"scratch_store_dwordx2", "scratch_store_b64", &privateStore<ScratchForm, 8>},
      {"scratch_store_dwordx3", "scratch_store_b96", &privateStore<ScratchForm, 12>},
      {"scratch_store_dwordx4", "scratch_store_b128", &privateStore<ScratchForm, 16>},
      {"scratch_store_byte_d16_hi", "scratch_store_d16_hi_b8", &privateStore<ScratchForm, 1, true>},
      {"scratch_store_short_d16_hi", "scratch_store_d16_hi_b16",
       &privateStore<ScratchForm, 2, true>},
      {"scratch_load_ubyte_d16", "scratch_load_d16_u8",
       &privateLoadD16<ScratchForm, 1, false, false>},
      {"scratch_load_ubyte_d16_hi", "scratch_load_d16_hi_u8",
       &privateLoadD16<ScratchForm, 1, false, true>},
      {"scratch_load_sbyte_d16", "scratch_load_d16_i8",
       &privateLoadD16<ScratchForm, 1, true, false>},
      {"scratch_load_sbyte_d16_hi", "scratch_load_d16_hi_i8",
       &privateLoadD16<ScratchForm, 1, true, true>},
      {"scratch_load_short_d16", "scratch_load_d16_b16",
       &privateLoadD16<ScratchForm, 2, false, false>},
      {"scratch_load_short_d16_hi", "scratch_load_d16_hi_b16",
       &privateLoadD16<ScratchForm, 2, false, true>}};
  for (const L &X : Loads) {
    T.add(custom(X.Gfx9, X.H, 3));
    T.alias(X.Gfx11, X.Gfx9);
  }
  const struct {
    const char *Name;
    Handler H;
  } BufferOps[] = {{"buffer_load_ubyte", &privateLoad<BufferForm, 1, false>},
                   {"buffer_load_sbyte", &privateLoad<BufferForm, 1, true>},
                   {"buffer_load_ushort", &privateLoad<BufferForm, 2, false>},
                   {"buffer_load_sshort", &privateLoad<BufferForm, 2, true>},
                   {"buffer_load_dword", &privateLoad<BufferForm, 4, false>},
                   {"buffer_load_dwordx2", &privateLoad<BufferForm, 8, false>},
                   {"buffer_load_dwordx3", &privateLoad<BufferForm, 12, false>},
                   {"buffer_load_dwordx4", &privateLoad<BufferForm, 16, false>},
                   {"buffer_store_byte", &privateStore<BufferForm, 1>},
                   {"buffer_store_short", &privateStore<BufferForm, 2>},
                   {"buffer_store_dword", &privateStore<BufferForm, 4>},
                   {"buffer_store_dwordx2", &privateStore<BufferForm, 8>},
                   {"buffer_store_dwordx3", &privateStore<BufferForm, 12>},
                   {"buffer_store_dwordx4", &privateStore<BufferForm, 16>},
                   {"buffer_store_byte_d16_hi", &privateStore<BufferForm, 1, true>},
                   {"buffer_store_short_d16_hi", &privateStore<BufferForm, 2, true>}};
  for (const auto &B : BufferOps)
    T.add(custom(B.Name, B.H, 4));
  T.add(custom("s_sendmsg_rtn_b32", &sendmsgRtn, 2));
  T.add(custom("s_sendmsg_rtn_b64", &sendmsgRtn, 2));
  OpDef Halt = custom("s_sethalt", &setHalt);
  Halt.IgnoreOperands = true;
  T.add(Halt);
}

} // namespace reptx::emulator::sem
