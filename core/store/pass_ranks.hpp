// The processes of a pass and its ranks (schema 10, 0010_pass_ranks.sql). The loader counts each
// pass's dispatches per (process, agent) as it stores them (pass_loader.cpp); a rank is one GPU
// agent of the pass and the process that drove it, numbered in the order of the agents.
#pragma once

#include <cstdint>
#include <vector>

namespace kprof::store {

class CaptureDb;

struct PassProcess {
  int64_t pid = 0;
  int64_t agent = 0;  // the N of "Agent N"
  int64_t dispatches = 0;
  int64_t first_start_ns = 0, last_end_ns = 0;  // the span of those dispatches
  bool operator==(const PassProcess&) const = default;
};

struct PassRank {
  int rank = 0;  // from 0, in the order of `agent`
  int64_t pid = 0;
  int64_t agent = 0;
  int64_t dispatches = 0;  // that process's dispatches on that agent
  bool operator==(const PassRank&) const = default;
};

// Every (process, agent) of pass `pass_id` with its dispatch count, ordered by pid then agent.
std::vector<PassProcess> pass_processes(CaptureDb& db, int64_t pass_id);

// The ranks of pass `pass_id`, ordered by rank; empty for a pass with no dispatch.
std::vector<PassRank> pass_ranks(CaptureDb& db, int64_t pass_id);

}  // namespace kprof::store
