// The conformance suite's driver: every case of allCases() runs on gfx942 packed, gfx942 single
// and gfx1100 (parse -> lift -> compile -> emulator) and its outputs are compared bit for bit with
// the case's host reference. Each family's cases compile as one module per configuration (one
// kernel per case); when that module fails, its cases compile one by one so that a failure names
// its case. `--print-counts` prints the number of cases per family (tests/conformance/counts.txt,
// which docs/ptx-coverage.md lists) and exits.
#include "Conformance.h"

#include "reptx/backend/Backend.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/emulator/PtxLaunch.h"
#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

using namespace reptx;
using namespace reptx::conformance;
using Mode = backend::CompileOptions::Wave64Mode;

namespace {

struct Config {
  const char *Name;
  const char *Arch;
  Mode Wave64;
};
const Config Configs[] = {
    {"gfx942_packed", "gfx942", Mode::Packed}, {"gfx942_single", "gfx942", Mode::Single},
    {"gfx1100", "gfx1100", Mode::Packed},      {"gfx90a", "gfx90a", Mode::Packed},
    {"gfx1030", "gfx1030", Mode::Packed},      {"gfx1201", "gfx1201", Mode::Packed}};

// Where the code objects are written when REPTX_CONFORMANCE_OBJECTS names a directory (for the
// opcode census).
const char *objectDir() { return std::getenv("REPTX_CONFORMANCE_OBJECTS"); }

llvm::Expected<std::unique_ptr<emulator::CodeObject>>
compileCases(const std::vector<const Case *> &Cases, const Config &Cfg, const std::string &Stem) {
  llvm::LLVMContext Ctx;
  ptx::ParseResult Parsed = ptx::parse(Stem + ".ptx", moduleText(Cases));
  if (llvm::Error E = ptx::toError(Parsed))
    return std::move(E);
  auto R = ir::liftModule(*Parsed.M, Ctx);
  if (!R)
    return R.takeError();
  if (!R->Failures.empty())
    return llvm::createStringError("lifting failed: " + R->Failures[0].Message);
  backend::CompileOptions Opts;
  Opts.Arch = Cfg.Arch;
  Opts.Wave64 = Cfg.Wave64;
  auto Obj = backend::compile(*R->M, Opts);
  if (!Obj)
    return Obj.takeError();
  if (const char *Dir = objectDir()) {
    std::string Path = std::string(Dir) + "/" + Stem + "." + Cfg.Name + ".hsaco";
    std::ofstream F(Path, std::ios::binary);
    F.write(reinterpret_cast<const char *>(Obj->Bytes.data()), std::streamsize(Obj->Bytes.size()));
    if (!F.flush())
      return llvm::createStringError("cannot write " + Path);
  }
  return emulator::CodeObject::load(Obj->Bytes);
}

struct Compiled {
  std::shared_ptr<emulator::CodeObject> CO;
  std::string Error;
};

// Compiled code object of case I for configuration Cfg.
const Compiled &compiledCase(size_t I, const Config &Cfg) {
  static std::map<std::pair<size_t, std::string>, Compiled> Cache;
  auto Key = std::make_pair(I, std::string(Cfg.Name));
  if (auto It = Cache.find(Key); It != Cache.end())
    return It->second;
  const CaseList &All = allCases();
  const std::string &Family = All[I].Family;
  std::vector<size_t> Members;
  std::vector<const Case *> Ptrs;
  for (size_t J = 0; J < All.size(); ++J)
    if (All[J].Family == Family && All[J].Skip.empty()) {
      Members.push_back(J);
      Ptrs.push_back(&All[J]);
    }
  auto Whole = compileCases(Ptrs, Cfg, "conf_" + Family);
  if (Whole) {
    std::shared_ptr<emulator::CodeObject> CO = std::move(*Whole);
    for (size_t J : Members)
      Cache[{J, Cfg.Name}] = {CO, ""};
  } else {
    llvm::consumeError(Whole.takeError());
    for (size_t J : Members) {
      auto One = compileCases({&All[J]}, Cfg, caseKernelName(All[J]));
      if (One)
        Cache[{J, Cfg.Name}] = {std::shared_ptr<emulator::CodeObject>(std::move(*One)), ""};
      else
        Cache[{J, Cfg.Name}] = {nullptr, llvm::toString(One.takeError())};
    }
  }
  if (!Cache.count(Key)) { // a known-gap case, compiled on its own
    auto One = compileCases({&All[I]}, Cfg, caseKernelName(All[I]));
    if (One)
      Cache[Key] = {std::shared_ptr<emulator::CodeObject>(std::move(*One)), ""};
    else
      Cache[Key] = {nullptr, llvm::toString(One.takeError())};
  }
  return Cache[Key];
}

bool isFloat(const std::string &T) { return T == "f32" || T == "f64"; }

bool isNaN(const std::string &T, uint64_t V) {
  return T == "f32" ? std::isnan(asF32(V)) : std::isnan(asF64(V));
}

bool closeEnough(const std::string &T, uint64_t Got, uint64_t Want, double Tol) {
  double G = T == "f32" ? double(asF32(Got)) : asF64(Got);
  double W = T == "f32" ? double(asF32(Want)) : asF64(Want);
  if (std::isnan(W))
    return std::isnan(G);
  if (std::isinf(W))
    return G == W;
  return std::fabs(G - W) <= Tol * std::max(1.0, std::fabs(W));
}

class Conformance : public ::testing::TestWithParam<std::tuple<size_t, size_t>> {};

TEST_P(Conformance, Run) {
  const Case &C = allCases()[std::get<0>(GetParam())];
  const Config &Cfg = Configs[std::get<1>(GetParam())];
  // REPTX_CONFORMANCE_RUN_GAPS=1 runs the known-gap cases too (to see which gaps have closed).
  static const bool RunGaps = std::getenv("REPTX_CONFORMANCE_RUN_GAPS") != nullptr;
  if (!C.Skip.empty() && !RunGaps)
    GTEST_SKIP() << C.Skip;
  const Compiled &Comp = compiledCase(std::get<0>(GetParam()), Cfg);
  ASSERT_TRUE(Comp.CO) << Comp.Error;
  const size_t Threads = C.Rows.size(), NIn = C.InTypes.size(), NOut = C.OutTypes.size();
  const unsigned Block = C.Block ? C.Block : unsigned(Threads);
  ASSERT_EQ(Threads % Block, 0u);
  std::vector<uint64_t> In(std::max<size_t>(1, Threads * NIn));
  for (size_t T = 0; T < Threads; ++T) {
    ASSERT_EQ(C.Rows[T].size(), NIn) << "row " << T;
    for (size_t K = 0; K < NIn; ++K)
      In[T * NIn + K] = C.Rows[T][K];
  }
  std::vector<uint64_t> Scratch = C.Scratch;
  if (Scratch.empty())
    Scratch.assign(1, 0);

  emulator::Device Dev;
  Dev.setCodeObjectsWritable(true); // .global variables are writable (surface stores write them)
  auto DIn = Dev.allocateArray<uint64_t>(In, "in");
  ASSERT_TRUE(static_cast<bool>(DIn)) << llvm::toString(DIn.takeError());
  auto DOut = Dev.allocate(std::max<size_t>(8, Threads * NOut * 8), "out");
  ASSERT_TRUE(static_cast<bool>(DOut)) << llvm::toString(DOut.takeError());
  auto DScratch = Dev.allocateArray<uint64_t>(Scratch, "scratch");
  ASSERT_TRUE(static_cast<bool>(DScratch)) << llvm::toString(DScratch.takeError());
  emulator::KernargBuilder A;
  A.addPointer(*DIn).addPointer(*DOut).addPointer(*DScratch);
  auto P = emulator::ptxLaunch(*Comp.CO, caseKernelName(C), {unsigned(Threads / Block), 1, 1},
                               {Block, 1, 1}, A.take());
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  P->MaxInstructionsPerWave = 1u << 22;
  P->DynamicLdsSize = C.DynamicShared;
  auto R = Dev.dispatch(*Comp.CO, *P);
  if (!C.ExpectError.empty()) {
    ASSERT_FALSE(static_cast<bool>(R)) << "the dispatch should stop with: " << C.ExpectError;
    std::string Message = llvm::toString(R.takeError());
    EXPECT_NE(Message.find(C.ExpectError), std::string::npos) << Message;
    return;
  }
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Out = Dev.readArray<uint64_t>(*DOut, Threads * NOut);
  ASSERT_TRUE(static_cast<bool>(Out)) << llvm::toString(Out.takeError());
  auto FinalScratch = Dev.readArray<uint64_t>(*DScratch, Scratch.size());
  ASSERT_TRUE(static_cast<bool>(FinalScratch)) << llvm::toString(FinalScratch.takeError());

  std::vector<std::vector<uint64_t>> Want(Threads, std::vector<uint64_t>(NOut, 0));
  std::vector<uint64_t> WantScratch = Scratch;
  RefContext Ctx{C.Rows, Want, WantScratch, Block};
  C.Ref(Ctx);
  unsigned Errors = 0;
  for (size_t T = 0; T < Threads && Errors < 8; ++T)
    for (size_t K = 0; K < NOut && Errors < 8; ++K) {
      uint64_t W = Want[T][K], G = (*Out)[T * NOut + K];
      if (W == Any)
        continue;
      if (W == AnyZero) {
        const std::string &Ty = C.OutTypes[K];
        uint64_t Magnitude = Ty == "f64" ? ~0ull >> 1 : Ty == "f32" ? 0x7fffffffu : 0x7fffu;
        if ((G & ~(Magnitude + 1)) != 0) {
          ++Errors;
          ADD_FAILURE() << "thread " << T << " output %d" << K << ": got 0x" << std::hex << G
                        << ", want +0 or -0";
        }
        continue;
      }
      // NaN payloads of arithmetic results are not specified (PTX ISA 8.4): any NaN matches.
      bool Ok = isFloat(C.OutTypes[K]) && (C.RelTol > 0 || isNaN(C.OutTypes[K], W))
                    ? closeEnough(C.OutTypes[K], G, W, C.RelTol)
                    : G == W;
      if (!Ok) {
        ++Errors;
        std::string Inputs;
        for (uint64_t V : C.Rows[T])
          Inputs += " 0x" + llvm::utohexstr(V);
        ADD_FAILURE() << "thread " << T << " output %d" << K << ": got 0x" << std::hex << G
                      << ", want 0x" << W << std::dec << "; inputs" << Inputs;
      }
    }
  for (size_t K = 0; K < Scratch.size() && Errors < 8; ++K)
    if (WantScratch[K] != Any && WantScratch[K] != (*FinalScratch)[K]) {
      ++Errors;
      ADD_FAILURE() << "scratch[" << K << "]: got 0x" << std::hex << (*FinalScratch)[K]
                    << ", want 0x" << WantScratch[K];
    }
}

std::string paramName(const ::testing::TestParamInfo<std::tuple<size_t, size_t>> &I) {
  return std::string(Configs[std::get<1>(I.param)].Name) + "_" +
         caseKernelName(allCases()[std::get<0>(I.param)]).substr(5);
}

INSTANTIATE_TEST_SUITE_P(Cases, Conformance,
                         ::testing::Combine(::testing::Range<size_t>(0, allCases().size()),
                                            ::testing::Range<size_t>(0, std::size(Configs))),
                         paramName);

// Cases and skipped cases (known gaps) per family.
std::map<std::string, std::pair<unsigned, unsigned>> familyCounts() {
  std::map<std::string, std::pair<unsigned, unsigned>> Counts;
  for (const Case &C : allCases()) {
    ++Counts[C.Family].first;
    Counts[C.Family].second += !C.Skip.empty();
  }
  return Counts;
}

// The PTX instruction families (opcodes of the instruction table) that a case's own PTX executes:
// the first word of every statement of its Body and of the functions in its ModuleDecls, after
// labels and a guard. The kernel template's loads and stores are not counted.
std::set<std::string> instructionFamiliesOf(const Case &C) {
  static const std::set<std::string> Known = [] {
    std::set<std::string> K;
    for (const ptx::InstructionFamily &F : ptx::instructionFamilies())
      K.insert(F.Opcode.str());
    return K;
  }();
  std::set<std::string> Out;
  llvm::SmallVector<llvm::StringRef> Stmts;
  std::string Text = C.Body + ";" + C.ModuleDecls;
  llvm::SplitString(Text, Stmts, ";{}");
  for (llvm::StringRef S : Stmts) {
    S = S.trim();
    // Labels: `name:` (not `::`) before the statement.
    for (size_t Colon; (Colon = S.find(':')) != llvm::StringRef::npos &&
                       !S.substr(Colon).starts_with("::") &&
                       S.take_front(Colon).find_first_of(" \t\n") == llvm::StringRef::npos;)
      S = S.drop_front(Colon + 1).trim();
    if (S.starts_with("@"))
      S = S.drop_until([](char Ch) { return Ch == ' ' || Ch == '\t' || Ch == '\n'; }).trim();
    llvm::StringRef Word = S.take_until([](char Ch) { return !llvm::isAlnum(Ch) && Ch != '_'; });
    if (!Word.empty() && Known.count(Word.str()))
      Out.insert(Word.str());
  }
  return Out;
}

// Per instruction family: cases that execute it, and those of them skipped for a known gap.
std::map<std::string, std::pair<unsigned, unsigned>> instructionCounts() {
  std::map<std::string, std::pair<unsigned, unsigned>> Counts;
  for (const Case &C : allCases())
    for (const std::string &F : instructionFamiliesOf(C)) {
      ++Counts[F].first;
      Counts[F].second += !C.Skip.empty();
    }
  return Counts;
}

} // namespace

int main(int argc, char **argv) {
  std::set<std::string> Names;
  for (const Case &C : allCases())
    if (!Names.insert(caseKernelName(C)).second) {
      std::fprintf(stderr, "duplicate conformance case %s\n", caseKernelName(C).c_str());
      return 1;
    }
  if (argc == 3 && std::string(argv[1]) == "--write-objects")
    // Compile every family for every configuration and write the code objects (for the opcode
    // census, tests/census), without running them.
    setenv("REPTX_CONFORMANCE_OBJECTS", argv[2], 1);
  if (const char *Dir = objectDir()) {
    // The objects of this run only: those an earlier build wrote are removed first.
    std::error_code EC;
    std::filesystem::create_directories(Dir, EC);
    for (std::filesystem::directory_iterator It(Dir, EC), End; !EC && It != End; It.increment(EC))
      if (It->path().extension() == ".hsaco")
        std::filesystem::remove(It->path(), EC);
    if (EC) {
      std::fprintf(stderr, "cannot prepare %s for the code objects: %s\n", Dir,
                   EC.message().c_str());
      return 1;
    }
  }
  if (argc == 3 && std::string(argv[1]) == "--write-objects") {
    unsigned Failed = 0;
    for (size_t I = 0; I < allCases().size(); ++I)
      for (const Config &Cfg : Configs)
        if (allCases()[I].Skip.empty() && !compiledCase(I, Cfg).CO)
          ++Failed;
    std::printf("%u case compilations failed\n", Failed);
    return Failed ? 1 : 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--write-ptx") {
    // One PTX module per case, skipped ones included (the lift fuzzer's seeds, tests/fuzz).
    std::error_code EC;
    std::filesystem::create_directories(argv[2], EC);
    unsigned Written = 0;
    for (const Case &C : allCases()) {
      std::string Path = std::string(argv[2]) + "/" + caseKernelName(C) + ".ptx";
      std::ofstream Out(Path, std::ios::binary);
      Out << moduleText({&C});
      if (!Out.flush()) {
        std::fprintf(stderr, "cannot write %s\n", Path.c_str());
        return 1;
      }
      ++Written;
    }
    std::printf("%u cases written to %s\n", Written, argv[2]);
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "--print-counts") {
    std::printf(
        "# Conformance cases per family (tests/conformance/cases/*.cpp): family, cases,\n"
        "# cases skipped for a known gap (KnownGaps.cpp); then per PTX instruction family\n"
        "# (`instr` lines): the cases whose own PTX executes it, and those skipped. Generated\n"
        "# by `reptx_conformance_tests --print-counts`; conformance.counts_current checks it.\n");
    for (auto &[F, N] : familyCounts())
      std::printf("%s %u %u\n", F.c_str(), N.first, N.second);
    for (auto &[F, N] : instructionCounts())
      std::printf("instr %s %u %u\n", F.c_str(), N.first, N.second);
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  int Rc = RUN_ALL_TESTS();
  unsigned Total = 0, Skipped = 0;
  for (const Case &C : allCases())
    Skipped += !C.Skip.empty();
  for (auto &[F, N] : familyCounts()) {
    std::printf("conformance family %-8s %3u cases (%u skipped: known gaps)\n", F.c_str(), N.first,
                N.second);
    Total += N.first;
  }
  std::printf("conformance total %u cases (%u skipped) x %zu configurations\n", Total, Skipped,
              std::size(Configs));
  for (auto &[F, N] : instructionCounts())
    std::printf("conformance instruction %-10s %3u cases (%u skipped: known gaps)\n", F.c_str(),
                N.first, N.second);
  return Rc;
}
