#include "core/exec/passes/rank_check.hpp"

#include <algorithm>
#include <set>

#include "core/base/text.hpp"

namespace kprof::exec {

namespace {

std::string numbers(const std::vector<int64_t>& v) {
  std::vector<std::string> parts;
  for (const int64_t x : v) parts.push_back(std::to_string(x));
  return join(parts, ", ");
}

// The pass's GPU agents as "Agent N" numbers them, in agent order: by Logical_Node_Id (rocprofv3's
// default, and what type-relative ids are read as) or by Node_Id (--agent-index absolute),
// whichever holds every rank's agent; empty when neither does.
std::vector<int64_t> gpu_agent_ids(const std::vector<store::AgentRow>& agents,
                                   const std::set<int64_t>& used) {
  for (const bool logical : {true, false}) {
    std::vector<int64_t> ids;
    for (const auto& a : agents)
      if (a.type == "GPU") ids.push_back(logical ? a.logical_node_id : a.node_id);
    std::sort(ids.begin(), ids.end());
    if (std::all_of(used.begin(), used.end(),
                    [&](int64_t u) { return std::binary_search(ids.begin(), ids.end(), u); }))
      return ids;
  }
  return {};
}

}  // namespace

RankCheck judge_ranks(const std::vector<store::PassRank>& ranks,
                      const std::vector<store::AgentRow>& agents, std::optional<int> expected,
                      const std::vector<int>& slot, const std::string& rerun) {
  RankCheck out;
  if (!expected) return out;
  const auto want = static_cast<size_t>(std::max(1, *expected));
  std::set<int64_t> used;
  for (const auto& r : ranks) used.insert(r.agent);
  const std::vector<int64_t> wrote(used.begin(), used.end());
  if (ranks.size() > want) {
    out.note = std::to_string(ranks.size()) + " ranks (agents " + numbers(wrote) +
               ") where workload.ranks says " + std::to_string(want) +
               ": the views count every rank; set workload.ranks to what the workload runs";
    return out;
  }
  // One rank (the default) never fails on its count: a pass with no dispatch at all is
  // judge_capture's, and a TP=1 vLLM run's API process on the same GPU is folded into its rank.
  if (ranks.size() == want || want == 1) return out;
  std::string which;
  const std::vector<int64_t> gpus = gpu_agent_ids(agents, used);
  if (gpus.size() == want) {
    std::vector<std::string> missing;
    for (size_t r = 0; r < gpus.size(); ++r) {
      if (used.count(gpus[r])) continue;
      std::string m = "rank " + std::to_string(r) + " (";
      if (slot.size() == want) m += "GPU " + std::to_string(slot[r]) + ", ";
      missing.push_back(m + "agent " + std::to_string(gpus[r]) + ")");
    }
    which = "missing " + join(missing, ", ");
  } else {
    which = "agents " + numbers(wrote) + " wrote output, " + std::to_string(want - ranks.size()) +
            " missing";
  }
  out.failure = {FailureKind::transient,
                 std::to_string(ranks.size()) + " of " + std::to_string(want) +
                     " ranks wrote output (workload.ranks: " + std::to_string(want) + "), " +
                     which +
                     ": a worker process ended before the profiler's finalization wrote its "
                     "output; rerun the pass: " +
                     rerun};
  return out;
}

}  // namespace kprof::exec
