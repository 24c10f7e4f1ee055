// The text `kprof ingest` prints for an IngestReport (ingest_capture.hpp): each run and pass with
// its files' rows read and rejected, the notes on how inputs were split, skipped files, and the
// count of bad rows skipped.
#pragma once

#include <cstddef>
#include <string>

#include "core/exec/usecases/ingest_capture.hpp"

namespace kprof::exec {

// `db` as the user wrote it; tables at most `width` columns wide (0 = no limit).
std::string ingest_text(const IngestReport& report, const std::string& db, size_t width);

}  // namespace kprof::exec
