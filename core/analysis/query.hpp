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

#include "core/analysis/session.hpp"
#include "core/analysis/table.hpp"
#include "core/analysis/views.hpp"

namespace kprof::analysis {

struct QueryRequest {
  std::filesystem::path db;
  std::string view;                // one of view_names(); unused with `sql`
  std::optional<std::string> sql;  // one SELECT instead of a view (store/user_query.hpp)
  std::chrono::milliseconds timeout = std::chrono::seconds(60);  // of the SELECT
  SessionOptions session;                                        // the run, hints, --force-join
  ViewOptions options;                                           // family, phase, limit
};

struct QueryResult {
  Table table;
  std::vector<std::string> joins;  // join_note() of each join this query computed and stored
  std::vector<std::string> notes;  // for the user ("the run's runbook does not load here ...")
};

// The user's --phase word, read once: none for "", else the Phase it names. Throws Error(input)
// naming the allowed values (phase_choices()) for any other word.
std::optional<Phase> parse_phase_option(std::string_view text);

// Throws Error(input) for a missing or unknown view (with the nearest name and the list), and as
// QuerySession::open and sql_table do.
QueryResult run_query(const QueryRequest& request);

}  // namespace kprof::analysis
