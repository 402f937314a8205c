// Semantic checks made while parsing: every name is declared before use with PTX's scoping
// (PTX ISA §5.1: registers and locals are visible in their block and nested blocks, labels in the
// whole function, variables and functions in the module), and every instruction matches its entry
// in the instruction table (opcode, modifiers, operand count, operand kinds).
#include "PtxInternal.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

namespace reptx::ptx {

namespace {

/// Special registers (PTX ISA chapter 10), matched on the name without a component.
bool isSpecialRegister(llvm::StringRef N) {
  static const llvm::StringRef Exact[] = {"%tid",
                                          "%ntid",
                                          "%laneid",
                                          "%warpid",
                                          "%nwarpid",
                                          "%ctaid",
                                          "%nctaid",
                                          "%smid",
                                          "%nsmid",
                                          "%gridid",
                                          "%lanemask_eq",
                                          "%lanemask_le",
                                          "%lanemask_lt",
                                          "%lanemask_ge",
                                          "%lanemask_gt",
                                          "%clock",
                                          "%clock_hi",
                                          "%clock64",
                                          "%globaltimer",
                                          "%globaltimer_lo",
                                          "%globaltimer_hi",
                                          "%total_smem_size",
                                          "%aggr_smem_size",
                                          "%dynamic_smem_size",
                                          "%is_explicit_cluster",
                                          "%clusterid",
                                          "%nclusterid",
                                          "%cluster_ctaid",
                                          "%cluster_nctaid",
                                          "%cluster_ctarank",
                                          "%cluster_nctarank",
                                          "%current_graph_exec",
                                          "%reserved_smem_offset_begin",
                                          "%reserved_smem_offset_end",
                                          "%reserved_smem_offset_cap"};
  for (llvm::StringRef E : Exact)
    if (N == E)
      return true;
  auto Numbered = [&](llvm::StringRef Prefix, unsigned Limit) {
    unsigned V;
    return N.starts_with(Prefix) && !N.drop_front(Prefix.size()).getAsInteger(10, V) && V < Limit;
  };
  return Numbered("%envreg", 32) || Numbered("%pm", 8) || Numbered("%reserved_smem_offset_", 3) ||
         (N.starts_with("%pm") && N.ends_with("_64") && N.size() == 7);
}

/// The number %r<N> gives a name it declares ("%r12" -> 12), or -1 when Name is not Prefix+digits.
int64_t rangeIndex(llvm::StringRef Prefix, llvm::StringRef Name) {
  if (!Name.consume_front(Prefix) || Name.empty())
    return -1;
  uint32_t V = 0; // a leading zero (%r01) still names a register of %r<N>: ptxas accepts it
  if (parseUnsigned(Name, 10, V))
    return -1;
  return V;
}

/// Bits of a scalar type (".f16x2" -> 32); 0 when it has no fixed width here (.pred, .texref).
unsigned typeBits(llvm::StringRef T) {
  T.consume_front(".");
  unsigned Lanes = T.consume_back("x2") ? 2 : 1;
  T = T.drop_while([](char C) { return C >= 'a' && C <= 'z'; });
  unsigned Bits = 0;
  if (T.getAsInteger(10, Bits))
    return 0;
  return Bits * Lanes;
}

/// Whether an operand has one of the kinds of the operand legend in InstructionTable.cpp ('L' is
/// checked by the caller, which knows the names in scope).
bool operandFits(char Kind, const Operand &O) {
  switch (Kind) {
  case 'd':
    return O.K == Operand::Name || O.K == Operand::Sink || O.K == Operand::Pair;
  case 'D':
  case 'V':
    return O.K == Operand::Name || O.K == Operand::Sink || O.K == Operand::Pair ||
           O.K == Operand::Vector;
  case 's':
    return O.K == Operand::Name || O.K == Operand::Int || O.K == Operand::Float ||
           O.K == Operand::ExprOp;
  case 'S':
  case 'W':
    return O.K == Operand::Name || O.K == Operand::Int || O.K == Operand::Float ||
           O.K == Operand::ExprOp || O.K == Operand::Vector;
  case 'a':
    return O.K == Operand::Address;
  case 'n':
  case 'L':
    return O.K == Operand::Name;
  case 'l':
    return O.K == Operand::List;
  default:
    return true;
  }
}

llvm::StringRef operandWant(char Kind) {
  switch (Kind) {
  case 'd':
    return "a register or '_'";
  case 'D':
  case 'V':
    return "a register, vector or '_'";
  case 's':
    return "a register or constant";
  case 'S':
  case 'W':
    return "a register, constant or vector";
  case 'a':
    return "an address '[...]'";
  case 'n':
    return "a name";
  case 'L':
    return "a label";
  case 'l':
    return "a '(...)' list";
  default:
    return "an operand";
  }
}

} // namespace

void Validator::error(uint32_t Offset, const llvm::Twine &Msg) {
  if (Errors.size() < Opts.MaxErrors)
    Errors.push_back({Loc{Offset}, Msg.str()});
}

void Validator::beginFunction(const Function &F) {
  InFunction = true;
  Labels.clear();
  FunctionPending.clear();
  LabelBlock.clear(); // consulted for the labels of this function only
  ++BindEpoch;
  LocalDecls.clear();
  DeclIndex.clear();
  InnerDecls = 0;
  Depth = 0;
  pushScope();
  for (const VarDecl &D : F.Returns)
    declareLocal(D);
  for (const VarDecl &D : F.Params)
    declareLocal(D);
}

void Validator::endFunction() {
  for (const Pending &P : FunctionPending)
    if (!Labels.count(P.Name.data()))
      ModulePending.push_back(P);
  FunctionPending.clear();
  Labels.clear();
  InFunction = false;
  Depth = 0;
  InnerDecls = 0;
}

void Validator::pushScope() {
  if (Scopes.size() <= Depth)
    Scopes.emplace_back();
  Scopes[Depth].Names.clear();
  Scopes[Depth].Ranges.clear();
  if (BlockSerial.size() <= Depth)
    BlockSerial.resize(Depth + 1);
  BlockSerial[Depth] = ++BlocksOpened;
  ++Depth;
}

void Validator::popScope() {
  if (Depth > 1) { // the parameter scope stays until endFunction
    --Depth;
    if (Depth >= 2)
      InnerDecls -= Scopes[Depth].Names.size() + Scopes[Depth].Ranges.size();
  }
}

void Validator::declareLocal(const VarDecl &D) {
  if (!InFunction || Depth == 0)
    return;
  if (Depth - 1 <= 1)
    ++BindEpoch; // the declaration may shadow a bound parameter or be the one a use binds to
  Scope &S = Scopes[Depth - 1];
  size_t Before = S.Names.size() + S.Ranges.size();
  llvm::scope_exit Counted([&] {
    if (Depth - 1 >= 2)
      InnerDecls += S.Names.size() + S.Ranges.size() - Before;
  });
  auto Redefined = [&](const llvm::Twine &Name) {
    error(D.L.Offset, "redefinition of '" + Name + "' in the same scope");
  };
  if (D.RangeCount) {
    if (Opts.Validate) {
      // %r<8> declares %r0..%r7: each may already be declared alone or by another %r<N>.
      int64_t First = -1;
      for (const auto &[Key, Other] : S.Names) {
        int64_t V = rangeIndex(D.Name, Other->Name);
        if (V >= 0 && V < D.RangeCount && (First < 0 || V < First))
          First = V;
      }
      for (const Range &R : S.Ranges)
        if (R.Prefix == D.Name && R.Count)
          First = 0;
      if (First >= 0)
        Redefined(D.Name + llvm::Twine(First));
    }
    S.Ranges.push_back({D.Name, D.RangeCount, &D});
  } else if (!S.Names.try_emplace(D.Name.data(), &D).second) {
    if (Opts.Validate)
      Redefined(D.Name);
  } else if (Opts.Validate) {
    for (const Range &R : S.Ranges) {
      int64_t V = rangeIndex(R.Prefix, D.Name);
      if (V >= 0 && V < R.Count) {
        Redefined(D.Name);
        break;
      }
    }
  }
}

void Validator::declareGlobal(const VarDecl &D) {
  if (D.RangeCount)
    GlobalRanges.push_back({D.Name, D.RangeCount, &D});
  else
    Globals.insert(D.Name.data());
}
void Validator::declareFunction(const Function &F) { Globals.insert(F.Name.data()); }
void Validator::declarePrototype(const Prototype &P) { Globals.insert(P.Name.data()); }

void Validator::declareLabel(Symbol Name, uint32_t Offset) {
  // A label may be defined again in another { } block of the function (ptxas accepts that);
  // twice in the same block is an error.
  auto [It, New] = Labels.try_emplace(Name.data(), Offset);
  if (!New && LabelBlock[Name.data()] != BlockSerial[Depth - 1]) {
    LabelBlock[Name.data()] = BlockSerial[Depth - 1];
    return;
  }
  if (New)
    LabelBlock[Name.data()] = BlockSerial[Depth - 1];
  if (!New && Opts.Validate) {
    auto [Line, Col] = M.lineCol(Loc{Labels[Name.data()]});
    error(Offset, llvm::formatv("duplicate label '{0}' (first defined at line {1})", Name, Line));
  }
}

int Validator::findScope(Symbol Name, const VarDecl **Decl) const {
  for (unsigned I = Depth; I-- > 0;) {
    const Scope &S = Scopes[I];
    if (auto It = S.Names.find(Name.data()); It != S.Names.end()) {
      if (Decl)
        *Decl = It->second;
      return int(I);
    }
    if (!S.Ranges.empty()) {
      // %r<100> declares %r0 ... %r99.
      size_t Digits = Name.size();
      while (Digits > 0 && Name[Digits - 1] >= '0' && Name[Digits - 1] <= '9')
        --Digits;
      if (Digits == Name.size())
        continue;
      llvm::StringRef Prefix = Name.take_front(Digits);
      llvm::StringRef Num = Name.drop_front(Digits);
      // A leading zero (%r01) still names a register of %r<N>: ptxas accepts it.
      uint32_t V = 0;
      if (parseUnsigned(Num, 10, V))
        continue;
      for (const Range &R : S.Ranges)
        if (R.Prefix == Prefix && V < R.Count) {
          if (Decl)
            *Decl = R.D;
          return int(I);
        }
    }
  }
  return -1;
}

const VarDecl *Validator::lookup(Symbol Name) {
  if (InnerDecls == 0)
    if (const Binding *B = bound(Name); B && B->Decl) // not a special register
      return B->Decl == Missing ? nullptr : declOf(*B);
  const VarDecl *D = nullptr;
  int Found = findScope(Name, &D);
  if (Found < 0)
    return nullptr;
  if (Found <= 1)
    bind(Name, D);
  return D;
}

void Validator::useName(Symbol Name, uint32_t Offset) {
  if (!Opts.Validate || !InFunction)
    return;
  // A name bound to a declaration stays declared for the rest of the function; a special register
  // is one whatever is declared (findScope would find a declaration of it first, with the same
  // outcome here).
  if (const Binding *B = bound(Name)) {
    if (B->Decl != Missing)
      return;
    if (InnerDecls == 0) {
      FunctionPending.push_back({Name, Offset});
      return;
    }
  }
  const VarDecl *D = nullptr;
  int Found = findScope(Name, &D);
  if (Found >= 0) {
    if (Found <= 1)
      bind(Name, D);
    return;
  }
  if (Name.starts_with("%") ? isSpecialRegister(Name) : Name == "WARP_SZ") {
    bind(Name, uint32_t(0));
    return; // WARP_SZ: the predefined warp-size constant (PTX ISA §5.4)
  }
  if (InnerDecls == 0)
    bind(Name, Missing);
  FunctionPending.push_back({Name, Offset});
}

size_t Validator::memoryBytes() const {
  size_t N = Bindings.capacity() * sizeof(Binding) + LocalDecls.capacity() * sizeof(void *) +
             DeclIndex.getMemorySize() + Labels.getMemorySize() + LabelBlock.getMemorySize() +
             Globals.getMemorySize() +
             (FunctionPending.capacity() + ModulePending.capacity()) * sizeof(Pending) +
             GlobalRanges.capacity() * sizeof(Range) + Spellings.size() * sizeof(Spelling);
  for (const Scope &S : Scopes)
    N += sizeof(Scope) + S.Names.getMemorySize() +
         (S.Ranges.capacity() > 8 ? S.Ranges.capacity_in_bytes() : 0);
  return N;
}

void Validator::finishModule() {
  if (!Opts.Validate)
    return;
  for (const Pending &P : ModulePending) {
    if (Globals.count(P.Name.data()))
      continue;
    bool InRange = false;
    for (const Range &R : GlobalRanges) {
      int64_t V = rangeIndex(R.Prefix, P.Name);
      InRange |= V >= 0 && V < R.Count;
    }
    if (InRange)
      continue;
    if (P.Name.starts_with("%"))
      error(P.Offset, "use of undeclared register '" + P.Name + "'");
    else
      error(P.Offset, "use of undeclared identifier '" + P.Name + "'");
  }
  ModulePending.clear();
}

const Validator::Spelling *Validator::addSpelling(Symbol Opcode, llvm::ArrayRef<Symbol> Mods) {
  Spelling S;
  S.Opcode = Opcode;
  S.Mods = Mods;
  const InstructionFamily *F = lookupFamily(Opcode);
  auto Fail = [&](uint32_t Delta, const llvm::Twine &Msg) {
    S.Error = Msg.str();
    S.ErrorDelta = Delta;
  };
  if (!F) {
    Fail(0, "unknown instruction '" + Opcode + "'");
  } else {
    S.Family = int(familyIndex(*F));
    llvm::SmallVector<uint8_t, 16> Seen(F->Groups.size(), 0);
    uint32_t Delta = uint32_t(Opcode.size());
    for (Symbol Mod : Mods) {
      int G = F->groupOf(Mod);
      if (G < 0) {
        Fail(Delta, llvm::formatv("unknown modifier '{0}' for '{1}'", Mod, Opcode));
        break;
      }
      if (++Seen[G] > F->Groups[G].Max) {
        Fail(Delta, llvm::formatv("too many {0} modifiers for '{1}' ('{2}')", F->Groups[G].Name,
                                  Opcode, Mod));
        break;
      }
      Delta += uint32_t(Mod.size());
    }
    for (size_t G = 0; G < F->Groups.size() && S.Error.empty(); ++G)
      if (F->Groups[G].Required && !Seen[G]) {
        std::string Allowed;
        for (size_t K = 0; K < F->Groups[G].Values.size() && K < 6; ++K)
          Allowed += (K ? ", " : "") + F->Groups[G].Values[K];
        if (F->Groups[G].Values.size() > 6)
          Allowed += ", ...";
        Fail(0,
             llvm::formatv("'{0}' needs a {1} modifier ({2})", Opcode, F->Groups[G].Name, Allowed));
      }
  }
  if (F && !F->Operands.empty()) {
    S.CheckOperands = true;
    for (Symbol Mod : Mods)
      if (llvm::is_contained(F->OperandsExcept, Mod))
        S.CheckOperands = false;
    for (Symbol Mod : Mods)
      if (int G = F->groupOf(Mod); G >= 0 && F->Groups[G].Name == "type")
        S.Type = Mod;
    S.TypeBits = typeBits(S.Type);
    for (size_t P = 0; P < F->Operands.size(); ++P)
      if (F->Operands[P] != '?')
        S.Slots.push_back(
            {F->Operands[P], P + 1 < F->Operands.size() && F->Operands[P + 1] == '?'});
  }
  S.Index = M.addSpelling(Opcode, Mods, S.Family);
  Spellings.push_back(std::move(S));
  return &Spellings.back();
}

void Validator::checkInstruction(Instruction &I, const Spelling &S, uint32_t OpcodeOffset) {
  if (S.Family < 0) {
    error(OpcodeOffset, S.Error);
    return;
  }
  I.Family = uint16_t(S.Family);
  if (!Opts.Validate)
    return;
  if (!S.Error.empty()) {
    error(OpcodeOffset + S.ErrorDelta, S.Error);
    return;
  }
  const InstructionFamily *F = &instructionFamilies()[S.Family];
  if (I.Ops.size() < F->MinOps || I.Ops.size() > F->MaxOps) {
    std::string Want = F->MinOps == F->MaxOps
                           ? std::to_string(F->MinOps)
                           : std::to_string(F->MinOps) + " to " + std::to_string(F->MaxOps);
    error(I.L.Offset, llvm::formatv("'{0}' takes {1} operand{2}, found {3}", I.Opcode, Want,
                                    F->MaxOps == 1 ? "" : "s", I.Ops.size()));
    return;
  }
  checkOperands(I, *F, S);
}

void Validator::checkOperands(const Instruction &I, const InstructionFamily &F,
                              const Spelling &Sp) {
  if (!Sp.CheckOperands)
    return;
  llvm::ArrayRef<Spelling::Slot> Slots = Sp.Slots;
  llvm::StringRef Type = Sp.Type; // the instruction type, for the width of memory-access values
  unsigned TypeBits = Sp.TypeBits;
  auto Local = [&](const Operand &O) -> const VarDecl * {
    return O.K == Operand::Name ? lookup(O.Sym) : nullptr;
  };
  auto Fits = [&](char Kind, const Operand &O) {
    // A label is a name that no register or variable in scope has.
    return operandFits(Kind, O) && (Kind != 'L' || !Local(O));
  };
  size_t S = 0;
  for (size_t N = 0; N < I.Ops.size(); ++N) {
    const Operand &O = I.Ops[N];
    while (S + 1 < Slots.size() && Slots[S].Optional && !Fits(Slots[S].Kind, O))
      ++S;
    char Kind = Slots[S].Kind;
    if (!Fits(Kind, O)) {
      std::string Found;
      switch (O.K) {
      case Operand::Name:
        if (const VarDecl *D = Local(O))
          Found = (D->Space == StateSpace::Reg ? "register '" : "variable '") + O.Sym.str() + "'";
        else
          Found = "'" + O.Sym.str() + "'";
        break;
      case Operand::Int:
        Found = "an integer";
        break;
      case Operand::Float:
        Found = "a floating-point constant";
        break;
      case Operand::Sink:
        Found = "'_'";
        break;
      case Operand::Vector:
        Found = "a vector";
        break;
      case Operand::Address:
        Found = "an address";
        break;
      case Operand::List:
        Found = "a '(...)' list";
        break;
      case Operand::Pair:
        Found = "a predicate pair";
        break;
      case Operand::ExprOp:
        Found = "an expression";
        break;
      }
      error(O.L.Offset, llvm::formatv("operand {0} of '{1}' must be {2}, not {3}", N + 1, I.Opcode,
                                      operandWant(Kind), Found));
      return;
    }
    if ((Kind == 'V' || Kind == 'W') && TypeBits) {
      // A register narrower than the access cannot hold the loaded value or supply the stored one.
      llvm::ArrayRef<Operand> Regs = O.K == Operand::Vector ? O.Elems : llvm::ArrayRef(O);
      for (const Operand &R : Regs) {
        const VarDecl *D = Local(R);
        if (!D || D->Space != StateSpace::Reg || D->VectorWidth)
          continue;
        if (unsigned Bits = typeBits(D->Type); Bits && Bits < TypeBits) {
          error(R.L.Offset,
                llvm::formatv("operand {0} of '{1}': {2}-bit register '{3}' is narrower than the "
                              "{4} type",
                              N + 1, I.Opcode, Bits, R.Sym, Type));
          return;
        }
      }
    }
    if (S + 1 < Slots.size())
      ++S;
  }
}

} // namespace reptx::ptx
