// Helpers of the lifting tests: parse PTX, lift it, compile it for a target with the backend and
// load the code object into the emulator.
#pragma once

#include "reptx/backend/Backend.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace reptx::lifttest {

#define LIFT_ASSERT_OK_AND_ASSIGN(Var, Expr)                                                       \
  auto Var##OrErr = (Expr);                                                                        \
  ASSERT_TRUE(static_cast<bool>(Var##OrErr)) << llvm::toString(Var##OrErr.takeError());            \
  auto &Var = *Var##OrErr

inline llvm::Expected<std::string> readKernelPtx(const std::string &Name) {
  std::string Path = std::string(REPTX_LIFT_KERNEL_DIR) + "/" + Name + ".ptx";
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read " + Path);
  return (*Buf)->getBuffer().str();
}

/// Lifted IR of a PTX text; the parse must succeed.
struct Lifted {
  std::unique_ptr<llvm::LLVMContext> Ctx = std::make_unique<llvm::LLVMContext>();
  ptx::ParseResult Parsed;
  ir::LiftResult R;
};

inline llvm::Expected<std::unique_ptr<Lifted>> lift(const std::string &Name, std::string Text) {
  auto L = std::make_unique<Lifted>();
  L->Parsed = ptx::parse(Name, std::move(Text));
  if (llvm::Error E = ptx::toError(L->Parsed))
    return std::move(E);
  auto R = ir::liftModule(*L->Parsed.M, *L->Ctx);
  if (!R)
    return R.takeError();
  L->R = std::move(*R);
  return L;
}

/// PTX text -> code object loaded for emulation; every kernel must lift.
inline llvm::Expected<std::unique_ptr<emulator::CodeObject>>
compileForEmulator(const std::string &Name, std::string Text, const std::string &Arch,
                   unsigned CodeObjectVersion = 5) {
  auto L = lift(Name, std::move(Text));
  if (!L)
    return L.takeError();
  if (!(*L)->R.Failures.empty())
    return llvm::createStringError("lifting failed: " + (*L)->R.Failures[0].Message);
  backend::CompileOptions Opts;
  Opts.Arch = Arch;
  Opts.CodeObjectVersion = CodeObjectVersion;
  auto Obj = backend::compile(*(*L)->R.M, Opts);
  if (!Obj)
    return Obj.takeError();
  return emulator::CodeObject::load(Obj->Bytes);
}

/// The value and size of a code object's dynamic symbol (a global a loader writes, like
/// `__reptx_printf_buffer`), or none.
struct DynamicSymbol {
  uint64_t Value = 0, Size = 0;
};
inline llvm::Expected<std::optional<DynamicSymbol>> dynamicSymbol(llvm::ArrayRef<uint8_t> Bytes,
                                                                  llvm::StringRef Name) {
  auto Elf = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), ""));
  if (!Elf)
    return Elf.takeError();
  auto *EF = llvm::cast<llvm::object::ELFObjectFileBase>(Elf->get());
  for (const llvm::object::ELFSymbolRef &S : EF->getDynamicSymbolIterators()) {
    auto SymName = S.getName();
    if (!SymName)
      return SymName.takeError();
    if (*SymName != Name)
      continue;
    auto V = S.getValue();
    if (!V)
      return V.takeError();
    return DynamicSymbol{*V, S.getSize()};
  }
  return std::nullopt;
}

/// PTX text -> the disassembly of one of its kernels compiled for Arch, one instruction a line.
inline llvm::Expected<std::string> kernelDisassembly(const std::string &Name, std::string Text,
                                                     const std::string &Kernel,
                                                     const std::string &Arch) {
  auto CO = compileForEmulator(Name, std::move(Text), Arch);
  if (!CO)
    return CO.takeError();
  const emulator::Kernel *K = (*CO)->findKernel(Kernel);
  if (!K)
    return llvm::createStringError("no kernel '" + Kernel + "' in the code object");
  std::string Code;
  for (const emulator::DisassembledInstruction &I : (*CO)->disassemble(*K))
    Code += I.Text + "\n";
  return Code;
}

/// LLVM IR text -> module; null with the parser's message in Error when it does not parse.
inline std::unique_ptr<llvm::Module> parseIR(const std::string &IR, llvm::LLVMContext &Ctx,
                                             std::string &Error) {
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Err, Ctx);
  if (!M) {
    llvm::raw_string_ostream OS(Error);
    Err.print("IR", OS);
  }
  return M;
}

/// Parses IR into M, runs STEP on its function @f and verifies the module: empty when all went
/// well, else "PARSE ERROR: ..." or "INVALID: ..." (the backend's IR steps, tested alone).
inline std::string runOnF(const std::string &IR, llvm::LLVMContext &Ctx,
                          std::unique_ptr<llvm::Module> &M,
                          const std::function<void(llvm::Function &)> &Step) {
  std::string Error;
  M = parseIR(IR, Ctx, Error);
  if (!M)
    return "PARSE ERROR: " + Error;
  Step(*M->getFunction("f"));
  std::string Broken;
  llvm::raw_string_ostream OS(Broken);
  if (llvm::verifyModule(*M, &OS))
    return "INVALID: " + Broken;
  return "";
}

} // namespace reptx::lifttest
