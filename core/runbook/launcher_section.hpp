// Internal to core/runbook: the `launcher:` map (runbook.hpp, struct Launcher).
#pragma once

#include "core/runbook/runbook.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook::detail {

// Reads `launcher:` into `out`, recording every problem with its position in `reader`.
void parse_launcher(Reader& reader, const Entry& entry, Launcher& out);

}  // namespace kprof::runbook::detail
