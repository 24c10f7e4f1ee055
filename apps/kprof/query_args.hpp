// The flags of `kprof query` (its views, filters, --sql, the runbook's hints) and the help that
// lists the views: cmd_query.cpp parses them, calls the query use case and prints.
#pragma once

#include <string>

#include "apps/kprof/command.hpp"
#include "apps/kprof/table_args.hpp"
#include "core/analysis/views/query.hpp"

namespace kprof::app {

// Binds every option of `kprof query` (the table flags too); --sql goes to `sql` (empty: a view).
void add_query_options(po::options_description& opts, analysis::QueryArgs& q, std::string& sql,
                       TableFlags& table);

// The positionals: DB, the view, and explain's FAMILY.
po::positional_options_description query_positionals();

// `kprof query --help` under the options: each view in a line, and examples.
extern const char* const k_query_help;

}  // namespace kprof::app
