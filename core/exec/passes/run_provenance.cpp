#include "core/exec/passes/run_provenance.hpp"

#include "core/exec/profiler/rocprofv3_version.hpp"

namespace kprof::exec {

store::RunProvenance provenance_of(const ProfilerBackend& backend) {
  store::RunProvenance p;
  p.simulated = backend.simulated();
  p.profiler_path = backend.executable();
  const std::string& release = backend.version().release;
  p.profiler_release = release.empty() ? store::k_unknown_provenance : release;
  return p;
}

std::optional<store::RunProvenance> stored_provenance(store::CaptureDb& db, int64_t run_id) {
  auto p = db.run_provenance(run_id);
  if (!p || p->profiler_release != store::k_unknown_provenance) return p;
  const auto run = db.find_run(run_id);
  if (run && !run->profiler_version.empty()) {
    const std::string release = parse_rocprofv3_version(run->profiler_version).release;
    if (!release.empty()) p->profiler_release = release;
  }
  return p;
}

}  // namespace kprof::exec
