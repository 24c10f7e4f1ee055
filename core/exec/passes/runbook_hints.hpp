// What a query needs of a run's runbook (store/runbook_hints.hpp), taken from the parsed runbook
// once, when `kprof run` records the run or `kprof ingest` loads a batch script's passes, so that
// queries read rows instead of parsing the runbook text on a machine where its paths may not hold.
#pragma once

#include "core/runbook/runbook.hpp"
#include "core/store/runbook_hints.hpp"

namespace kprof::exec {

store::RunbookHints runbook_hints_of(const runbook::Runbook& rb);

}  // namespace kprof::exec
