// Semantic checks made while parsing: every name is declared before use with PTX's scoping
// (PTX ISA §5.1: registers and locals are visible in their block and nested blocks, labels in the
// whole function, variables and functions in the module), and every instruction matches its entry
// in the instruction table (opcode, modifiers, operand count).
#include "PtxInternal.h"

#include "llvm/Support/FormatVariadic.h"

namespace reptx::ptx {

namespace {

/// Special registers (PTX ISA chapter 10), matched on the name without a component.
bool isSpecialRegister(llvm::StringRef N) {
  static const llvm::StringRef Exact[] = {
      "%tid",          "%ntid",          "%laneid",          "%warpid",
      "%nwarpid",      "%ctaid",         "%nctaid",          "%smid",
      "%nsmid",        "%gridid",        "%lanemask_eq",     "%lanemask_le",
      "%lanemask_lt",  "%lanemask_ge",   "%lanemask_gt",     "%clock",
      "%clock_hi",     "%clock64",       "%globaltimer",     "%globaltimer_lo",
      "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size",
      "%is_explicit_cluster", "%clusterid", "%nclusterid",   "%cluster_ctaid",
      "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%current_graph_exec",
      "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
      "%reserved_smem_offset_cap"};
  for (llvm::StringRef E : Exact)
    if (N == E)
      return true;
  auto Numbered = [&](llvm::StringRef Prefix, unsigned Limit) {
    unsigned V;
    return N.starts_with(Prefix) && !N.drop_front(Prefix.size()).getAsInteger(10, V) && V < Limit;
  };
  return Numbered("%envreg", 32) || Numbered("%pm", 8) ||
         Numbered("%reserved_smem_offset_", 3) ||
         (N.starts_with("%pm") && N.ends_with("_64") && N.size() == 7);
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
  FunctionWide.clear();
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
}

void Validator::pushScope() {
  if (Scopes.size() <= Depth)
    Scopes.emplace_back();
  Scopes[Depth].Names.clear();
  Scopes[Depth].Ranges.clear();
  ++Depth;
}

void Validator::popScope() {
  if (Depth > 1) // the parameter scope stays until endFunction
    --Depth;
}

void Validator::declareLocal(const VarDecl &D) {
  if (!InFunction || Depth == 0)
    return;
  Scope &S = Scopes[Depth - 1];
  if (D.RangeCount)
    S.Ranges.push_back({D.Name, D.RangeCount});
  else if (!S.Names.insert(D.Name.data()).second && Opts.Validate)
    error(D.L.Offset, "redefinition of '" + D.Name + "' in the same scope");
}

void Validator::declareGlobal(const VarDecl &D) { Globals.insert(D.Name.data()); }
void Validator::declareFunction(const Function &F) { Globals.insert(F.Name.data()); }
void Validator::declarePrototype(const Prototype &P) { Globals.insert(P.Name.data()); }

void Validator::declareLabel(Symbol Name, uint32_t Offset) {
  if (!Labels.try_emplace(Name.data(), Offset).second && Opts.Validate) {
    auto [Line, Col] = M.lineCol(Loc{Labels[Name.data()]});
    error(Offset, llvm::formatv("duplicate label '{0}' (first defined at line {1})", Name, Line));
  }
}

int Validator::findScope(Symbol Name) const {
  for (unsigned I = Depth; I-- > 0;) {
    const Scope &S = Scopes[I];
    if (S.Names.count(Name.data()))
      return int(I);
    if (!S.Ranges.empty()) {
      // %r<100> declares %r0 ... %r99.
      size_t Digits = Name.size();
      while (Digits > 0 && Name[Digits - 1] >= '0' && Name[Digits - 1] <= '9')
        --Digits;
      if (Digits == Name.size())
        continue;
      llvm::StringRef Prefix = Name.take_front(Digits);
      llvm::StringRef Num = Name.drop_front(Digits);
      if (Num.size() > 1 && Num[0] == '0')
        continue; // %r01 is not one of the names %r<N> declares
      unsigned V = 0;
      if (Num.getAsInteger(10, V))
        continue;
      for (const Range &R : S.Ranges)
        if (R.Prefix == Prefix && V < R.Count)
          return int(I);
    }
  }
  return -1;
}

void Validator::useName(Symbol Name, uint32_t Offset) {
  if (!Opts.Validate || !InFunction)
    return;
  if (FunctionWide.count(Name.data()))
    return;
  int Found = findScope(Name);
  if (Found >= 0) {
    if (Found <= 1)
      FunctionWide.insert(Name.data());
    return;
  }
  if (Name.starts_with("%") ? isSpecialRegister(Name) : Name == "WARP_SZ")
    return; // WARP_SZ: the predefined warp-size constant (PTX ISA §5.4)
  FunctionPending.push_back({Name, Offset});
}

void Validator::finishModule() {
  if (!Opts.Validate)
    return;
  for (const Pending &P : ModulePending) {
    if (Globals.count(P.Name.data()))
      continue;
    if (P.Name.starts_with("%"))
      error(P.Offset, "use of undeclared register '" + P.Name + "'");
    else
      error(P.Offset, "use of undeclared identifier '" + P.Name + "'");
  }
  ModulePending.clear();
}

const Validator::Spelling *Validator::addSpelling(Symbol Full, Symbol Opcode,
                                                 llvm::ArrayRef<Symbol> Mods) {
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
        Fail(0, llvm::formatv("'{0}' needs a {1} modifier ({2})", Opcode, F->Groups[G].Name,
                              Allowed));
      }
  }
  SpellingIndex[Full.data()] = unsigned(Spellings.size());
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
  }
}

} // namespace reptx::ptx
