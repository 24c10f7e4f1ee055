// The normalised view `kprof validate` prints: every key of schema v1 with its effective value,
// in documentation order, each marked with where it was written or as a default.
#pragma once

#include <string>

#include "core/runbook/runbook.hpp"

namespace kprof::runbook {

// YAML-shaped text, one key per line; a comment after each value says "line:col" or "default".
std::string format_normalized(const Runbook& rb);

}  // namespace kprof::runbook
