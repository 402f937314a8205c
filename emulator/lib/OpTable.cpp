// The instruction semantics table: canonical mnemonic -> OpDef, assembled once from the scalar,
// vector and memory families. The decoder binds every decoded instruction to its entry once, so
// the interpreter dispatches through a pointer and never looks names up.
#include "Semantics.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

namespace reptx::emulator {

namespace {

struct Table {
  sem::TableBuilder Builder;
  llvm::StringMap<OpDef> ByName;

  Table() {
    sem::addScalarOps(Builder);
    sem::addVectorOps(Builder);
    sem::addMemoryOps(Builder);
    sem::addCrossLaneOps(Builder);
    sem::addGfx12Ops(Builder);
    sem::addHalfOps(Builder);
    sem::addIntegerExtraOps(Builder);
    sem::addScratchOps(Builder);
    for (const OpDef &D : Builder.Defs)
      ByName.try_emplace(D.Name, D);
    for (const auto &[NewName, Existing] : Builder.Aliases) {
      auto It = ByName.find(Existing);
      if (It == ByName.end())
        continue;
      OpDef D = It->second;
      D.Name = NewName;
      ByName.try_emplace(NewName, D);
    }
  }
};

const Table &table() {
  static const Table T;
  return T;
}

} // namespace

const OpDef *findOpDef(llvm::StringRef Mnemonic) {
  const Table &T = table();
  auto It = T.ByName.find(Mnemonic);
  return It == T.ByName.end() ? nullptr : &It->second;
}

std::vector<std::string> supportedMnemonics() {
  std::vector<std::string> Names;
  for (const auto &E : table().ByName)
    Names.push_back(E.getKey().str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

} // namespace reptx::emulator
