// The use case of `kprof query`: one named view of a run (streamed when it needs no trace model,
// else through a QuerySession that joins stale counter passes first), or one read-only SELECT.
// Returns the table and what the caller should tell the user; printing is the caller's.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/views/session.hpp"
#include "core/analysis/views/table.hpp"
#include "core/analysis/views/views.hpp"

namespace kprof::analysis {

struct QueryRequest {
  std::filesystem::path db;
  std::string view;                // one of view_names(); unused with `sql`
  std::optional<std::string> sql;  // one SELECT instead of a view (store/user_query.hpp)
  std::chrono::milliseconds timeout = std::chrono::seconds(60);  // of the SELECT
  SessionOptions session;                                        // the run, hints, --force-join
  ViewOptions options;                                           // family, phase, limit
  // `roofline`, `metrics`: every row and column in the terminal form too (compact_views.hpp).
  bool all = false;
};

struct QueryResult {
  Table table;
  std::vector<std::string> joins;  // join_note() of each join this query computed and stored
  std::vector<std::string> notes;  // for the user ("the run's runbook does not load here ...")
};

// The words of `kprof query`'s command line, before they are checked.
struct QueryArgs {
  std::string db, view;
  std::string family_arg;  // explain FAMILY (the positional form of --family)
  std::string family, phase;
  std::vector<std::string> metric_sets;  // --metric-set (the metric_sets view)
  std::optional<std::string> sql;
  std::string timeout = "60s";                                      // --sql's
  int64_t limit = 0, run = 0, expect_layers = 0, expect_steps = 0;  // 0: not given
  bool force_join = false;
  bool structured = false;  // machine output (explain: one row per term)
  bool all = false;         // --all: the counter views whole (compact_views.hpp)
};

// The checked request: a database, at most one family (FAMILY or --family, equal if both), a view
// or --sql (not both), a positive --timeout duration, a known phase. Throws Error(input) with the
// fix otherwise.
QueryRequest query_request(const QueryArgs& a);

// The user's --phase word, read once: none for "", else the Phase it names. Throws Error(input)
// naming the allowed values (phase_choices()) for any other word.
std::optional<Phase> parse_phase_option(std::string_view text);

// Throws Error(input) for a missing or unknown view (with the nearest name and the list), and as
// QuerySession::open and sql_table do.
QueryResult run_query(const QueryRequest& request);

}  // namespace kprof::analysis
