// What a query needs of a run's runbook, as the capture database keeps it (schema 9,
// 0009_runbook_hints.sql): core/exec takes it from the parsed runbook when the run is recorded
// (core/exec/passes/runbook_hints.hpp); analysis reads it back instead of parsing the runbook text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::store {

struct StoredFamilyRule {
  std::string match;   // the regex
  std::string family;  // the family it names
  SourcePos pos;       // where the runbook wrote the regex
  bool operator==(const StoredFamilyRule& o) const {
    return match == o.match && family == o.family && pos.file == o.pos.file &&
           pos.line == o.pos.line && pos.col == o.pos.col;
  }
};

struct RunbookHints {
  std::optional<int> layers, output_tokens;    // analysis.layers, analysis.output_tokens
  std::optional<int> ranks;                    // workload.ranks (schema 10); nullopt: not said
  std::vector<StoredFamilyRule> family_rules;  // analysis.families, in order
  std::vector<std::string> metric_sets;        // passes.counters.metric_sets, in order
  bool operator==(const RunbookHints&) const = default;
};

class CaptureDb;

// Records run `run_id`'s hints in one transaction, replacing any it had. Throws Error(runtime) for
// a run that is not in the database.
void store_runbook_hints(CaptureDb& db, int64_t run_id, const RunbookHints& hints);

// The hints recorded for run `run_id`; nullopt for a run recorded before schema 9 (or made by a
// command that had no runbook), whose readers fall back to the runbook text.
std::optional<RunbookHints> runbook_hints(CaptureDb& db, int64_t run_id);

}  // namespace kprof::store
