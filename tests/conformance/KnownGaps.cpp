// Cases that exercise something reptx does not do yet: each is skipped with the reason, so the
// suite stays green while the gap is visible (the skip count is printed at the end of the run).
// Remove an entry when the gap closes.
#include "Conformance.h"

#include <map>

namespace reptx::conformance {

std::string knownGap(const Case &C) {
  static const std::map<std::string, std::string> Gaps = {
      // None at present. An entry: {"family/name", "what reptx does not do yet"}.
  };
  auto It = Gaps.find(C.Family + "/" + C.Name);
  return It == Gaps.end() ? std::string() : It->second;
}

} // namespace reptx::conformance
