// GCC 12's -Wmaybe-uninitialized misfires inside std::regex (see core/sim/stream.cpp).
#if !defined(__clang__)  // clang has no such warning (the ASan build is clang)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "core/exec/passes/rotation_preview.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "core/store/capture_db.hpp"

namespace kprof::exec {

namespace {

std::string dims(int64_t x, int64_t y, int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

RotationPreview preview_rotation(const std::filesystem::path& db_path, const runbook::Runbook& rb,
                                 size_t groups, const ProfilerVersion& version,
                                 int64_t min_samples) {
  RotationPreview p;
  p.groups = groups;
  p.min_samples = min_samples;
  // pmc_groups / pmc_group_interval arrived with rocprofiler-sdk 1.0.0 (ROCm 7.0), like rocpd
  // (ROCm/rocm-systems projects/rocprofiler-sdk/CHANGELOG.md, 1.0.0).
  if (!version.has_rocpd()) {
    p.unavailable = "rocprofv3 before ROCm 7.0 has no pmc_groups: application replay only";
    return p;
  }
  if (groups < 2) {
    p.unavailable = "one counter pass: nothing to rotate";
    return p;
  }
  if (!std::filesystem::exists(db_path)) {
    p.unavailable = "no trace yet: run the trace pass first (kprof run), then plan again";
    return p;
  }
  store::CaptureDb db(db_path, store::OpenMode::read_only);
  const auto run = db.find_last_run();
  if (!run) {
    p.unavailable = "the database's last run has no finished trace pass";
    return p;
  }
  return rotation_on_run(db, run->id, rb, groups, version, min_samples);
}

RotationPreview rotation_on_run(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                size_t groups, const ProfilerVersion& version,
                                int64_t min_samples) {
  RotationPreview p;
  p.groups = groups;
  p.min_samples = min_samples;
  std::optional<store::PassInfo> trace;
  for (const auto& pass : db.list_passes(run_id))
    if (pass.kind == store::PassKind::trace && pass.state == store::PassState::done) {
      trace = pass;
      p.trace_run = run_id;
    }
  if (!trace) {
    p.unavailable = "the database's last run has no finished trace pass";
    return p;
  }
  // The dispatches the rotated pass would count: the run's kernels of interest, else the
  // runbook's include/exclude regexes (rocprofv3 applies them with regex_search to the name).
  std::set<std::string> selected;
  for (const auto& k : db.selected_kernels(p.trace_run)) selected.insert(k.name);
  const auto& ks = rb.passes.counters.kernels;
  std::optional<std::regex> include, exclude;
  if (ks.include_regex.value) include.emplace(*ks.include_regex.value);
  if (ks.exclude_regex.value) exclude.emplace(*ks.exclude_regex.value);
  const auto counted = [&](const std::string& name) {
    if (!selected.empty()) return selected.count(name) > 0;
    if (include && !std::regex_search(name, *include)) return false;
    return !(exclude && std::regex_search(name, *exclude));
  };
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t>;
  struct Seen {
    int64_t pid, dispatch_id;
    int variant;
  };
  std::map<Key, int> index;
  std::vector<Seen> seen;
  int64_t first = INT64_MAX, last = 0;
  db.for_each_dispatch(trace->id, [&](const store::DispatchRow& d) {
    first = std::min(first, d.start_ns);
    last = std::max(last, d.end_ns);
    if (!counted(d.kernel_name)) return;
    // A variant: one launch configuration of a kernel (as `kprof query variants` defines it).
    const Key k{d.kernel_name,
                d.grid_x,
                d.grid_y,
                d.grid_z,
                d.wg_x,
                d.wg_y,
                d.wg_z,
                d.lds,
                d.scratch,
                d.vgpr.value_or(-1),
                d.agpr.value_or(-1),
                d.sgpr.value_or(-1)};
    auto [it, fresh] = index.emplace(k, static_cast<int>(index.size()));
    if (fresh)
      p.variants.push_back(
          {d.kernel_name,
           "grid " + dims(d.grid_x, d.grid_y, d.grid_z) + ", wg " + dims(d.wg_x, d.wg_y, d.wg_z),
           0});
    p.variants[static_cast<size_t>(it->second)].per_request += 1;
    seen.push_back({d.pid, d.dispatch_id, it->second});
  });
  if (seen.empty()) {
    p.unavailable = "the trace holds no dispatch of the kernels the counter passes count";
    return p;
  }
  p.region_ns = last > first ? last - first : 0;
  // The tool's rotation counter runs in dispatch order, per agent and process.
  std::sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) {
    return std::tie(a.pid, a.dispatch_id) < std::tie(b.pid, b.dispatch_id);
  });
  plan::RotationRequest q;
  for (const auto& s : seen) q.sequence.push_back(s.variant);
  q.variants = p.variants.size();
  q.groups = groups;
  q.min_samples = min_samples;
  // A tool that keeps counting outside --selected-regions (ROCm 7.0 to 7.2) has advanced the
  // counter over the warm-up by an amount the trace does not show.
  p.phase_known = !rb.profiler.selected_regions.value || version.regions_pause_counters();
  q.phase_known = p.phase_known;
  p.choice = plan::choose_rotation(q);
  return p;
}

}  // namespace kprof::exec
