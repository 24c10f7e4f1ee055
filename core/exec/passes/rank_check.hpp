// Whether a loaded pass holds every rank the run expects (workload.ranks). rocprofiler-sdk's tool
// writes each process's output when that process finalizes (ROCm/rocprofiler-sdk
// source/lib/rocprofiler-sdk-tool/tool.cpp, tool_fini), so a tensor-parallel worker killed at
// teardown leaves no file while the profiler, and the pass, exit 0. Its rows are then missing
// from every view that sums or compares ranks; the pass is failed instead of counted done.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/exec/profiler/failure.hpp"
#include "core/store/pass_ranks.hpp"
#include "core/store/rows.hpp"

namespace kprof::exec {

struct RankCheck {
  Failure failure;   // none, or transient: another attempt may have every worker write
  std::string note;  // more ranks than expected: said in the pass's reason and log, not failed
};

// `ranks`: the pass's ranks (store::pass_ranks, read inside the transaction that loaded them).
// `agents`: the pass's agents (store agents table): every worker's agent_info lists the GPUs it
// sees, so a rank that wrote nothing is named by its GPU agent when the pass's GPU agents are
// `expected` in number. `slot`: the pass's --gpus slot (empty without --gpus); rank r is its r-th
// GPU (gpu_select.hpp). `expected`: workload.ranks as the runbook wrote it; nullopt (unwritten)
// and 1 never fail. `rerun`: the command that reruns a failed pass, named in the reason.
RankCheck judge_ranks(const std::vector<store::PassRank>& ranks,
                      const std::vector<store::AgentRow>& agents, std::optional<int> expected,
                      const std::vector<int>& slot, const std::string& rerun);

}  // namespace kprof::exec
