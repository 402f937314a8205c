// reptx command-line driver: parses the command line and hands over to a subcommand.
#include "Commands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  CLI::App App{"reptx: run CUDA binaries on AMD GPUs by recompiling their PTX"};
  App.set_version_flag("--version", "reptx 0.1.0");
  App.require_subcommand(1);
  std::map<CLI::App *, reptx::tool::Runner> Runners;
  auto Add = [&](reptx::tool::Runner (*Fn)(CLI::App &)) {
    size_t Before = App.get_subcommands({}).size();
    reptx::tool::Runner R = Fn(App);
    Runners[App.get_subcommands({})[Before]] = std::move(R);
  };
  Add(reptx::tool::addListCommand);
  Add(reptx::tool::addExtractCommand);
  Add(reptx::tool::addParseCommand);
  Add(reptx::tool::addCoverageCommand);
  Add(reptx::tool::addCompileCommand);
  Add(reptx::tool::addCacheCommand);
  Add(reptx::tool::addPrewarmCommand);
  Add(reptx::tool::addEmulateCommand);
  Add(reptx::tool::addRunCommand);
  Add(reptx::tool::addCensusCommand);
  try {
    App.parse(argc, argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    reptx::tool::reportError(E.what());
    std::fprintf(stderr, "hint: run 'reptx --help' or 'reptx <command> --help'\n");
    return reptx::tool::ExitUsage;
  }
  for (auto &[Sub, Run] : Runners)
    if (Sub->parsed()) {
      int Rc = Run();
      // Output that could not be written (standard output on a full disk) is an error here, not
      // an LLVM fatal error when llvm::outs() is destroyed.
      llvm::outs().flush();
      if (std::error_code EC = llvm::outs().error()) {
        llvm::outs().clear_error();
        reptx::tool::reportError("standard output: " + EC.message());
        return Rc == reptx::tool::ExitOk ? int(reptx::tool::ExitBadInput) : Rc;
      }
      return Rc;
    }
  return reptx::tool::ExitUsage;
}
