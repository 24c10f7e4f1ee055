// `kprof ingest` of pass folders that hold the manifests a batch script's tasks wrote
// (pass_manifest.hpp): the one run `kprof run` would have recorded, each pass loaded as its driver
// loads it (pass_ingest.hpp: ingest_attempt, the same region cut, judge_capture), so counter
// passes join the trace whatever the output format.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/exec/usecases/ingest_capture.hpp"

namespace kprof::exec {

// Loads into `db` inside the caller's transaction. `inputs` are the absolute paths given;
// `manifests` the manifests found under them. Throws Error(input) for manifests of different runs
// or runbooks, a pass given twice, capture files outside every manifest's folder, --pass-kind,
// and a run of that name recorded from another runbook.
IngestedRun ingest_manifest_run(store::CaptureDb& db, const IngestRequest& request,
                                const std::vector<std::string>& inputs,
                                const std::vector<std::filesystem::path>& manifests,
                                std::vector<std::string>& notes);

}  // namespace kprof::exec
