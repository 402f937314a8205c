// Writes the AST back as PTX text (one statement per line, tabs inside bodies), and compares two
// ASTs structurally: the round-trip check parse(print(parse(f))) == parse(f).
#include "PtxInternal.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace reptx::ptx {

namespace {

void printFloat(llvm::raw_ostream &OS, uint64_t Bits, bool IsDouble) {
  if (IsDouble)
    OS << llvm::format("0d%016llX", (unsigned long long)Bits);
  else
    OS << llvm::format("0f%08X", unsigned(Bits));
}

/// Binding strength of a binary operator, as in the parser (C precedence); 8 for anything that
/// needs no parentheses.
int exprPrecedence(const Expr *E) {
  if (E->K != Expr::Binary)
    return 8;
  switch (E->Op) {
  case '*':
  case '/':
  case '%':
    return 7;
  case '+':
  case '-':
    return 6;
  case '<':
  case '>':
    return 5;
  case '&':
    return 3;
  case '^':
    return 2;
  default:
    return 1;
  }
}

void printExpr(llvm::raw_ostream &OS, const Expr *E);

void printExprIn(llvm::raw_ostream &OS, const Expr *E, bool Parens) {
  if (Parens)
    OS << "(";
  printExpr(OS, E);
  if (Parens)
    OS << ")";
}

// Parentheses only where precedence needs them: an operand expression must start with its name
// (a leading '(' re-parses as a call's list operand), and re-parsing must not nest deeper than
// the original did (the parser limits nesting).
void printExpr(llvm::raw_ostream &OS, const Expr *E) {
  switch (E->K) {
  case Expr::Int:
    // Literals are stored as their 64-bit pattern; 0xFFFFFFFFFFFFFFFF must not print as -1,
    // which would re-parse as a negation.
    OS << uint64_t(E->IntValue);
    return;
  case Expr::Float:
    printFloat(OS, E->FloatBits, E->IsDouble);
    return;
  case Expr::Name:
    OS << E->Sym;
    return;
  case Expr::Generic:
    OS << E->Sym << "(";
    printExpr(OS, E->Args[0]);
    OS << ")";
    return;
  case Expr::Unary:
    OS << E->Op;
    printExprIn(OS, E->Args[0], E->Args[0]->K == Expr::Binary);
    return;
  case Expr::Binary: {
    // Left-associative: the left operand needs parentheses only when it binds less tightly, the
    // right one also when it binds equally (a - (b - c)).
    int Prec = exprPrecedence(E);
    printExprIn(OS, E->Args[0], exprPrecedence(E->Args[0]) < Prec);
    if (E->Op == '<')
      OS << " << ";
    else if (E->Op == '>')
      OS << " >> ";
    else
      OS << " " << E->Op << " ";
    printExprIn(OS, E->Args[1], exprPrecedence(E->Args[1]) <= Prec);
    return;
  }
  case Expr::Braces:
    OS << "{";
    for (size_t I = 0; I < E->Args.size(); ++I) {
      if (I)
        OS << ", ";
      printExpr(OS, E->Args[I]);
    }
    OS << "}";
    return;
  case Expr::Cond:
    return;
  }
}

void printOperand(llvm::raw_ostream &OS, const Operand &O) {
  if (O.Negated)
    OS << "!";
  if (O.Minus)
    OS << "-";
  switch (O.K) {
  case Operand::Name:
    OS << O.Sym << O.Component;
    return;
  case Operand::Int:
    OS << O.IntValue;
    if (O.Unsigned)
      OS << "U";
    return;
  case Operand::Float:
    printFloat(OS, O.FloatBits, O.IsDouble);
    return;
  case Operand::Sink:
    OS << "_";
    return;
  case Operand::Vector:
  case Operand::List: {
    OS << (O.K == Operand::Vector ? "{" : "(");
    for (size_t I = 0; I < O.Elems.size(); ++I) {
      if (I)
        OS << ", ";
      printOperand(OS, O.Elems[I]);
    }
    OS << (O.K == Operand::Vector ? "}" : ")");
    return;
  }
  case Operand::Address: {
    OS << "[";
    if (O.Elems.empty()) {
      OS << uint64_t(O.IntValue); // [-1] does not parse; the 64-bit pattern does
    } else {
      printOperand(OS, O.Elems[0]);
      if (O.IntValue)
        OS << "+" << O.IntValue;
      for (size_t I = 1; I < O.Elems.size(); ++I) {
        OS << ", ";
        printOperand(OS, O.Elems[I]);
      }
    }
    OS << "]";
    return;
  }
  case Operand::Pair:
    printOperand(OS, O.Elems[0]);
    OS << "|";
    printOperand(OS, O.Elems[1]);
    return;
  case Operand::ExprOp:
    printExpr(OS, O.E);
    return;
  }
}

void printVar(llvm::raw_ostream &OS, const VarDecl &D) {
  if (D.Linkage & LinkExtern)
    OS << ".extern ";
  if (D.Linkage & LinkVisible)
    OS << ".visible ";
  if (D.Linkage & LinkWeak)
    OS << ".weak ";
  if (D.Linkage & LinkCommon)
    OS << ".common ";
  if (D.Space != StateSpace::None)
    OS << stateSpaceName(D.Space) << " ";
  for (TypeName A : D.Attributes)
    OS << A << " ";
  if (D.Align)
    OS << ".align " << D.Align << " ";
  if (D.VectorWidth)
    OS << ".v" << unsigned(D.VectorWidth) << " ";
  OS << D.Type << " ";
  if (D.IsPtr) {
    OS << ".ptr ";
    if (D.PtrSpace != StateSpace::None)
      OS << stateSpaceName(D.PtrSpace) << " ";
    if (D.PtrAlign)
      OS << ".align " << D.PtrAlign << " ";
  }
  OS << D.Name;
  if (D.RangeCount)
    OS << "<" << D.RangeCount << ">";
  for (const Expr *E : D.Dims) {
    OS << "[";
    if (E)
      printExpr(OS, E);
    OS << "]";
  }
  if (D.Init) {
    OS << " = ";
    printExpr(OS, D.Init);
  }
}

void printParams(llvm::raw_ostream &OS, llvm::ArrayRef<VarDecl> Ps) {
  OS << "(";
  for (size_t I = 0; I < Ps.size(); ++I) {
    OS << (I ? ",\n\t" : "\n\t");
    printVar(OS, Ps[I]);
  }
  OS << (Ps.empty() ? ")" : "\n)");
}

void printInstruction(llvm::raw_ostream &OS, const Instruction &I) {
  if (!I.Guard.empty())
    OS << "@" << (I.GuardNegated ? "!" : "") << I.Guard << " ";
  OS << I.Opcode;
  for (Symbol M : I.Mods)
    OS << M;
  for (size_t K = 0; K < I.Ops.size(); ++K) {
    OS << (K ? ", " : " ");
    printOperand(OS, I.Ops[K]);
  }
  OS << ";";
}

struct BodyPrinter {
  llvm::raw_ostream &OS;
  const Module &M;
  Instruction Scratch; // decoded instruction, storage reused
  void block(const Block &B, unsigned Indent);
  void statement(const Statement &S, unsigned Indent);
};

void printPrototype(llvm::raw_ostream &OS, const Prototype &P) {
  OS << P.Name << ": .callprototype ";
  if (!P.Returns.empty())
    printParams(OS, P.Returns);
  OS << " _ ";
  printParams(OS, P.Params);
  if (P.NoReturn)
    OS << " .noreturn";
  OS << ";";
}

void BodyPrinter::statement(const Statement &S, unsigned Indent) {
  std::string Tabs(Indent, '\t');
  switch (S.K) {
  case Statement::Instr:
    OS << Tabs;
    M.decode(S, Scratch);
    printInstruction(OS, Scratch);
    OS << "\n";
    return;
  case Statement::Decl:
    OS << Tabs;
    printVar(OS, *S.D);
    OS << ";\n";
    return;
  case Statement::Label: {
    Symbol Name = M.label(S);
    for (const Prototype *P : M.Prototypes)
      if (P->Name.data() == Name.data() && P->L.Offset == S.L.Offset) {
        OS << Tabs;
        printPrototype(OS, *P);
        OS << "\n";
        return;
      }
    OS << Name << ":\n";
    return;
  }
  case Statement::Scope:
    OS << Tabs;
    block(*S.B, Indent);
    return;
  case Statement::Directive:
    OS << Tabs << S.R->Text
       << (S.R->Text.ends_with(";") || S.R->Name == ".loc" || S.R->Name == ".file" ? "" : ";")
       << "\n";
    return;
  }
}

void BodyPrinter::block(const Block &B, unsigned Indent) {
  OS << "{\n";
  for (const Statement &S : B.Body)
    statement(S, Indent + 1);
  OS << std::string(Indent, '\t') << "}\n";
}

} // namespace

void print(llvm::raw_ostream &OS, const Module &M) {
  OS << ".version " << M.VersionMajor << "." << M.VersionMinor << "\n";
  if (!M.Targets.empty()) {
    OS << ".target ";
    for (size_t I = 0; I < M.Targets.size(); ++I)
      OS << (I ? ", " : "") << M.Targets[I];
    OS << "\n";
  }
  if (M.AddressSize)
    OS << ".address_size " << M.AddressSize << "\n";
  for (const TopLevel &T : M.Items) {
    switch (T.K) {
    case TopLevel::Directive:
      OS << T.R->Text << (T.R->Name == ".pragma" ? ";" : "") << "\n";
      break;
    case TopLevel::Alias:
      OS << ".alias " << T.AliasName << ", " << T.AliasTarget << ";\n";
      break;
    case TopLevel::Var:
      printVar(OS, *T.V);
      OS << ";\n";
      break;
    case TopLevel::Func: {
      const Function &F = *T.F;
      OS << "\n";
      if (F.Linkage & LinkExtern)
        OS << ".extern ";
      if (F.Linkage & LinkVisible)
        OS << ".visible ";
      if (F.Linkage & LinkWeak)
        OS << ".weak ";
      if (F.Linkage & LinkCommon)
        OS << ".common ";
      OS << (F.IsEntry ? ".entry " : ".func ");
      if (!F.IsEntry && !F.Returns.empty()) {
        printParams(OS, F.Returns);
        OS << " ";
      }
      OS << F.Name;
      if (!F.Params.empty() || F.IsEntry)
        printParams(OS, F.Params);
      OS << "\n";
      auto Dims = [&](const char *Name, const uint32_t(&D)[3]) {
        if (!D[0] && !D[1] && !D[2]) // .maxntid 0, 5 must keep its 5
          return;
        OS << Name << " " << D[0];
        if (D[1] || D[2])
          OS << ", " << D[1];
        if (D[2])
          OS << ", " << D[2];
        OS << "\n";
      };
      Dims(".maxntid", F.MaxNTid);
      Dims(".reqntid", F.ReqNTid);
      Dims(".reqnctapercluster", F.ReqNCtaPerCluster);
      if (F.MinNCtaPerSm)
        OS << ".minnctapersm " << F.MinNCtaPerSm << "\n";
      if (F.MaxNReg)
        OS << ".maxnreg " << F.MaxNReg << "\n";
      if (F.MaxClusterRank)
        OS << ".maxclusterrank " << F.MaxClusterRank << "\n";
      if (F.ExplicitCluster)
        OS << ".explicitcluster\n";
      if (F.BlocksAreClusters)
        OS << ".blocksareclusters\n";
      if (F.NoReturn)
        OS << ".noreturn\n";
      for (const RawDirective *P : F.Pragmas)
        OS << P->Text << ";\n";
      if (F.Body)
        BodyPrinter{OS, M, {}}.block(*F.Body, 0);
      else
        OS << ";\n";
      break;
    }
    }
  }
}

// ---------------------------------------------------------------- structural equality

namespace {

struct Comparer {
  const Module &MA, &MB;
  Instruction IA, IB; // decoded instructions, storage reused
  std::string Why;

  bool fail(const llvm::Twine &W) {
    if (Why.empty())
      Why = W.str();
    return false;
  }

  bool expr(const Expr *A, const Expr *B) {
    if (!A || !B)
      return A == B || fail("expression presence differs");
    // Unary minus of a literal prints as -(5) and reparses as Unary: compare values.
    if (A->K != B->K || A->Op != B->Op || A->IntValue != B->IntValue ||
        A->FloatBits != B->FloatBits || A->IsDouble != B->IsDouble || A->Sym != B->Sym ||
        A->Args.size() != B->Args.size())
      return fail(llvm::formatv("expression differs ({0} vs {1})", int(A->K), int(B->K)));
    for (size_t I = 0; I < A->Args.size(); ++I)
      if (!expr(A->Args[I], B->Args[I]))
        return false;
    return true;
  }

  bool operand(const Operand &A, const Operand &B) {
    if (A.K != B.K || A.Negated != B.Negated || A.Minus != B.Minus || A.Sym != B.Sym ||
        A.IntValue != B.IntValue || A.FloatBits != B.FloatBits || A.IsDouble != B.IsDouble ||
        A.Unsigned != B.Unsigned || A.Component != B.Component || A.Elems.size() != B.Elems.size())
      return fail(llvm::formatv("operand differs: '{0}' vs '{1}'", A.Sym, B.Sym));
    for (size_t I = 0; I < A.Elems.size(); ++I)
      if (!operand(A.Elems[I], B.Elems[I]))
        return false;
    return A.K != Operand::ExprOp || expr(A.E, B.E);
  }

  bool var(const VarDecl &A, const VarDecl &B) {
    if (A.Linkage != B.Linkage || A.Space != B.Space || A.Align != B.Align ||
        A.VectorWidth != B.VectorWidth || A.Type != B.Type || A.Name != B.Name ||
        A.RangeCount != B.RangeCount || A.Dims.size() != B.Dims.size() || A.IsPtr != B.IsPtr ||
        A.PtrSpace != B.PtrSpace || A.PtrAlign != B.PtrAlign ||
        A.Attributes.size() != B.Attributes.size())
      return fail("declaration of '" + A.Name + "' differs");
    for (size_t I = 0; I < A.Dims.size(); ++I)
      if (!expr(A.Dims[I], B.Dims[I]))
        return false;
    return expr(A.Init, B.Init);
  }

  bool vars(llvm::ArrayRef<VarDecl> A, llvm::ArrayRef<VarDecl> B) {
    if (A.size() != B.size())
      return fail("parameter count differs");
    for (size_t I = 0; I < A.size(); ++I)
      if (!var(A[I], B[I]))
        return false;
    return true;
  }

  bool block(const Block *A, const Block *B) {
    if (!A || !B)
      return A == B || fail("body presence differs");
    if (A->Body.size() != B->Body.size())
      return fail(llvm::formatv("block has {0} vs {1} statements", A->Body.size(), B->Body.size()));
    for (size_t I = 0; I < A->Body.size(); ++I) {
      const Statement &X = A->Body[I], &Y = B->Body[I];
      if (X.K != Y.K)
        return fail("statement kind differs");
      switch (X.K) {
      case Statement::Instr: {
        MA.decode(X, IA);
        MB.decode(Y, IB);
        const Instruction &P = IA, &Q = IB;
        if (P.Guard != Q.Guard || P.GuardNegated != Q.GuardNegated || P.Opcode != Q.Opcode ||
            P.Mods.size() != Q.Mods.size() || P.Ops.size() != Q.Ops.size())
          return fail("instruction '" + P.Opcode + "' differs");
        for (size_t K = 0; K < P.Mods.size(); ++K)
          if (P.Mods[K] != Q.Mods[K])
            return fail("modifier differs");
        for (size_t K = 0; K < P.Ops.size(); ++K)
          if (!operand(P.Ops[K], Q.Ops[K]))
            return false;
        break;
      }
      case Statement::Decl:
        if (!var(*X.D, *Y.D))
          return false;
        break;
      case Statement::Label:
        if (MA.label(X) != MB.label(Y))
          return fail("label differs");
        break;
      case Statement::Scope:
        if (!block(X.B, Y.B))
          return false;
        break;
      case Statement::Directive:
        if (X.R->Name != Y.R->Name)
          return fail("directive differs");
        break;
      }
    }
    return true;
  }

  bool module(const Module &A, const Module &B) {
    if (A.VersionMajor != B.VersionMajor || A.VersionMinor != B.VersionMinor ||
        A.AddressSize != B.AddressSize || A.Targets != B.Targets)
      return fail("module header differs");
    if (A.Items.size() != B.Items.size())
      return fail(llvm::formatv("{0} vs {1} module items", A.Items.size(), B.Items.size()));
    if (A.Prototypes.size() != B.Prototypes.size())
      return fail("prototype count differs");
    for (size_t I = 0; I < A.Prototypes.size(); ++I)
      if (A.Prototypes[I]->Name != B.Prototypes[I]->Name ||
          !vars(A.Prototypes[I]->Returns, B.Prototypes[I]->Returns) ||
          !vars(A.Prototypes[I]->Params, B.Prototypes[I]->Params))
        return fail("prototype differs");
    for (size_t I = 0; I < A.Items.size(); ++I) {
      const TopLevel &X = A.Items[I], &Y = B.Items[I];
      if (X.K != Y.K)
        return fail("module item kind differs");
      switch (X.K) {
      case TopLevel::Func: {
        const Function &F = *X.F, &G = *Y.F;
        if (F.Name != G.Name || F.Linkage != G.Linkage || F.IsEntry != G.IsEntry ||
            F.NoReturn != G.NoReturn || F.MinNCtaPerSm != G.MinNCtaPerSm ||
            F.MaxNReg != G.MaxNReg || F.MaxClusterRank != G.MaxClusterRank ||
            std::memcmp(F.MaxNTid, G.MaxNTid, sizeof F.MaxNTid) ||
            std::memcmp(F.ReqNTid, G.ReqNTid, sizeof F.ReqNTid) ||
            F.Pragmas.size() != G.Pragmas.size())
          return fail("function '" + F.Name + "' header differs");
        if (!vars(F.Returns, G.Returns) || !vars(F.Params, G.Params) || !block(F.Body, G.Body))
          return fail("in function '" + F.Name + "'");
        break;
      }
      case TopLevel::Var:
        if (!var(*X.V, *Y.V))
          return false;
        break;
      case TopLevel::Directive:
        if (X.R->Name != Y.R->Name)
          return fail("directive differs");
        break;
      case TopLevel::Alias:
        if (X.AliasName != Y.AliasName || X.AliasTarget != Y.AliasTarget)
          return fail("alias differs");
        break;
      }
    }
    return true;
  }
};

} // namespace

bool equivalent(const Module &A, const Module &B, std::string *Why) {
  Comparer C{A, B, {}, {}, {}};
  bool Same = C.module(A, B);
  if (!Same && Why)
    *Why = C.Why;
  return Same;
}

} // namespace reptx::ptx
