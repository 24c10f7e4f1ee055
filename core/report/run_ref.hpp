// A run named on the command line ("out/a.db" or "out/a.db:3", parse_run_ref), opened: what
// `kprof compare A B` and `kprof report --baseline` both start from.
#pragma once

#include <string>

#include "core/analysis/views/session.hpp"
#include "core/report/compare.hpp"

namespace kprof::report {

struct OpenedRun {
  analysis::QuerySession session;
  std::string label;               // "out/a.db run 3": the database as written, the run's id
  std::vector<std::string> joins;  // join_note() of each join opening it computed
};

// Throws Error(input) as parse_run_ref and QuerySession::open do.
OpenedRun open_run_ref(const std::string& text);

// Opens both and compares them (compare_runs, A's label first).
struct RefComparison {
  Comparison comparison;
  std::vector<std::string> joins;  // A's, then B's
};
RefComparison compare_run_refs(const std::string& a, const std::string& b,
                               const CompareOptions& options);

}  // namespace kprof::report
