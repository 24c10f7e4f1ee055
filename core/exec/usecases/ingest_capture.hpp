// The ingest use case (`kprof ingest`): rocprofv3 outputs captured by hand or on another machine
// into a capture database, each file in the pass its kind and its invocation decide
// (core/ingest/ingest_plan.hpp), in ONE transaction: a broken file anywhere leaves the database as
// it was. Nothing already loaded is lost or silently replaced:
//   - a file joins the pass it belongs to with the files already there (they are read again, so a
//     pass stays exactly the rows of its files): a hip_api_trace added to a run keeps its trace;
//   - a counter file not yet in the run is a new counter pass (next ordinal);
//   - loading a second, different kernel trace into a run's trace pass, or other files into an
//     existing pass_N, needs `replace`, and the report says what was replaced;
//   - the same files again reload the same passes (idempotent).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ingest/ingest_plan.hpp"
#include "core/ingest/read_options.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct IngestRequest {
  std::filesystem::path db;
  std::vector<std::string> inputs;
  std::optional<std::string> run_name;         // --run; default "ingest:<first input's name>"
  std::optional<store::PassKind> forced_kind;  // --pass-kind (parse_pass_kind_option)
  bool replace = false;                        // --replace
  ingest::ReadOptions read;
};

struct IngestedPass {
  int64_t ordinal = 0;
  store::PassKind kind = store::PassKind::trace;
  std::string folder;  // where its files are
  std::string action;  // "" (new pass), or what happened to the pass that was there
  std::vector<ingest::FileResult> files;
};

struct IngestedRun {
  int64_t id = 0;
  std::string name;
  bool simulated = false;
  std::vector<IngestedPass> passes;
};

struct IngestReport {
  std::vector<IngestedRun> runs;
  std::vector<std::string> notes;    // how the inputs were split into runs and passes
  std::vector<std::string> skipped;  // files that are no format kprof reads
  int64_t rejected = 0;              // bad rows skipped (counted in ingest_stats)
};

// The user's --pass-kind word, read once: trace or counters; any other word is an Error (input)
// naming the two.
store::PassKind parse_pass_kind_option(std::string_view text);

// Throws kprof::Error (input) for bad input or a refused replacement; the database is then as it
// was (a database file this call created is removed again).
IngestReport ingest_capture(const IngestRequest& request);

}  // namespace kprof::exec
