// Internal interface of the lifter: the per-kernel state (IR builder, registers, labels, state
// space variables) and the operand helpers that the per-family lifting files (Lift*.cpp) share.
#pragma once

#include "reptx/frontend-ptx/Ast.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace reptx::ir {

/// A PTX type as the lifter sees it (PTX ISA 5.2, "Types").
struct PtxType {
  enum Kind : uint8_t { Unsigned, Signed, Bits, Float, Pred };
  Kind K = Bits;
  unsigned Width = 0; // bits; 1 for .pred
  bool isInt() const { return K == Unsigned || K == Signed || K == Bits; }
  bool isSigned() const { return K == Signed; }
  bool isFloat() const { return K == Float; }
};

/// Parses ".u32", ".f64", ".pred"...; nullopt for packed and exotic types (.f16x2, .tf32...).
std::optional<PtxType> parseType(llvm::StringRef Spelling);

/// The predicate of a PTX comparison operator (".lt", ".geu"...) on operands of type T (PTX ISA
/// 9.7.6.1, "Comparison operators"): ordered or unordered on floats, by T's signedness on
/// integers; nullopt for an operator T does not have. LiftCompare.cpp.
std::optional<llvm::CmpInst::Predicate> comparisonPredicate(llvm::StringRef Cmp, PtxType T);

class FunctionLifter {
public:
  FunctionLifter(const ptx::Module &PM, const ptx::Function &F, llvm::Module &M,
                 const llvm::StringMap<const ptx::VarDecl *> &ModuleVars);

  /// Creates and fills the kernel; on error the caller erases the half-built function.
  llvm::Error lift();
  llvm::Function *function() const { return Fn; }

  // ---- shared by the Lift*.cpp files
  llvm::IRBuilder<> B;
  llvm::LLVMContext &Ctx;
  const ptx::Instruction *Cur = nullptr;
  ptx::Instruction CurInstr; // the instruction being lifted, decoded from its statement

  /// An error for the current instruction: names the kernel, file:line and the instruction.
  llvm::Error unsupported(const llvm::Twine &Why = "unsupported instruction") const;

  bool hasMod(llvm::StringRef Mod) const;
  /// The type modifiers of the current instruction, in order (cvt has two).
  llvm::SmallVector<PtxType, 2> types() const;
  /// The single type modifier, or an error.
  llvm::Expected<PtxType> type() const;
  llvm::Type *llvmType(PtxType T) const;

  /// The value of a source operand as type T (registers are converted: same-width bitcast,
  /// integer truncation or extension by Signed; immediates converted to T).
  llvm::Expected<llvm::Value *> read(const ptx::Operand &Op, llvm::Type *T, bool Signed = false);
  /// Writes V to a destination register; integers narrower than the register are extended
  /// (sign-extended when Signed), wider ones truncated; same-width values are bitcast.
  llvm::Error write(const ptx::Operand &Dst, llvm::Value *V, bool Signed = false);
  /// A pointer in address space AS for an address operand [base+offset]; a variable or parameter
  /// base is its own address (cast to AS when it lives elsewhere), a register base an integer.
  llvm::Expected<llvm::Value *> address(const ptx::Operand &Addr, unsigned AS);
  /// The address of a state-space variable named Sym (shared, global, const, local), or null.
  llvm::Expected<llvm::Value *> variableAddress(ptx::Symbol Sym);

  /// The slot (local-space pointer) of a .param variable: a call's argument or return variable,
  /// or a parameter of the function being lifted.
  llvm::Expected<llvm::Value *> paramSlot(ptx::Symbol Name);
  /// The lifted LLVM function of a .func with a body in this module, or null.
  llvm::Function *ptxFunction(llvm::StringRef Name) const;
  /// Whether Name is a register of the function being lifted.
  bool isRegister(ptx::Symbol Name) const;
  /// The LLVM type of register Name (i1 for .pred), or null when it is not a register.
  llvm::Type *registerType(ptx::Symbol Name);
  llvm::Module &module() const { return M; }
  bool isKernel() const { return F.IsEntry; }

  /// Declares the reptx intrinsic Name (Intrinsics.h) of type Ret(Args): nounwind, willreturn,
  /// with memory effects Effects; speculatable and convergent when asked.
  llvm::Function *declareIntrinsic(llvm::StringRef Name, llvm::Type *Ret,
                                   llvm::ArrayRef<llvm::Type *> Args, llvm::MemoryEffects Effects,
                                   bool Speculatable = false, bool Convergent = false);
  /// Declares a reptx intrinsic returning i32 with no side effects.
  llvm::Value *callSpecial(llvm::StringRef Name);
  llvm::Function *declareBarrier();
  llvm::BasicBlock *labelBlock(ptx::Symbol Label);
  /// The labels of the `.branchtargets` list named List (PTX ISA 9.7.12.3), or null.
  const llvm::SmallVector<ptx::Symbol, 8> *branchTargets(ptx::Symbol List) const;
  /// Starts a fresh block after a terminator, so that (unreachable) code after it has a home.
  void continueAfterTerminator();

  /// PTX flush-to-zero (.ftz, PTX ISA 9.7.3): a subnormal input or result becomes a zero of the
  /// same sign.
  llvm::Value *flushSubnormal(llvm::Value *V);
  /// The LLVM sync scope of the current instruction's PTX scope (.cta, .cluster, .gpu, .sys;
  /// Intrinsics.h, "Sync scopes"): Default when it names none.
  llvm::SyncScope::ID syncScope(llvm::StringRef Default = "gpu") const;
  /// The slot of the carry flag CC.CF (i1) of carry chains (PTX ISA 9.7.2), created on first use.
  llvm::Value *carryFlag();
  /// PTX .sat on floats: clamp to [0.0, 1.0], NaN becomes +0.0.
  llvm::Value *saturate(llvm::Value *V);
  /// ld.global.nc and ldu read data that stays read-only while the kernel runs (PTX ISA 9.7.9.9,
  /// 9.7.9.10): no write of the kernel touches it. Such a load joins this function's
  /// "read-only global" alias scope (markReadOnlyLoad), and the writes of st, atom and red are
  /// marked as not aliasing it (markWrite, applied when the body is done and only if the function
  /// has such loads), so the optimizer and the machine scheduler may move the loads above those
  /// stores. Unmarked writes stay conservatively ordered.
  void markReadOnlyLoad(llvm::Instruction *I);
  void markWrite(llvm::Instruction *I);
  /// The type of the module-scope variable Sym as written (".texref", ".u32"...), or "" when Sym
  /// is not one.
  llvm::StringRef moduleVariableType(ptx::Symbol Sym) const;

private:
  struct Register {
    llvm::AllocaInst *Slot = nullptr;
    llvm::Type *Ty = nullptr;
  };
  llvm::Error declare(const ptx::VarDecl &D);
  /// What a register declaration in a nested `{ }` block hid (PTX ISA 5.1.5: it shadows an
  /// outer one of the same name until the block ends); popScope() puts it back.
  struct Shadowed {
    std::string Name;
    bool Range = false; // a %r<N> declaration of Count registers
    unsigned Count = 0;
    // The hidden plain register or range, and the hidden range's registers already in use.
    std::optional<Register> Outer;
    llvm::Type *OuterRange = nullptr;
    unsigned OuterCount = 0;
    std::vector<std::pair<std::string, Register>> OuterMembers;
  };
  std::vector<Shadowed> ScopeLog;
  void popScope(size_t Mark);
  llvm::Error liftFunctionBody();
  llvm::Error liftBody();
  llvm::Expected<llvm::Constant *> initializerConstant(const ptx::VarDecl &D, uint64_t Size);
  llvm::Expected<llvm::Constant *> initializerSymbol(const ptx::Expr &E);
  /// Whether Name is a kernel (.entry) of the module, defined or declared.
  bool isKernel(llvm::StringRef Name) const;
  /// A kernel's address: the generic address of its handle string (intrinsics::
  /// KernelAddressPrefix).
  llvm::Constant *kernelAddress(llvm::StringRef Name);
  llvm::Error liftBlock(const ptx::Block &Blk);
  llvm::Error liftInstruction(const ptx::Instruction &I);
  llvm::Expected<Register *> reg(ptx::Symbol Name);
  void collectLabels(const ptx::Block &Blk);

  const ptx::Module &PM;
  const ptx::Function &F;
  llvm::Module &M;
  const llvm::StringMap<const ptx::VarDecl *> &ModuleVars;
  llvm::Function *Fn = nullptr;
  llvm::BasicBlock *Entry = nullptr;
  llvm::StringMap<Register> Regs;
  llvm::StringMap<llvm::Type *> RegRanges;    // %r<N> prefixes
  llvm::StringMap<unsigned> RangeCounts;      // and their N
  llvm::StringMap<llvm::Value *> Params;      // .param name -> its slot (alloca in LocalAS)
  llvm::StringMap<llvm::Value *> LocalVars;   // function-scope .shared/.local variables
  llvm::StringMap<llvm::BasicBlock *> Labels; // names no open scope declares
  // Labels are scoped like variables (a `{ }` block may reuse an outer or sibling block's label):
  // each block's own labels, and the blocks open while lifting, innermost last.
  llvm::DenseMap<const ptx::Block *, llvm::StringMap<llvm::BasicBlock *>> ScopedLabels;
  // Every label by name, with how many blocks declare it: a branch to a label no open block
  // declares goes to the only one of that name, wherever it is.
  llvm::StringMap<std::pair<llvm::BasicBlock *, unsigned>> LabelsByName;
  std::string AmbiguousLabel; // a branch found none of several labels of its name
  llvm::SmallVector<const ptx::Block *, 8> OpenBlocks;
  llvm::StringMap<llvm::SmallVector<ptx::Symbol, 8>> BranchTargets;
  llvm::AllocaInst *CarryFlag = nullptr;
  llvm::MDNode *ReadOnlyScope = nullptr; // the scope list of markReadOnlyLoad, made on first use
  llvm::SmallVector<llvm::Instruction *, 16> Writes; // markWrite's, marked once the body is lifted
  llvm::MDNode *readOnlyScope();
  llvm::StringSet<> Initializing; // variables whose initializer is being built
};

// One entry point per instruction family file.
llvm::Error liftInteger(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftLogic(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftFloat(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftCompare(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftConvert(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftMemory(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftMove(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftControl(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftAtomic(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftWarp(FunctionLifter &L, const ptx::Instruction &I);
/// %laneid, %warpid, %nwarpid, %lanemask_{eq,le,lt,ge,gt} (LiftWarp.cpp); null for other names.
llvm::Value *warpSpecialRegister(FunctionLifter &L, llvm::StringRef Name);
/// %clock, %clock64, %globaltimer, %smid, %nsmid, %gridid, %dynamic_smem_size, %total_smem_size,
/// %envregN, %pmN (LiftSpecial.cpp); null for other names.
llvm::Value *otherSpecialRegister(FunctionLifter &L, llvm::StringRef Name);
/// vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr: the scalar video instructions (LiftVideo.cpp).
llvm::Error liftVideo(FunctionLifter &L, const ptx::Instruction &I);
/// cp.async (LiftAsyncCopy.cpp).
llvm::Error liftCpAsync(FunctionLifter &L, const ptx::Instruction &I);
/// tanh.approx on f32 (LiftHalf.cpp): within the 2^-11 relative error PTX allows.
llvm::Value *tanhApproxF32(llvm::IRBuilder<> &B, llvm::Value *X);
/// bar/barrier .sync .arrive .red with ids and thread counts (LiftBarrier.cpp).
llvm::Error liftBarrier(FunctionLifter &L, const ptx::Instruction &I);
llvm::Error liftMbarrier(FunctionLifter &L, const ptx::Instruction &I);
/// Texture fetches (LiftTexture.cpp): tex.1d on texture objects.
llvm::Error liftTexture(FunctionLifter &L, const ptx::Instruction &I);
/// The shared-space address of an mbarrier operand [addr] (generic unless .shared/.shared::cta).
llvm::Expected<llvm::Value *> mbarrierAddress(FunctionLifter &L, const ptx::Operand &Op);
/// Count arrivals on the mbarrier object at Bar (shared address space); returns the state.
llvm::Value *mbarrierArrive(FunctionLifter &L, llvm::Value *Bar, llvm::Value *Count, bool Drop);
/// call (LiftCall.cpp) and the LLVM type of a lifted .func: one local-space pointer per return
/// parameter and per parameter.
llvm::Error liftCall(FunctionLifter &L, const ptx::Instruction &I);
llvm::FunctionType *ptxFunctionType(llvm::LLVMContext &Ctx, unsigned Returns, unsigned Params);
/// bfe, bfi, fns, szext, bmsk, dp4a, dp2a, prmt, lop3, shf (LiftBits.cpp).
bool isBitFamily(llvm::StringRef Opcode);
llvm::Error liftBits(FunctionLifter &L, const ptx::Instruction &I);
/// Arithmetic on .f16, .f16x2, .bf16 and .bf16x2 (categories integer and float).
llvm::Error liftHalf(FunctionLifter &L, const ptx::Instruction &I);
/// setp on .f16, .bf16, .f16x2 and .bf16x2 (LiftHalf.cpp).
llvm::Error liftCompareHalf(FunctionLifter &L, const ptx::Instruction &I);
/// cvt with a narrow float type (f16, bf16, tf32, FP8 pairs) or a directed rounding mode of a
/// float result (LiftConvertHalf.cpp); isHalfConversion says which conversions it takes.
bool isHalfConversion(const ptx::Instruction &I);
llvm::Error liftConvertHalf(FunctionLifter &L, const ptx::Instruction &I);
/// mma.sync, ldmatrix, stmatrix, movmatrix and wmma (LiftMatrix.cpp).
llvm::Error liftMatrix(FunctionLifter &L, const ptx::Instruction &I);
/// f32/f64 add, sub, mul, fma, mad with .rz/.rm/.rp (LiftDirected.cpp).
llvm::Error liftDirected(FunctionLifter &L, const ptx::Instruction &I);

} // namespace reptx::ir
