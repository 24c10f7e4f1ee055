// The flags of a one-line profile, shared by `kprof run ... -- APP` and `kprof runbook
// --from-args`.
#pragma once

#include <utility>

#include "apps/kprof/command.hpp"
#include "core/runbook/one_line.hpp"

namespace kprof::app {

// Splits at the first "--": kprof's arguments, then the application's.
std::pair<Args, Args> split_at_dashes(const Args& args);

void add_one_line_options(po::options_description& opts);
bool has_one_line_options(const po::variables_map& vm);
runbook::OneLine one_line_from(const po::variables_map& vm, const Args& app, const Args& all,
                               bool simulate);

// `kprof run`'s runbook: the RUNBOOK positional, or the one-line profile after "--", whose runbook
// is written next to its database first (and the user told where). Throws Error(input) for both,
// neither, or one-line flags beside a runbook.
std::string runbook_for_run(const po::variables_map& vm, const Args& app, const Args& all,
                            bool simulate);

}  // namespace kprof::app
