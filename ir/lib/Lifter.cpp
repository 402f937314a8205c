// The lifter's driver: kernels with their parameters, registers as allocas in the local address
// space (SROA and mem2reg turn them into SSA values), labels as basic blocks, guarded
// instructions as conditional blocks, and dispatch of each instruction to its family's file.
#include "Lifter.h"

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace llvm;

namespace reptx::ir {

std::optional<PtxType> parseType(StringRef S) {
  if (S == ".pred")
    return PtxType{PtxType::Pred, 1};
  if (S.size() < 3 || S[0] != '.')
    return std::nullopt;
  PtxType::Kind K;
  switch (S[1]) {
  case 'u':
    K = PtxType::Unsigned;
    break;
  case 's':
    K = PtxType::Signed;
    break;
  case 'b':
    K = PtxType::Bits;
    break;
  case 'f':
    K = PtxType::Float;
    break;
  default:
    return std::nullopt;
  }
  unsigned W = 0;
  if (S.substr(2).getAsInteger(10, W))
    return std::nullopt;
  if (K == PtxType::Float ? (W != 16 && W != 32 && W != 64)
                          : (W != 8 && W != 16 && W != 32 && W != 64 && W != 128))
    return std::nullopt;
  return PtxType{K, W};
}

// Shared arrays of 16 bytes or more are placed on 16-byte boundaries whatever their declared
// alignment, so that the backend can merge neighbouring accesses into 64- and 128-bit LDS
// instructions (the PTX alignment is a minimum).
static uint64_t sharedAlignment(uint64_t Declared, uint64_t Size) {
  uint64_t A = Declared ? Declared : 4;
  return Size >= 16 ? std::max<uint64_t>(A, 16) : A;
}

// The value of an integer constant expression (PTX ISA 4.6, "Constant Expressions"): literals and
// the unary and binary operators on signed 64-bit values; nothing when it names a symbol, holds a
// float, or is undefined (division by zero, a shift by 64 or more, INT64_MIN / -1).
static std::optional<int64_t> constantValue(const ptx::Expr *E) {
  if (!E)
    return std::nullopt;
  switch (E->K) {
  case ptx::Expr::Int:
    return E->IntValue;
  case ptx::Expr::Unary: {
    auto A = E->Args.size() == 1 ? constantValue(E->Args[0]) : std::nullopt;
    if (!A)
      return std::nullopt;
    switch (E->Op) {
    case '-':
      return int64_t(0 - uint64_t(*A));
    case '+':
      return *A;
    case '~':
      return ~*A;
    case '!':
      return int64_t(*A == 0);
    }
    return std::nullopt;
  }
  case ptx::Expr::Binary: {
    if (E->Args.size() != 2)
      return std::nullopt;
    auto A = constantValue(E->Args[0]), C = constantValue(E->Args[1]);
    if (!A || !C)
      return std::nullopt;
    uint64_t UA = uint64_t(*A), UC = uint64_t(*C);
    switch (E->Op) {
    case '+':
      return int64_t(UA + UC);
    case '-':
      return int64_t(UA - UC);
    case '*':
      return int64_t(UA * UC);
    case '/':
    case '%':
      if (*C == 0 || (*A == INT64_MIN && *C == -1))
        return std::nullopt;
      return E->Op == '/' ? *A / *C : *A % *C;
    case '&':
      return *A & *C;
    case '|':
      return *A | *C;
    case '^':
      return *A ^ *C;
    case '<': // <<
      return UC < 64 ? std::optional<int64_t>(int64_t(UA << UC)) : std::nullopt;
    case '>': // >>, arithmetic on the signed value
      return UC < 64 ? std::optional<int64_t>(*A >> UC) : std::nullopt;
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

// A symbol plus or minus a constant, as initializers and operands write addresses (sym, sym + n,
// sym - n, n + sym; PTX ISA 4.6): the symbol's expression and the offset. Any other expression
// comes back as itself, with offset 0.
static std::pair<const ptx::Expr *, int64_t> symbolAndOffset(const ptx::Expr *E) {
  if (!E || E->K != ptx::Expr::Binary || E->Args.size() != 2 || (E->Op != '+' && E->Op != '-'))
    return {E, 0};
  if (auto R = constantValue(E->Args[1]))
    return {E->Args[0], E->Op == '+' ? *R : int64_t(0 - uint64_t(*R))};
  if (auto L = constantValue(E->Args[0]); L && E->Op == '+')
    return {E->Args[1], *L};
  return {E, 0};
}

std::optional<uint64_t> elementCount(const ptx::VarDecl &D) {
  uint64_t Count = 1;
  for (auto [K, E] : llvm::enumerate(D.Dims)) {
    // `x[] = {...}`: the first dimension is the initializer's count of elements.
    std::optional<int64_t> N;
    if (!E && K == 0 && D.Init && D.Init->K == ptx::Expr::Braces)
      N = int64_t(D.Init->Args.size());
    else
      N = constantValue(E);
    if (!N || *N < 0 || __builtin_mul_overflow(Count, uint64_t(*N), &Count))
      return std::nullopt;
  }
  return Count;
}

Expected<uint64_t> variableSize(const ptx::VarDecl &D) {
  // A texture, sampler or surface reference holds the 64-bit handle of the object that the
  // loader's cuTexRef*/cuSurfRef* calls describe (LiftTexture.cpp).
  if (D.Type == ".texref" || D.Type == ".surfref" || D.Type == ".samplerref") {
    auto Count = elementCount(D);
    if (!Count || *Count > (uint64_t(1) << 40))
      return createStringError("variable '" + D.Name.str() + "' has an unsupported array size");
    return 8 * *Count;
  }
  auto T = parseType(D.Type);
  if (!T || T->K == PtxType::Pred)
    return createStringError("variable '" + D.Name.str() + "' has unsupported type " + D.Type);
  uint64_t Size = T->Width / 8 * (D.VectorWidth ? D.VectorWidth : 1);
  auto Count = elementCount(D);
  if (!Count || __builtin_mul_overflow(Size, *Count, &Size))
    return createStringError("variable '" + D.Name.str() + "' has an unsupported array size");
  return Size;
}

FunctionLifter::FunctionLifter(const ptx::Module &PM, const ptx::Function &F, Module &M,
                               const StringMap<const ptx::VarDecl *> &ModuleVars)
    : B(M.getContext()), Ctx(M.getContext()), PM(PM), F(F), M(M), ModuleVars(ModuleVars) {}

Error FunctionLifter::unsupported(const Twine &Why) const {
  std::string Text;
  raw_string_ostream OS(Text);
  if (Cur) {
    auto [Line, Col] = PM.lineCol(Cur->L);
    OS << PM.name() << ":" << Line << ": " << (F.IsEntry ? "kernel '" : "function '") << F.Name
       << "': " << Why << ": '" << PM.lineText(Cur->L).trim() << "'";
  } else {
    auto [Line, Col] = PM.lineCol(F.L);
    OS << PM.name() << ":" << Line << ": " << (F.IsEntry ? "kernel '" : "function '") << F.Name
       << "': " << Why;
  }
  return createStringError(inconvertibleErrorCode(), Text);
}

bool FunctionLifter::hasMod(StringRef Mod) const { return llvm::is_contained(Cur->Mods, Mod); }

SmallVector<PtxType, 2> FunctionLifter::types() const {
  SmallVector<PtxType, 2> R;
  for (StringRef M : Cur->Mods)
    if (auto T = parseType(M))
      R.push_back(*T);
  return R;
}

Expected<PtxType> FunctionLifter::type() const {
  auto Ts = types();
  if (Ts.size() != 1)
    return unsupported("unsupported type");
  return Ts[0];
}

Type *FunctionLifter::llvmType(PtxType T) const {
  if (T.K == PtxType::Pred)
    return Type::getInt1Ty(Ctx);
  if (T.K == PtxType::Float)
    return T.Width == 16   ? Type::getHalfTy(Ctx)
           : T.Width == 32 ? Type::getFloatTy(Ctx)
                           : Type::getDoubleTy(Ctx);
  return Type::getIntNTy(Ctx, T.Width);
}

Expected<FunctionLifter::Register *> FunctionLifter::reg(ptx::Symbol Name) {
  auto It = Regs.find(Name);
  if (It != Regs.end())
    return &It->second;
  // %r17 declared by `.reg .b32 %r<N>`: find the prefix before the trailing digits.
  StringRef Prefix = Name.rtrim("0123456789");
  auto R = RegRanges.find(Prefix);
  if (Prefix.size() == Name.size() || R == RegRanges.end())
    return unsupported("unknown register " + Name);
  Type *Ty = R->second;
  // %r<N> declares %r0..%r(N-1) only: a register beyond it in a nested block belongs to the
  // nearest hidden range that has it.
  unsigned Idx = 0;
  if (!Name.drop_front(Prefix.size()).getAsInteger(10, Idx) && Idx >= RangeCounts.lookup(Prefix))
    for (const Shadowed &Sh : llvm::reverse(ScopeLog))
      if (Sh.Range && Sh.Name == Prefix && Sh.OuterRange && Idx < Sh.OuterCount) {
        Ty = Sh.OuterRange;
        break;
      }
  IRBuilder<> EB(Entry, Entry->begin());
  Register &Reg = Regs[Name];
  Reg.Ty = Ty;
  Reg.Slot = EB.CreateAlloca(Reg.Ty, LocalAS, nullptr, Name.drop_front());
  return &Reg;
}

// Converts V (integer or float) to T: same width bitcasts, integer widths truncate or extend.
static Expected<Value *> convertTo(IRBuilder<> &B, Value *V, Type *T, bool Signed) {
  Type *VT = V->getType();
  if (VT == T)
    return V;
  unsigned VW = VT->getPrimitiveSizeInBits(), TW = T->getPrimitiveSizeInBits();
  if (VW == TW && VW != 0)
    return B.CreateBitCast(V, T);
  if (VT->isIntegerTy() && T->isIntegerTy())
    return B.CreateIntCast(V, T, Signed);
  if (VT->isIntegerTy() && T->isFloatingPointTy() && VW > TW)
    return B.CreateBitCast(B.CreateTrunc(V, B.getIntNTy(TW)), T);
  if (VT->isFloatingPointTy() && T->isIntegerTy() && VW < TW)
    return B.CreateIntCast(B.CreateBitCast(V, B.getIntNTy(VW)), T, Signed);
  return createStringError("cannot convert between operand types");
}

Expected<Value *> FunctionLifter::read(const ptx::Operand &Op, Type *T, bool Signed) {
  // `{%r}`, a vector of one element, is the element (ptxas accepts it where a scalar goes; NCCL's
  // inline assembly writes `ld.relaxed.gpu.u64 {%0}, [%1];`).
  if (Op.K == ptx::Operand::Vector && Op.Elems.size() == 1)
    return read(Op.Elems[0], T, Signed);
  switch (Op.K) {
  case ptx::Operand::Int:
    if (T->isFloatingPointTy())
      return B.CreateBitCast(B.getIntN(T->getPrimitiveSizeInBits(), uint64_t(Op.IntValue)), T);
    if (T->isIntegerTy(1))
      return B.getInt1(Op.IntValue != 0);
    return ConstantInt::get(T, uint64_t(Op.IntValue), /*IsSigned=*/true);
  case ptx::Operand::Float: {
    // 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX literals: exact bits; a literal of the other width is
    // converted to the instruction's type (PTX ISA 4.5.1, "Floating-point constants").
    APFloat V = Op.IsDouble ? APFloat(APFloat::IEEEdouble(), APInt(64, Op.FloatBits))
                            : APFloat(APFloat::IEEEsingle(), APInt(32, Op.FloatBits));
    if (T->isFloatingPointTy()) {
      bool LosesInfo = false;
      V.convert(T->getFltSemantics(), APFloat::rmNearestTiesToEven, &LosesInfo);
      return ConstantFP::get(T, V);
    }
    if (T->isIntegerTy() && T->getPrimitiveSizeInBits() == (Op.IsDouble ? 64u : 32u))
      return ConstantInt::get(T, V.bitcastToAPInt());
    return unsupported("float literal with an integer type");
  }
  case ptx::Operand::Name: {
    StringRef S = Op.Sym;
    StringRef Comp = Op.Component.ltrim('.');
    // A special register or constant read as the instruction's type (a mov.f64 of %ctaid.x has
    // none to convert to).
    auto Convert = [&](Value *V) -> Expected<Value *> {
      auto C = convertTo(B, V, T, false);
      if (!C) {
        consumeError(C.takeError());
        return unsupported(S + " read as an incompatible type");
      }
      return *C;
    };
    // Special registers (PTX ISA 10.1-10.5).
    StringRef Special = StringSwitch<StringRef>(S)
                            .Case("%tid", "tid")
                            .Case("%ntid", "ntid")
                            .Case("%ctaid", "ctaid")
                            .Case("%nctaid", "nctaid")
                            .Default("");
    if (!Special.empty()) {
      if (Comp != "x" && Comp != "y" && Comp != "z")
        return unsupported("special register without .x/.y/.z");
      Value *V = callSpecial(("reptx." + Special + "." + Comp).str());
      return Convert(V);
    }
    if (Comp.empty())
      if (Value *V = warpSpecialRegister(*this, S))
        return Convert(V);
    if (Comp.empty() && S.starts_with("%"))
      if (Value *V = otherSpecialRegister(*this, S))
        return Convert(V);
    if (!Comp.empty())
      return unsupported("vector register components");
    if (S == "WARP_SZ") // the predefined warp-size constant (PTX ISA 5.4)
      return Convert(B.getInt32(32));
    StringRef Prefix = S.rtrim("0123456789");
    bool IsReg = Regs.count(S) || (Prefix.size() != S.size() && RegRanges.count(Prefix));
    if (Function *Fn = IsReg ? nullptr : ptxFunction(S)) {
      // The address of a function (mov.u64 %rd, f), for indirect calls.
      if (!T->isIntegerTy())
        return unsupported("address of " + S + " as a non-integer");
      return B.CreatePtrToInt(Fn, T);
    }
    if (!IsReg && !ModuleVars.count(S) && !LocalVars.count(S) && !Params.count(S) && isKernel(S)) {
      // The address of a kernel (mov.u64 %rd, kernel), for launches from device code.
      if (!T->isIntegerTy())
        return unsupported("address of " + S + " as a non-integer");
      return B.CreatePtrToInt(kernelAddress(S), T);
    }
    if (!IsReg || LocalVars.count(S) || Params.count(S)) {
      // The address of a variable (mov.u64 %rd, smem; PTX ISA 9.7.9.1).
      auto Addr = variableAddress(S);
      if (!Addr)
        return Addr.takeError();
      if (!*Addr)
        return unsupported("unsupported operand or special register " + S);
      if (!T->isIntegerTy())
        return unsupported("address of " + S + " as a non-integer");
      return B.CreatePtrToInt(*Addr, T);
    }
    auto R = reg(S);
    if (!R)
      return R.takeError();
    Value *V = B.CreateLoad((*R)->Ty, (*R)->Slot);
    auto C = convertTo(B, V, T, Signed);
    if (!C) {
      consumeError(C.takeError());
      return unsupported("register " + S + " has an incompatible type");
    }
    return *C;
  }
  case ptx::Operand::ExprOp: {
    // A constant expression (PTX ISA 4.6): a number, or the address of a variable or function
    // plus or minus a number (mov.u64 %rd, buf+8; generic(buf) is buf's address already).
    if (auto C = constantValue(Op.E)) {
      ptx::Operand Lit;
      Lit.K = ptx::Operand::Int;
      Lit.IntValue = *C;
      return read(Lit, T, Signed);
    }
    auto [SymE, Offset] = symbolAndOffset(Op.E);
    if (SymE && SymE->K == ptx::Expr::Generic && SymE->Args.size() == 1)
      SymE = SymE->Args[0];
    if (!SymE || SymE->K != ptx::Expr::Name || isRegister(SymE->Sym) || !T->isIntegerTy())
      return unsupported("unsupported constant expression operand");
    ptx::Operand Base;
    Base.K = ptx::Operand::Name;
    Base.Sym = SymE->Sym;
    auto Addr = read(Base, T, Signed);
    if (!Addr || !Offset)
      return Addr;
    return B.CreateAdd(*Addr, ConstantInt::get(T, uint64_t(Offset), /*IsSigned=*/true));
  }
  default:
    return unsupported("unsupported operand kind");
  }
}

Error FunctionLifter::write(const ptx::Operand &Dst, Value *V, bool Signed) {
  if (Dst.K == ptx::Operand::Vector && Dst.Elems.size() == 1) // `{%r}`: as read()
    return write(Dst.Elems[0], V, Signed);
  if (Dst.K == ptx::Operand::Sink)
    return Error::success();
  if (Dst.K != ptx::Operand::Name || !Dst.Component.empty())
    return unsupported("unsupported destination operand");
  auto R = reg(Dst.Sym);
  if (!R)
    return R.takeError();
  auto C = convertTo(B, V, (*R)->Ty, Signed);
  if (!C) {
    consumeError(C.takeError());
    return unsupported("register " + Dst.Sym + " has an incompatible type");
  }
  B.CreateStore(*C, (*R)->Slot);
  return Error::success();
}

// The address an initializer element denotes (PTX ISA 5.4.4): a symbol, generic(symbol), or one
// of those plus or minus a constant.
static std::optional<uint64_t> addressValue(const ptx::Expr *E, SymbolAddress Resolve) {
  if (E->K == ptx::Expr::Name)
    return Resolve(E->Sym);
  if (E->K == ptx::Expr::Generic && E->Args.size() == 1 && E->Args[0])
    return addressValue(E->Args[0], Resolve);
  if (E->K == ptx::Expr::Binary && (E->Op == '+' || E->Op == '-') && E->Args.size() == 2) {
    if (auto A = addressValue(E->Args[0], Resolve))
      if (auto C = constantValue(E->Args[1]))
        return E->Op == '+' ? *A + uint64_t(*C) : *A - uint64_t(*C);
    if (E->Op == '+')
      if (auto C = constantValue(E->Args[0]))
        if (auto A = addressValue(E->Args[1], Resolve))
          return *A + uint64_t(*C);
  }
  return std::nullopt;
}

// Flattens a constant initializer (PTX ISA 5.4.4, "Initializers") into the variable's bytes,
// little-endian, each element as wide as the variable's type; missing elements are zero.
// Addresses need Resolve.
static Error flattenInit(const ptx::Expr *E, PtxType T, SmallVectorImpl<uint8_t> &Out,
                         SymbolAddress Resolve) {
  if (E->K == ptx::Expr::Braces) {
    for (const ptx::Expr *A : E->Args)
      if (Error Err = flattenInit(A, T, Out, Resolve))
        return Err;
    return Error::success();
  }
  uint64_t Bits;
  bool Negate = E->K == ptx::Expr::Unary && E->Op == '-' && E->Args.size() == 1;
  const ptx::Expr *V = Negate ? E->Args[0] : E;
  std::optional<int64_t> IntValue = T.isFloat() ? std::nullopt : constantValue(E);
  if (IntValue) {
    Bits = uint64_t(*IntValue);
  } else if (V->K == ptx::Expr::Float || (V->K == ptx::Expr::Int && T.isFloat())) {
    APFloat F = V->K == ptx::Expr::Int
                    ? APFloat(double(V->IntValue))
                    : (V->IsDouble ? APFloat(APFloat::IEEEdouble(), APInt(64, V->FloatBits))
                                   : APFloat(APFloat::IEEEsingle(), APInt(32, V->FloatBits)));
    if (Negate)
      F.changeSign();
    if (T.isFloat()) {
      bool LosesInfo = false;
      F.convert(T.Width == 64   ? APFloat::IEEEdouble()
                : T.Width == 32 ? APFloat::IEEEsingle()
                                : APFloat::IEEEhalf(),
                APFloat::rmNearestTiesToEven, &LosesInfo);
    }
    Bits = F.bitcastToAPInt().getZExtValue();
  } else if (auto Address = Resolve && !T.isFloat() ? addressValue(E, Resolve) : std::nullopt) {
    Bits = *Address;
  } else {
    return createStringError("initializers with addresses or expressions are not supported yet");
  }
  for (unsigned K = 0; K < T.Width / 8; ++K)
    Out.push_back(uint8_t(Bits >> (8 * K)));
  return Error::success();
}

bool isManagedVariable(const ptx::VarDecl &D) {
  return D.Space == ptx::StateSpace::Global &&
         llvm::any_of(D.Attributes, [](llvm::StringRef A) { return A.contains(".managed"); });
}

Expected<std::vector<uint8_t>> initializerBytes(const ptx::VarDecl &D, uint64_t Size,
                                                SymbolAddress Resolve) {
  auto T = parseType(D.Type);
  if (!T || T->K == PtxType::Pred)
    return createStringError("initializer of type " + D.Type);
  SmallVector<uint8_t, 64> Bytes;
  if (Error E = flattenInit(D.Init, *T, Bytes, Resolve))
    return std::move(E);
  if (Bytes.size() > Size)
    return createStringError("initializer larger than the variable");
  std::vector<uint8_t> Out(Bytes.begin(), Bytes.end());
  Out.resize(Size, 0);
  return Out;
}

// The address of a symbol in an initializer (PTX ISA 5.4.4): a variable of the global or const
// space, or a function; `generic(x)` is the same address (global memory is generic memory).
Expected<Constant *> FunctionLifter::initializerSymbol(const ptx::Expr &E) {
  if (E.K == ptx::Expr::Generic && E.Args.size() == 1 && E.Args[0])
    return initializerSymbol(*E.Args[0]);
  if (E.K != ptx::Expr::Name)
    return unsupported("unsupported initializer expression");
  if (Function *Fn = ptxFunction(E.Sym))
    return Fn;
  if (!ModuleVars.count(E.Sym)) {
    if (isKernel(E.Sym))
      return kernelAddress(E.Sym);
    return unsupported("initializer refers to the unknown symbol '" + E.Sym + "'");
  }
  if (isManagedVariable(*ModuleVars.find(E.Sym)->second))
    return unsupported("initializer refers to the __managed__ variable '" + E.Sym +
                       "', whose address the loader chooses");
  if (!Initializing.insert(E.Sym).second)
    return unsupported("initializer of '" + E.Sym + "' refers to itself");
  auto V = variableAddress(E.Sym);
  Initializing.erase(E.Sym);
  if (!V)
    return V.takeError();
  auto *C = dyn_cast_or_null<Constant>(*V);
  if (!C)
    return unsupported("initializer refers to '" + E.Sym + "', which has no constant address");
  return C;
}

// An initializer as a constant: plain bytes when it holds only numbers, else a packed structure
// of byte runs and 64-bit addresses (symbol + offset) that the linker relocates.
Expected<Constant *> FunctionLifter::initializerConstant(const ptx::VarDecl &D, uint64_t Size) {
  auto Bytes = initializerBytes(D, Size);
  if (Bytes)
    return ConstantDataArray::get(Ctx, *Bytes);
  consumeError(Bytes.takeError());
  auto T = parseType(D.Type);
  if (!T || T->Width != 64 || T->isFloat())
    return unsupported("addresses in the initializer of '" + D.Name + "', which is not 64-bit");
  SmallVector<const ptx::Expr *, 16> Elems;
  std::function<void(const ptx::Expr *)> Flatten = [&](const ptx::Expr *E) {
    if (E && E->K == ptx::Expr::Braces)
      for (const ptx::Expr *A : E->Args)
        Flatten(A);
    else
      Elems.push_back(E);
  };
  Flatten(D.Init);
  if (Elems.size() * 8 > Size)
    return unsupported("initializer larger than the variable '" + D.Name + "'");
  SmallVector<Constant *, 16> Fields;
  for (const ptx::Expr *E : Elems) {
    if (!E)
      return unsupported("empty initializer element");
    if (auto C = constantValue(E)) {
      Fields.push_back(B.getInt64(uint64_t(*C)));
      continue;
    }
    // sym, sym + n, sym - n, n + sym, generic(sym) + n
    auto [SymE, Offset] = symbolAndOffset(E);
    if (!SymE)
      return unsupported("empty initializer element");
    auto Sym = initializerSymbol(*SymE);
    if (!Sym)
      return Sym.takeError();
    Constant *Addr = *Sym;
    if (Offset)
      Addr = ConstantExpr::getGetElementPtr(B.getInt8Ty(), Addr, B.getInt64(uint64_t(Offset)));
    Fields.push_back(ConstantExpr::getPtrToInt(Addr, B.getInt64Ty()));
  }
  if (uint64_t Pad = Size - Elems.size() * 8)
    Fields.push_back(ConstantAggregateZero::get(ArrayType::get(B.getInt8Ty(), Pad)));
  return ConstantStruct::getAnon(Ctx, Fields, /*Packed=*/true);
}

StringRef FunctionLifter::moduleVariableType(ptx::Symbol Sym) const {
  auto It = ModuleVars.find(Sym);
  return It == ModuleVars.end() ? StringRef() : StringRef(It->second->Type);
}

Expected<Value *> FunctionLifter::variableAddress(ptx::Symbol Sym) {
  if (auto It = LocalVars.find(Sym); It != LocalVars.end())
    return It->second;
  if (auto It = Params.find(Sym); It != Params.end())
    return It->second;
  auto It = ModuleVars.find(Sym);
  if (It == ModuleVars.end())
    return nullptr;
  if (isManagedVariable(*It->second)) {
    // Its managed memory, from the slot the loader fills (ManagedSlotSuffix); the slot does not
    // change while a kernel runs.
    std::string SlotName = (Sym + ManagedSlotSuffix).str();
    auto *PtrTy = PointerType::get(Ctx, GlobalAS);
    GlobalVariable *Slot = M.getNamedGlobal(SlotName);
    if (!Slot) {
      Slot = new GlobalVariable(M, PtrTy, false, GlobalValue::ExternalLinkage,
                                ConstantPointerNull::get(PtrTy), SlotName, nullptr,
                                GlobalValue::NotThreadLocal, GlobalAS);
      Slot->setAlignment(Align(8));
    }
    LoadInst *Address = B.CreateLoad(PtrTy, Slot, Sym);
    Address->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
    return Address;
  }
  if (GlobalVariable *GV = M.getNamedGlobal(Sym))
    return GV;
  const ptx::VarDecl &D = *It->second;
  if (D.Space == ptx::StateSpace::Shared && (D.Linkage & ptx::LinkExtern) && D.Dims.size() == 1 &&
      !D.Dims[0]) {
    // `.extern .shared .b8 x[]`: dynamic shared memory, sized at launch (PTX ISA 5.1.5). An
    // external zero-length array in the shared space.
    auto *Ty = ArrayType::get(B.getInt8Ty(), 0);
    auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::ExternalLinkage, nullptr, Sym, nullptr,
                                  GlobalValue::NotThreadLocal, SharedAS);
    GV->setAlignment(Align(D.Align ? D.Align : 16));
    return GV;
  }
  // Any other .extern variable is defined by another translation unit: the loader links -rdc
  // units into one module first (frontend-ptx/lib/PtxLink.cpp), so here it has no definition.
  if ((D.Linkage & ptx::LinkExtern) && D.Space != ptx::StateSpace::Shared)
    return unsupported("variable '" + Sym + "' is .extern and no module linked here defines it");
  auto Size = variableSize(D);
  if (!Size)
    return unsupported(toString(Size.takeError()));
  unsigned AS;
  switch (D.Space) {
  case ptx::StateSpace::Shared:
    AS = SharedAS;
    break;
  case ptx::StateSpace::Global:
    AS = GlobalAS;
    break;
  case ptx::StateSpace::Const:
    AS = ConstAS;
    break;
  default:
    return unsupported("variables in state space " + ptx::stateSpaceName(D.Space));
  }
  bool Extern = D.Linkage & ptx::LinkExtern;
  Type *Ty = ArrayType::get(B.getInt8Ty(), *Size);
  // Shared memory has no initial value (poison); .global/.const without initializer are zero.
  Constant *Init = AS == SharedAS ? PoisonValue::get(Ty) : Constant::getNullValue(Ty);
  if (D.Init) {
    if (AS == SharedAS)
      return unsupported("initialized shared variables");
    auto C = initializerConstant(D, *Size);
    if (!C)
      return C.takeError();
    Init = *C;
  }
  // .const memory is read-only to kernels (PTX ISA 5.1.3), but the host writes .global and .const
  // variables, .visible or not (nvcc leaves them unmarked outside -rdc), through cuModuleGetGlobal
  // / cudaMemcpyToSymbol: they keep their symbol and are never constant, so their initializers
  // are not folded into the kernels.
  Ty = Init->getType();
  if (GlobalVariable *GV = M.getNamedGlobal(Sym)) // created while building the initializer
    return GV;
  bool HostVisible = AS != SharedAS;
  auto *GV = new GlobalVariable(
      M, Ty, /*isConstant=*/false,
      Extern || HostVisible ? GlobalValue::ExternalLinkage : GlobalValue::InternalLinkage,
      Extern ? nullptr : Init, Sym, nullptr, GlobalValue::NotThreadLocal, AS);
  GV->setAlignment(
      Align(AS == SharedAS ? sharedAlignment(D.Align, *Size) : (D.Align ? D.Align : 4)));
  return GV;
}

Expected<Value *> FunctionLifter::address(const ptx::Operand &Addr, unsigned AS) {
  if (Addr.K != ptx::Operand::Address)
    return unsupported("expected an address operand");
  Type *PtrTy = PointerType::get(Ctx, AS);
  Value *Base = nullptr;
  if (Addr.Elems.empty()) {
    Base = ConstantPointerNull::get(cast<PointerType>(PtrTy));
  } else {
    const ptx::Operand &BO = Addr.Elems[0];
    if (BO.K != ptx::Operand::Name)
      return unsupported("unsupported address base");
    StringRef Prefix = BO.Sym.rtrim("0123456789");
    bool IsReg = Regs.count(BO.Sym) || (Prefix.size() != BO.Sym.size() && RegRanges.count(Prefix));
    if (!IsReg || LocalVars.count(BO.Sym) || Params.count(BO.Sym)) {
      auto V = variableAddress(BO.Sym);
      if (!V)
        return V.takeError();
      if (!*V)
        return unsupported("unknown address base " + BO.Sym);
      Base = *V;
      if (Base->getType() != PtrTy)
        Base = B.CreateAddrSpaceCast(Base, PtrTy);
    } else {
      auto R = reg(BO.Sym);
      if (!R)
        return R.takeError();
      if (!(*R)->Ty->isIntegerTy())
        return unsupported("address register is not an integer");
      Value *V = B.CreateLoad((*R)->Ty, (*R)->Slot);
      Base = B.CreateIntToPtr(V, PtrTy);
    }
  }
  if (Addr.IntValue)
    Base = B.CreateGEP(B.getInt8Ty(), Base, B.getInt64(uint64_t(Addr.IntValue)));
  return Base;
}

Function *FunctionLifter::declareIntrinsic(StringRef Name, Type *Ret, ArrayRef<Type *> Args,
                                           MemoryEffects Effects, bool Speculatable,
                                           bool Convergent) {
  FunctionCallee FC = M.getOrInsertFunction(Name, FunctionType::get(Ret, Args, false));
  auto *Decl = cast<Function>(FC.getCallee());
  Decl->setDoesNotThrow();
  Decl->setWillReturn();
  Decl->setMemoryEffects(Effects);
  if (Speculatable)
    Decl->setSpeculatable();
  if (Convergent)
    Decl->setConvergent();
  return Decl;
}

Value *FunctionLifter::callSpecial(StringRef Name) {
  return B.CreateCall(
      declareIntrinsic(Name, B.getInt32Ty(), {}, MemoryEffects::none(), /*Speculatable=*/true));
}

Function *FunctionLifter::declareBarrier() {
  FunctionCallee FC = M.getOrInsertFunction(intrinsics::BarrierSync, B.getVoidTy());
  auto *Decl = cast<Function>(FC.getCallee());
  Decl->setConvergent();
  Decl->setDoesNotThrow();
  return Decl;
}

BasicBlock *FunctionLifter::labelBlock(ptx::Symbol Label) {
  // The innermost open block that declares the label, else the only label of that name in the
  // function (labels are visible in the whole function, PTX ISA 5.1).
  for (const ptx::Block *Blk : llvm::reverse(OpenBlocks))
    if (auto It = ScopedLabels.find(Blk); It != ScopedLabels.end())
      if (auto L = It->second.find(Label); L != It->second.end())
        return L->second;
  if (auto It = LabelsByName.find(Label); It != LabelsByName.end() && It->second.second == 1)
    return It->second.first;
  if (LabelsByName.count(Label) && AmbiguousLabel.empty())
    AmbiguousLabel = Label.str(); // declared by several blocks, none of them open here
  BasicBlock *&BB = Labels[Label];
  if (!BB)
    BB = BasicBlock::Create(Ctx, Label, Fn);
  return BB;
}

void FunctionLifter::continueAfterTerminator() {
  B.SetInsertPoint(BasicBlock::Create(Ctx, "", Fn));
}

Value *FunctionLifter::flushSubnormal(Value *V) {
  Type *T = V->getType();
  Value *Tiny = ConstantFP::get(T, APFloat::getSmallestNormalized(T->getFltSemantics()));
  Value *Abs = B.CreateUnaryIntrinsic(Intrinsic::fabs, V);
  // NaN compares false and is kept.
  Value *IsSub = B.CreateFCmpOLT(Abs, Tiny);
  Value *Zero = B.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(T, 0.0), V);
  return B.CreateSelect(IsSub, Zero, V);
}

Value *FunctionLifter::saturate(Value *V) {
  Type *T = V->getType();
  // maxnum(NaN, 0) = 0; then clamp from above.
  Value *Lo = B.CreateBinaryIntrinsic(Intrinsic::maxnum, V, ConstantFP::get(T, 0.0));
  return B.CreateBinaryIntrinsic(Intrinsic::minnum, Lo, ConstantFP::get(T, 1.0));
}

void FunctionLifter::collectLabels(const ptx::Block &Blk) {
  for (size_t K = 0; K < Blk.Body.size(); ++K) {
    const ptx::Statement &S = Blk.Body[K];
    if (S.K == ptx::Statement::Label) {
      BasicBlock *&BB = ScopedLabels[&Blk][PM.label(S)];
      if (!BB) {
        BB = BasicBlock::Create(Ctx, PM.label(S), Fn);
        auto &ByName = LabelsByName[PM.label(S)];
        ByName.first = BB;
        ++ByName.second;
      }
      // `name: .branchtargets L0, L1, ...;` — a label statement followed by the directive,
      // whose text the parser has checked and normalized (".branchtargets A, B").
      const ptx::Statement *Next = K + 1 < Blk.Body.size() ? &Blk.Body[K + 1] : nullptr;
      if (Next && Next->K == ptx::Statement::Directive && Next->R->Name == ".branchtargets") {
        StringRef List = Next->R->Text;
        List.consume_front(".branchtargets");
        SmallVector<StringRef, 8> Names;
        List.split(Names, ',');
        auto &Targets = BranchTargets[PM.label(S)];
        for (StringRef N : Names)
          if (!N.trim().empty())
            Targets.push_back(N.trim());
      }
    } else if (S.K == ptx::Statement::Scope) {
      collectLabels(*S.B);
    }
  }
}

const SmallVector<ptx::Symbol, 8> *FunctionLifter::branchTargets(ptx::Symbol List) const {
  auto It = BranchTargets.find(List);
  return It == BranchTargets.end() ? nullptr : &It->second;
}

void FunctionLifter::popScope(size_t Mark) {
  while (ScopeLog.size() > Mark) {
    Shadowed &Sh = ScopeLog.back();
    if (Sh.Range) {
      for (unsigned K = 0; K < Sh.Count; ++K)
        Regs.erase(Sh.Name + std::to_string(K));
      for (auto &[Name, R] : Sh.OuterMembers)
        Regs[Name] = R;
      if (Sh.OuterRange) {
        RegRanges[Sh.Name] = Sh.OuterRange;
        RangeCounts[Sh.Name] = Sh.OuterCount;
      } else {
        RegRanges.erase(Sh.Name);
        RangeCounts.erase(Sh.Name);
      }
    } else if (Sh.Outer) {
      Regs[Sh.Name] = *Sh.Outer;
    } else {
      Regs.erase(Sh.Name);
    }
    ScopeLog.pop_back();
  }
}

Error FunctionLifter::declare(const ptx::VarDecl &D) {
  switch (D.Space) {
  case ptx::StateSpace::Reg: {
    if (D.VectorWidth || !D.Dims.empty())
      return unsupported("vector or array registers");
    auto T = parseType(D.Type);
    // .f16x2 registers (PTX ISA 5.2.5) hold the bits of two halves.
    if (!T && D.Type == ".f16x2")
      T = PtxType{PtxType::Bits, 32};
    if (!T)
      return unsupported("registers of type " + D.Type);
    Type *Ty = llvmType(*T);
    // Remember what this declaration hides, so that the end of its block restores it.
    Shadowed Sh;
    Sh.Name = D.Name.str();
    Sh.Range = D.RangeCount != 0;
    Sh.Count = unsigned(D.RangeCount);
    if (Sh.Range) {
      if (auto It = RegRanges.find(D.Name); It != RegRanges.end()) {
        Sh.OuterRange = It->second;
        Sh.OuterCount = RangeCounts.lookup(D.Name);
      }
      // Members of the hidden range (or plain registers of those names) already in use.
      for (unsigned K = 0; K < Sh.Count; ++K) {
        std::string Member = Sh.Name + std::to_string(K);
        if (auto It = Regs.find(Member); It != Regs.end()) {
          Sh.OuterMembers.emplace_back(Member, It->second);
          Regs.erase(It);
        }
      }
    } else if (auto It = Regs.find(D.Name); It != Regs.end()) {
      Sh.Outer = It->second;
    }
    ScopeLog.push_back(std::move(Sh));
    if (D.RangeCount) {
      RegRanges[D.Name] = Ty;
      RangeCounts[D.Name] = unsigned(D.RangeCount);
      return Error::success();
    }
    IRBuilder<> EB(Entry, Entry->begin());
    Register &R = Regs[D.Name];
    R.Ty = Ty;
    R.Slot = EB.CreateAlloca(Ty, LocalAS, nullptr, D.Name.drop_front());
    return Error::success();
  }
  case ptx::StateSpace::Local: {
    auto Size = variableSize(D);
    if (!Size)
      return unsupported(toString(Size.takeError()));
    IRBuilder<> EB(Entry, Entry->begin());
    for (const std::string &Name : D.declaredNames()) {
      AllocaInst *A = EB.CreateAlloca(ArrayType::get(B.getInt8Ty(), *Size), LocalAS, nullptr, Name);
      A->setAlignment(Align(D.Align ? D.Align : 4));
      LocalVars[Name] = A;
    }
    return Error::success();
  }
  case ptx::StateSpace::Param: {
    // A .param variable in a body: an argument or return slot of a call (PTX ISA 5.1.6.2). Its
    // alloca lives in the entry block; a later declaration of the same name (the next call's
    // scope) gets a fresh slot.
    auto Size = variableSize(D);
    if (!Size)
      return unsupported(toString(Size.takeError()));
    IRBuilder<> EB(Entry, Entry->begin());
    for (const std::string &Name : D.declaredNames()) {
      AllocaInst *A = EB.CreateAlloca(ArrayType::get(B.getInt8Ty(), *Size), LocalAS, nullptr, Name);
      A->setAlignment(Align(std::max<uint64_t>(D.Align, 16)));
      Params[Name] = A;
    }
    return Error::success();
  }
  case ptx::StateSpace::Shared: {
    // A function-scope .shared variable is one per CTA, like a module-scope one.
    auto Size = variableSize(D);
    if (!Size)
      return unsupported(toString(Size.takeError()));
    auto *Ty = ArrayType::get(B.getInt8Ty(), *Size);
    for (const std::string &Name : D.declaredNames()) {
      auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage,
                                    PoisonValue::get(Ty), (F.Name + "." + Name).str(), nullptr,
                                    GlobalValue::NotThreadLocal, SharedAS);
      GV->setAlignment(Align(sharedAlignment(D.Align, *Size)));
      LocalVars[Name] = GV;
    }
    return Error::success();
  }
  default:
    return unsupported("declarations in state space " + ptx::stateSpaceName(D.Space));
  }
}

Expected<Value *> FunctionLifter::paramSlot(ptx::Symbol Name) {
  auto It = Params.find(Name);
  if (It == Params.end())
    return unsupported("'" + Name + "' is not a .param variable");
  return It->second;
}

Function *FunctionLifter::ptxFunction(StringRef Name) const {
  Function *Fn = M.getFunction(Name);
  return Fn && Fn->hasFnAttribute(PtxFuncAttr) ? Fn : nullptr;
}

bool FunctionLifter::isKernel(StringRef Name) const {
  for (const ptx::TopLevel &T : PM.Items)
    if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Name == Name)
      return true;
  return false;
}

Constant *FunctionLifter::kernelAddress(StringRef Name) {
  std::string Symbol = ("reptx.kernel." + Name).str();
  auto *G = dyn_cast_or_null<GlobalVariable>(M.getNamedGlobal(Symbol));
  if (!G) {
    Constant *Text =
        ConstantDataArray::getString(Ctx, (intrinsics::KernelAddressPrefix + Name).str());
    G = new GlobalVariable(M, Text->getType(), true, GlobalValue::PrivateLinkage, Text, Symbol,
                           nullptr, GlobalValue::NotThreadLocal, GlobalAS);
  }
  return ConstantExpr::getAddrSpaceCast(G, PointerType::get(Ctx, GenericAS));
}

bool FunctionLifter::isRegister(ptx::Symbol Name) const {
  StringRef Prefix = Name.rtrim("0123456789");
  return Regs.count(Name) || (Prefix.size() != Name.size() && RegRanges.count(Prefix));
}

SyncScope::ID FunctionLifter::syncScope(StringRef Default) const {
  StringRef Scope = Default;
  for (StringRef Mod : Cur->Mods)
    if (Mod == ".cta" || Mod == ".cluster" || Mod == ".gpu" || Mod == ".sys")
      Scope = Mod.drop_front();
  if (Scope == "sys" || Scope.empty())
    return SyncScope::System;
  return Ctx.getOrInsertSyncScopeID(Scope);
}

Type *FunctionLifter::registerType(ptx::Symbol Name) {
  if (!isRegister(Name))
    return nullptr;
  auto R = reg(Name);
  if (!R) {
    consumeError(R.takeError());
    return nullptr;
  }
  return (*R)->Ty;
}

Value *FunctionLifter::carryFlag() {
  if (!CarryFlag) {
    IRBuilder<> EB(Entry, Entry->begin());
    CarryFlag = EB.CreateAlloca(EB.getInt1Ty(), LocalAS, nullptr, "cc.cf");
    EB.CreateStore(EB.getFalse(), CarryFlag);
  }
  return CarryFlag;
}

MDNode *FunctionLifter::readOnlyScope() {
  if (!ReadOnlyScope) {
    MDBuilder MDB(Ctx);
    MDNode *Domain = MDB.createAnonymousAliasScopeDomain("reptx.readonly");
    ReadOnlyScope = MDNode::get(Ctx, {MDB.createAnonymousAliasScope(Domain, "ld.global.nc")});
  }
  return ReadOnlyScope;
}

void FunctionLifter::markReadOnlyLoad(Instruction *I) {
  I->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
  I->setMetadata(LLVMContext::MD_alias_scope, readOnlyScope());
}

void FunctionLifter::markWrite(Instruction *I) { Writes.push_back(I); }

ArrayRef<StringRef> liftedFamilies() {
  // Keep in step with liftInstruction() and the lifting files it dispatches to.
  static const StringRef Families[] = {
      // LiftInteger.cpp, LiftBits.cpp, LiftLogic.cpp (and LiftFloat/LiftHalf for float types)
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
      "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a", "addc",
      "subc", "madc", "prmt", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr",
      // LiftFloat.cpp, LiftDirected.cpp, LiftHalf.cpp
      "testp", "copysign", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh",
      // LiftCompare.cpp
      "set", "setp", "selp", "slct",
      // LiftConvert.cpp, LiftConvertHalf.cpp, LiftMove.cpp
      "cvt", "mov",
      // LiftMemory.cpp, LiftAsyncCopy.cpp
      "ld", "ldu", "st", "prefetch", "prefetchu", "applypriority", "discard", "createpolicy",
      "isspacep", "cvta", "cp",
      // LiftAtomic.cpp
      "atom", "red",
      // LiftWarp.cpp
      "shfl", "vote", "match", "activemask", "redux", "elect",
      // LiftControl.cpp, LiftBarrier.cpp, LiftCall.cpp
      "bra", "brx", "call", "ret", "exit", "trap", "brkpt", "pmevent", "nanosleep", "bar",
      "barrier", "membar", "fence", "griddepcontrol",
      // LiftMbarrier.cpp
      "mbarrier",
      // LiftMatrix.cpp
      "mma", "ldmatrix", "stmatrix", "movmatrix", "wmma",
      // LiftTexture.cpp (texture and surface objects)
      "tex", "tld4", "suld", "sust",
      // LiftVideo.cpp
      "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
      "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
      "vmin4", "vmax4", "vset4"};
  return Families;
}

Error FunctionLifter::liftInstruction(const ptx::Instruction &I) {
  Cur = &I;
  const ptx::InstructionFamily &Fam = ptx::instructionFamilies()[I.Family];
  StringRef Op = Fam.Opcode, Cat = Fam.Category;
  bool FloatType = false, HalfType = false;
  for (StringRef Mod : I.Mods) {
    if (auto T = parseType(Mod); T && T->isFloat())
      FloatType = true;
    if (Mod == ".f16" || Mod == ".f16x2" || Mod == ".bf16" || Mod == ".bf16x2")
      HalfType = true;
  }
  if ((Cat == "integer" || Cat == "float") && HalfType)
    return liftHalf(*this, I);
  if (Cat == "warp")
    return liftWarp(*this, I);
  if (Cat == "integer" && FloatType)
    return liftFloat(*this, I);
  if (Cat == "integer")
    return liftInteger(*this, I);
  if (Cat == "logic")
    return liftLogic(*this, I);
  if (Cat == "float")
    return liftFloat(*this, I);
  if (Cat == "compare")
    return liftCompare(*this, I);
  if (Cat == "convert")
    return liftConvert(*this, I);
  if (Cat == "move")
    return liftMove(*this, I);
  if (Cat == "memory")
    return liftMemory(*this, I);
  if (Cat == "atomic")
    return liftAtomic(*this, I);
  if (Cat == "control" || Cat == "barrier")
    return liftControl(*this, I);
  if (Cat == "video")
    return liftVideo(*this, I);
  if (Cat == "matrix")
    return liftMatrix(*this, I);
  if (Cat == "texture")
    return liftTexture(*this, I);
  return unsupported("unsupported instruction (" + Op + ", " + Cat + ")");
}

Error FunctionLifter::liftBlock(const ptx::Block &Blk) {
  OpenBlocks.push_back(&Blk);
  llvm::scope_exit Close([&] { OpenBlocks.pop_back(); });
  for (const ptx::Statement &S : Blk.Body) {
    switch (S.K) {
    case ptx::Statement::Decl:
      if (Error E = declare(*S.D))
        return E;
      break;
    case ptx::Statement::Label: {
      BasicBlock *BB = labelBlock(PM.label(S));
      BB->moveAfter(B.GetInsertBlock()); // keep the blocks in PTX order
      if (!B.GetInsertBlock()->getTerminator())
        B.CreateBr(BB);
      B.SetInsertPoint(BB);
      break;
    }
    case ptx::Statement::Scope: {
      size_t Mark = ScopeLog.size();
      if (Error E = liftBlock(*S.B))
        return E;
      popScope(Mark);
      break;
    }
    case ptx::Statement::Directive:
      break; // .loc, .pragma: no semantics here
    case ptx::Statement::Instr: {
      PM.decode(S, CurInstr);
      const ptx::Instruction &I = CurInstr;
      Cur = &I;
      bool IsBranch = I.Opcode == "bra";
      if (I.Guard.empty() || IsBranch) {
        if (Error E = liftInstruction(I))
          return E;
        break;
      }
      // @p / @!p: the instruction runs in its own block (PTX ISA 9.3.1, "Predicated Execution").
      auto GuardReg = reg(I.Guard);
      if (!GuardReg)
        return GuardReg.takeError();
      if (!(*GuardReg)->Ty->isIntegerTy(1))
        return unsupported("guard is not a predicate");
      Value *P = B.CreateLoad(B.getInt1Ty(), (*GuardReg)->Slot);
      BasicBlock *Then = BasicBlock::Create(Ctx, "", Fn);
      BasicBlock *Next = BasicBlock::Create(Ctx, "", Fn);
      if (I.GuardNegated)
        B.CreateCondBr(P, Next, Then);
      else
        B.CreateCondBr(P, Then, Next);
      B.SetInsertPoint(Then);
      if (Error E = liftInstruction(I))
        return E;
      if (!B.GetInsertBlock()->getTerminator())
        B.CreateBr(Next);
      B.SetInsertPoint(Next);
      break;
    }
    }
  }
  return Error::success();
}

// A .func: the function was declared by liftModule (so that calls in any order find it); its
// parameters are the caller's slots.
Error FunctionLifter::liftFunctionBody() {
  Fn = M.getFunction(F.Name);
  if (!Fn || !Fn->isDeclaration())
    return unsupported("function declared twice");
  Entry = BasicBlock::Create(Ctx, "entry", Fn);
  B.SetInsertPoint(Entry);
  unsigned Idx = 0;
  for (ArrayRef<ptx::VarDecl> List : {F.Returns, F.Params})
    for (const ptx::VarDecl &P : List) {
      if (P.Space != ptx::StateSpace::Param)
        return unsupported("function parameters outside the .param space");
      Argument *Arg = Fn->getArg(Idx++);
      Arg->setName(P.Name);
      Params[P.Name] = Arg;
    }
  return liftBody();
}

Error FunctionLifter::lift() {
  if (!F.IsEntry)
    return liftFunctionBody();
  // Parameters: PTX .param variables (PTX ISA 5.1.6.1, "Kernel Function Parameters") become
  // kernel arguments at their PTX offsets: scalars as themselves, byte arrays (structures passed
  // by value) as arrays of their alignment's integer, so that the argument keeps its alignment.
  SmallVector<Type *, 8> ArgTys;
  SmallVector<uint64_t, 8> ArgAlign;
  for (const ptx::VarDecl &P : F.Params) {
    auto T = parseType(P.Type);
    auto Size = variableSize(P);
    if (!Size)
      consumeError(Size.takeError());
    if (!T || !Size || T->K == PtxType::Pred)
      return unsupported("parameter '" + P.Name + "' of type " + P.Type);
    uint64_t A = P.Align ? P.Align : T->Width / 8;
    Type *Ty;
    if (P.Dims.empty() && !P.VectorWidth)
      Ty = llvmType(*T);
    else if (*Size % A == 0 && A <= 8)
      Ty = ArrayType::get(B.getIntNTy(A * 8), *Size / A);
    else
      Ty = ArrayType::get(B.getInt8Ty(), *Size);
    ArgTys.push_back(Ty);
    ArgAlign.push_back(A);
  }
  auto *FTy = FunctionType::get(B.getVoidTy(), ArgTys, false);
  Fn = Function::Create(FTy, GlobalValue::ExternalLinkage, F.Name, M);
  Fn->addFnAttr(KernelAttr);
  auto Dims = [](const uint32_t *D) {
    return (Twine(D[0] ? D[0] : 1) + "," + Twine(D[1] ? D[1] : 1) + "," + Twine(D[2] ? D[2] : 1))
        .str();
  };
  if (F.MaxNTid[0])
    Fn->addFnAttr(MaxNTidAttr, Dims(F.MaxNTid));
  if (F.ReqNTid[0])
    Fn->addFnAttr(ReqNTidAttr, Dims(F.ReqNTid));
  Entry = BasicBlock::Create(Ctx, "entry", Fn);
  B.SetInsertPoint(Entry);
  for (auto [Idx, P] : llvm::enumerate(F.Params)) {
    Argument *Arg = Fn->getArg(Idx);
    Arg->setName(P.Name);
    // The parameter lives in a slot so that ld.param can read it at any offset; SROA removes it.
    AllocaInst *Slot = B.CreateAlloca(ArgTys[Idx], LocalAS, nullptr, P.Name + ".slot");
    // 16 bytes: enough for any ld.param, whose alignment is that of the access (up to .v4.b32).
    Slot->setAlignment(Align(std::max<uint64_t>(ArgAlign[Idx], 16)));
    B.CreateStore(Arg, Slot);
    Params[P.Name] = Slot;
  }
  if (!F.Body)
    return unsupported("kernel without a body");
  return liftBody();
}

// The body of a kernel or .func after its entry block: labels, the statements, and a return when
// control falls off the end (PTX ISA 9.7.12.5); then the function must verify.
Error FunctionLifter::liftBody() {
  collectLabels(*F.Body);
  BasicBlock *Start = BasicBlock::Create(Ctx, "start", Fn);
  B.CreateBr(Start);
  B.SetInsertPoint(Start);
  if (Error E = liftBlock(*F.Body))
    return E;
  Cur = nullptr;
  if (!AmbiguousLabel.empty())
    return unsupported("a branch to label '" + AmbiguousLabel +
                       "', which several { } blocks declare, none of them around the branch");
  // The writes only need the scope when the function has read-only loads at all.
  if (ReadOnlyScope)
    for (Instruction *W : Writes)
      W->setMetadata(LLVMContext::MD_noalias, ReadOnlyScope);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateRetVoid();
  // Labels that were never placed (not possible after validation) and empty blocks.
  for (BasicBlock &BB : *Fn)
    if (!BB.getTerminator()) {
      IRBuilder<> TB(&BB);
      TB.CreateUnreachable();
    }
  std::string Why;
  raw_string_ostream OS(Why);
  if (verifyFunction(*Fn, &OS))
    return unsupported("lifted IR does not verify: " + Why);
  return Error::success();
}

Expected<LiftResult> liftModule(const ptx::Module &PM, LLVMContext &Ctx, const LiftOptions &Opts) {
  LiftResult R;
  R.M = std::make_unique<Module>(PM.name(), Ctx);
  R.M->setDataLayout(Opts.DataLayout);
  if (R.M->getDataLayout().getAllocaAddrSpace() != LocalAS)
    return createStringError("the data layout must place allocas in address space 5");
  StringMap<const ptx::VarDecl *> Vars;
  for (const ptx::TopLevel &T : PM.Items) {
    if (T.K != ptx::TopLevel::Var || !T.V)
      continue;
    // A definition wins over `.extern` declarations of the same name, before or after it (units
    // linked by -rdc declare what another unit defines, with a type and size of their own).
    for (const std::string &Name : T.V->declaredNames()) {
      const ptx::VarDecl *&Slot = Vars[Name];
      if (!Slot || (Slot->Linkage & ptx::LinkExtern))
        Slot = T.V;
    }
  }
  // .func bodies first: declared together (calls may come in any order, recursion included),
  // then lifted. A function that does not lift keeps only its declaration; the kernels that reach
  // it are removed below with its reason.
  StringMap<std::string> FailedFuncs;
  for (const ptx::TopLevel &T : PM.Items) {
    if (T.K != ptx::TopLevel::Func || T.F->IsEntry || !T.F->Body || R.M->getFunction(T.F->Name))
      continue;
    auto *Fn = Function::Create(ptxFunctionType(Ctx, T.F->Returns.size(), T.F->Params.size()),
                                GlobalValue::InternalLinkage, T.F->Name, *R.M);
    Fn->addFnAttr(PtxFuncAttr);
  }
  for (const ptx::TopLevel &T : PM.Items) {
    if (T.K != ptx::TopLevel::Func || T.F->IsEntry || !T.F->Body)
      continue;
    FunctionLifter L(PM, *T.F, *R.M, Vars);
    if (Error E = L.lift()) {
      if (Function *Fn = R.M->getFunction(T.F->Name))
        Fn->deleteBody();
      FailedFuncs[T.F->Name] = toString(std::move(E));
    }
  }
  for (const ptx::TopLevel &T : PM.Items) {
    if (T.K != ptx::TopLevel::Func || !T.F->IsEntry || !T.F->Body ||
        (Opts.SelectKernel && !Opts.SelectKernel(T.F->Name)))
      continue;
    FunctionLifter L(PM, *T.F, *R.M, Vars);
    if (Error E = L.lift()) {
      if (Function *Fn = L.function())
        Fn->eraseFromParent();
      R.Failures.push_back({T.F->Name.str(), toString(std::move(E))});
      continue;
    }
    // Every function the kernel can reach must have lifted.
    SmallVector<Function *, 16> Work{L.function()};
    SmallPtrSet<Function *, 16> Seen{L.function()};
    std::string Why;
    while (!Work.empty() && Why.empty()) {
      Function *Fn = Work.pop_back_val();
      for (Instruction &In : instructions(*Fn))
        if (auto *CB = dyn_cast<CallBase>(&In)) {
          Function *Callee = CB->getCalledFunction();
          if (!Callee) {
            continue; // indirect: every address-taken function is checked below
          }
          if (auto It = FailedFuncs.find(Callee->getName()); It != FailedFuncs.end()) {
            Why = It->second;
            break;
          }
          if (Callee->hasFnAttribute(PtxFuncAttr) && Seen.insert(Callee).second)
            Work.push_back(Callee);
        }
    }
    if (!Why.empty()) {
      L.function()->eraseFromParent();
      R.Failures.push_back({T.F->Name.str(), "kernel '" + T.F->Name.str() +
                                                 "' calls a function that did not lift: " + Why});
      continue;
    }
    R.Kernels.push_back(T.F->Name.str());
  }
  // Named barriers: every kernel of a module that uses them starts with reptx.barrier.init.
  if (R.M->getFunction(intrinsics::BarrierSyncCount) ||
      R.M->getFunction(intrinsics::BarrierArrive) || R.M->getFunction(intrinsics::BarrierRed)) {
    FunctionCallee Init = R.M->getOrInsertFunction(intrinsics::BarrierInit, Type::getVoidTy(Ctx));
    cast<Function>(Init.getCallee())->setConvergent();
    for (const std::string &K : R.Kernels)
      if (Function *Fn = R.M->getFunction(K))
        CallInst::Create(Init, "", Fn->getEntryBlock().getTerminator()->getIterator());
  }
  // A function that did not lift and that a kept kernel can still reach, only through its address
  // (taken in code or in a variable's initializer: a table of function pointers, a C++ vtable;
  // NCCL dispatches every collective through one), becomes an internal stub that says so
  // through device printf and traps: the kernel works on every path but that one, as a kernel
  // would whose table holds a function for hardware this device lacks. A direct call fails the
  // kernel above. A stub nothing names any more goes.
  for (auto &[Name, Why] : FailedFuncs) {
    Function *Fn = R.M->getFunction(Name);
    if (!Fn)
      continue;
    if (Fn->use_empty()) {
      Fn->eraseFromParent();
      continue;
    }
    Fn->setLinkage(GlobalValue::InternalLinkage);
    IRBuilder<> SB(BasicBlock::Create(Ctx, "did_not_lift", Fn));
    std::string Text = "reptx: function '" + Name.str() +
                       "', called through its address, was not recompiled: " + Why + "\n";
    std::string Format;
    for (char C : Text)
      Format += C == '%' ? std::string("%%") : std::string(1, C);
    Constant *Str = ConstantDataArray::getString(Ctx, Format);
    auto *G = new GlobalVariable(*R.M, Str->getType(), true, GlobalValue::PrivateLinkage, Str,
                                 "reptx.did_not_lift." + Name, nullptr, GlobalValue::NotThreadLocal,
                                 GlobalAS);
    G->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    Type *I64 = SB.getInt64Ty();
    FunctionCallee Print = R.M->getOrInsertFunction(intrinsics::Vprintf, SB.getInt32Ty(), I64, I64);
    SB.CreateCall(
        Print, {SB.CreatePtrToInt(SB.CreateAddrSpaceCast(G, PointerType::get(Ctx, GenericAS)), I64),
                SB.getInt64(0)});
    SB.CreateIntrinsic(Intrinsic::trap, {});
    SB.CreateUnreachable();
  }
  return R;
}

} // namespace reptx::ir
