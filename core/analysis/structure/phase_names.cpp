// Phase and Confidence as the words the views print and --phase accepts (phases.hpp).
#include <optional>
#include <string>
#include <string_view>

#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis {

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::prefill:
      return "prefill";
    case Phase::decode:
      return "decode";
    case Phase::step:
      return "step";
    case Phase::irregular:
      return "irregular";
    case Phase::partial:
      return "partial";
    case Phase::unknown:
      return "unknown";
    case Phase::other:
      return "other";
  }
  return "unknown";
}

std::optional<Phase> parse_phase(std::string_view s) {
  for (Phase p : k_all_phases)
    if (to_string(p) == s) return p;
  return std::nullopt;
}

std::string phase_choices() {
  std::string out;
  for (size_t i = 0; i < k_all_phases.size(); ++i) {
    out += i == 0 ? "" : i + 1 == k_all_phases.size() ? " or " : ", ";
    out += to_string(k_all_phases[i]);
  }
  return out;
}

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::high:
      return "high";
    case Confidence::medium:
      return "medium";
    case Confidence::low:
      return "low";
  }
  return "low";
}

}  // namespace kprof::analysis
