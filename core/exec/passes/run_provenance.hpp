// A run's provenance (store/run_provenance.hpp), decided once when `kprof run` starts, from the
// backend that runs every pass, and stored with the run in the transaction that records it. Readers
// (resume, status, reports) take it from the database: nothing guesses it again from an
// executable's or a GPU product's name.
#pragma once

#include <cstdint>

#include "core/exec/profiler/profiler_backend.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/run_provenance.hpp"

namespace kprof::exec {

// Simulated or measured, the executable every pass starts, and the rocprofv3 release whose option
// table builds the commands ('unknown' when the profiler's version did not say).
store::RunProvenance provenance_of(const ProfilerBackend& backend);

// Run `run_id`'s provenance as stored. A run recorded before schema 8 has 'unknown' profiler and
// release; its release is read from the profiler version it recorded when that names one.
// nullopt for no such run.
std::optional<store::RunProvenance> stored_provenance(store::CaptureDb& db, int64_t run_id);

}  // namespace kprof::exec
