// Shared helpers of the emulator tests: loading the code objects built from kernels/*.cu, checking
// llvm::Error/Expected values, and extracting the Fault of a failed dispatch.
#pragma once

#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

namespace reptx::emulator::test {

// ASSERT that an Expected holds a value and bind it (by reference) to Var.
#define EMU_ASSERT_OK_AND_ASSIGN(Var, Expr)                                                        \
  auto Var##OrErr = (Expr);                                                                        \
  ASSERT_TRUE(static_cast<bool>(Var##OrErr)) << llvm::toString(Var##OrErr.takeError());            \
  auto &Var = *Var##OrErr

#define EMU_ASSERT_OK(Expr)                                                                        \
  do {                                                                                             \
    llvm::Error EmuErr = (Expr);                                                                   \
    ASSERT_FALSE(static_cast<bool>(EmuErr)) << llvm::toString(std::move(EmuErr));                  \
  } while (false)

inline std::string kernelPath(const std::string &Name, const std::string &Arch,
                              const std::string &Suffix = "") {
  return std::string(REPTX_EMU_KERNEL_DIR) + "/" + Name + "." + Arch + Suffix + ".hsaco";
}

inline llvm::Expected<std::unique_ptr<CodeObject>>
loadKernelObject(const std::string &Name, const std::string &Arch, const std::string &Suffix = "") {
  auto Buffer = llvm::MemoryBuffer::getFile(kernelPath(Name, Arch, Suffix));
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(),
                                   "cannot read " + kernelPath(Name, Arch, Suffix));
  llvm::StringRef Bytes = (*Buffer)->getBuffer();
  return CodeObject::load(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
}

// The Fault of a dispatch that failed with an ExecutionError; nullopt (with the message in
// Other) for any other error.
inline std::optional<Fault> takeFault(llvm::Error E, std::string &Message) {
  std::optional<Fault> Result;
  Message.clear();
  llvm::handleAllErrors(
      std::move(E),
      [&](const ExecutionError &X) {
        Result = X.fault();
        Message = X.message();
      },
      [&](const llvm::ErrorInfoBase &X) { Message = X.message(); });
  return Result;
}

} // namespace reptx::emulator::test
