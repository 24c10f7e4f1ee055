// Views of a planned runbook (runbook_plan.hpp): the JSON `kprof plan --format json` prints, and
// the text it prints on a terminal or into a log.
#pragma once

#include <cstddef>
#include <string>

#include "core/exec/usecases/runbook_plan.hpp"

namespace kprof::exec {

// One JSON object (2-space indented, newline-terminated): the counter plan's figures, every
// pass's command, env, output folder and log, the counter passes with events and block
// occupancy, the kernel filter decided after the trace, the rotation preview, the GPU slots.
std::string plan_json(const RunbookPlan& p);

// The same for a reader: long lines wrapped at `width` columns (0 = no wrap), commands with " \"
// so that they still paste into a shell.
std::string plan_text(const RunbookPlan& p, size_t width);

}  // namespace kprof::exec
