// The run a reading command opens: the DB positional and --run, shared by `kprof report` and
// `kprof export` (`query` has its own in query_args.hpp, checked by its use case).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apps/kprof/command.hpp"
#include "core/analysis/views/session.hpp"

namespace kprof::app {

struct RunFlags {
  std::string db;
  int64_t run = 0;  // 0: the latest run
  std::optional<int64_t> run_id() const;
};

// Adds --db (also the first positional, see run_positionals) and --run.
void add_run_options(po::options_description& opts, RunFlags& flags);
po::positional_options_description run_positionals();

// Opens the query session of the run. Throws Error(input) "missing capture database" with
// `usage` as the fix when no DB was given, and as QuerySession::open does.
// `bounded`: SessionOptions::bounded (a command that reads only bounded_view()'s views).
analysis::QuerySession open_run(const RunFlags& flags, const std::string& usage,
                                bool bounded = false);

}  // namespace kprof::app
