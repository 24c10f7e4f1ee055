#include "core/exec/passes/rotation_preview.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/exec/passes/kernel_selection.hpp"
#include "core/store/analysis_reads.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::exec {

namespace {

std::string dims(int64_t x, int64_t y, int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

// The stored variants of a trace pass (kernel_variants: one row per kernel id, name, launch shape
// and resources) as the preview's variants: a name, its grid, workgroup, LDS, scratch and
// registers (not the kernel id, which differs between processes, nor dims_known). `counted` is
// asked once per distinct name, never per dispatch.
struct PreviewVariants {
  std::vector<RotationVariant> keys;        // the distinct preview variants, per_request 0
  std::unordered_map<int64_t, int> key_of;  // stored variant id -> keys index, -1 not counted
};

PreviewVariants stored_variants(store::CaptureDb& db, int64_t pass_id,
                                const KernelPredicate& counted) {
  using Registers = std::optional<int64_t>;
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, Registers, Registers, Registers>;
  PreviewVariants out;
  std::map<Key, int> index;
  std::unordered_map<std::string, bool> counted_name;
  store::for_each_kernel_variant(db, pass_id, [&](const store::KernelVariant& v) {
    const store::DispatchRow& d = v.shape;
    auto [c, fresh_name] = counted_name.emplace(d.kernel_name, false);
    if (fresh_name) c->second = counted(d.kernel_name);
    if (!c->second) {
      out.key_of[v.id] = -1;
      return;
    }
    // A variant: one launch configuration of a kernel (as `kprof query variants` defines it).
    const Key k{d.kernel_name, d.grid_x, d.grid_y,  d.grid_z, d.wg_x, d.wg_y,
                d.wg_z,        d.lds,    d.scratch, d.vgpr,   d.agpr, d.sgpr};
    auto [it, fresh] = index.emplace(k, static_cast<int>(out.keys.size()));
    if (fresh)
      out.keys.push_back(
          {d.kernel_name,
           "grid " + dims(d.grid_x, d.grid_y, d.grid_z) + ", wg " + dims(d.wg_x, d.wg_y, d.wg_z),
           0});
    out.key_of[v.id] = it->second;
  });
  return out;
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

KernelPredicate counted_kernels(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb) {
  // The run's kernels of interest, else the runbook's include/exclude regexes (rocprofv3 applies
  // them with regex_search to the name).
  std::set<std::string> selected;
  for (const auto& k : db.selected_kernels(run_id)) selected.insert(k.name);
  return [selected = std::move(selected),
          passes = kernel_regex_filter(rb.passes.counters.kernels)](const std::string& name) {
    if (!selected.empty()) return selected.count(name) > 0;
    return passes(name);
  };
}

RotationPreview rotation_on_run(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                size_t groups, const ProfilerVersion& version,
                                int64_t min_samples) {
  return rotation_on_run(db, run_id, rb, groups, version, min_samples,
                         counted_kernels(db, run_id, rb));
}

RotationPreview rotation_on_run(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                size_t groups, const ProfilerVersion& version, int64_t min_samples,
                                const KernelPredicate& counted) {
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
  const auto variant_of = stored_variants(db, trace->id, counted);
  // The trace in (pid, Dispatch_Id) order, the order the tool's rotation counter runs in (per
  // agent and process): a variant's index is its first counted appearance in it.
  plan::RotationRequest q;
  std::vector<int> index_of_key(variant_of.keys.size(), -1);
  std::vector<int64_t> counted_ids;
  for (const auto& [id, key] : variant_of.key_of)
    if (key >= 0) counted_ids.push_back(id);
  std::sort(counted_ids.begin(), counted_ids.end());
  store::for_each_variant_launch(db, trace->id, counted_ids, [&](int64_t variant) {
    const auto it = variant_of.key_of.find(variant);
    int& index = index_of_key[static_cast<size_t>(it->second)];
    if (index < 0) {
      index = static_cast<int>(p.variants.size());
      p.variants.push_back(variant_of.keys[static_cast<size_t>(it->second)]);
    }
    p.variants[static_cast<size_t>(index)].per_request += 1;
    q.sequence.push_back(index);
  });
  if (q.sequence.empty()) {
    p.unavailable = "the trace holds no dispatch of the kernels the counter passes count";
    return p;
  }
  // The trace's span from its per-process spans (pass_ranks.hpp), not from its rows.
  int64_t first = INT64_MAX, last = 0;
  for (const auto& proc : store::pass_processes(db, trace->id)) {
    first = std::min(first, proc.first_start_ns);
    last = std::max(last, proc.last_end_ns);
  }
  p.region_ns = last > first ? last - first : 0;
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
