// Helpers of the lifting tests: parse PTX, lift it, compile it for a target with the backend and
// load the code object into the emulator.
#pragma once

#include "reptx/backend/Backend.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <memory>
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

} // namespace reptx::lifttest
