// Internal to core/runbook: the `launcher:` map (runbook.hpp, struct Launcher).
#pragma once

#include "core/runbook/runbook.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook::detail {

// Reads `launcher:` into `out`, recording every problem with its position in `reader`.
void parse_launcher(Reader& reader, const Entry& entry, Launcher& out);

// What to do instead of an sbatch option kprof writes itself; nullopt for any other.
std::optional<std::string> owned_option(const std::string& arg);

}  // namespace kprof::runbook::detail
