#include "core/analysis/join/analysis_db.hpp"

#include <unistd.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

bool writable_database(const std::filesystem::path& db) {
  const std::filesystem::path dir = db.has_parent_path() ? db.parent_path() : ".";
  return ::access(db.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

std::string pass_files_fingerprint(store::CaptureDb& db, int64_t pass_id) {
  std::string text;
  for (const auto& f : db.ingest_files(pass_id))
    text += std::to_string(f.id) + " " + f.sha256 + " " + std::to_string(f.loaded_ms) + " " +
            std::to_string(f.rows_read) + "\n";
  return text;
}

void for_each_shape(store::CaptureDb& db, int64_t pass_id,
                    const std::function<void(int64_t, KernelShape, const std::string&)>& f) {
  store::for_each_kernel_variant(db, pass_id, [&](const store::KernelVariant& v) {
    const store::DispatchRow& r = v.shape;
    KernelShape s;
    s.kernel_id = r.kernel_id;
    s.grid[0] = r.grid_x, s.grid[1] = r.grid_y, s.grid[2] = r.grid_z;
    s.wg[0] = r.wg_x, s.wg[1] = r.wg_y, s.wg[2] = r.wg_z;
    s.lds = r.lds;
    s.scratch = r.scratch;
    s.vgpr = r.vgpr;
    s.agpr = r.agpr;
    s.sgpr = r.sgpr;
    f(v.id, s, r.kernel_name);
  });
}

StoredShapes read_stored_shapes(store::CaptureDb& db, PassData& pass, NameTable& names) {
  // Names are resolved once per variant (a few hundred), never per row.
  StoredShapes shape_of;
  for_each_shape(db, pass.pass_id, [&](int64_t id, KernelShape s, const std::string& name) {
    s.name = names.intern(name);
    shape_of.emplace(id, static_cast<uint32_t>(pass.shapes.size()));
    pass.shapes.push_back(s);
  });
  return shape_of;
}

StoredDispatchReader::StoredDispatchReader(store::CaptureDb& db, PassData& pass,
                                           const StoredShapes& shape_of)
    : m_db(db), m_pass(pass), m_shape_of(shape_of), m_rows(db, pass.pass_id) {}

bool StoredDispatchReader::next(Dispatch& d) {
  for (store::DispatchTiming r; m_rows.next(r);) {
    const auto shape = m_shape_of.find(r.variant_id);
    if (shape == m_shape_of.end()) continue;  // the foreign key forbids it
    d = Dispatch{};
    d.dispatch_id = r.dispatch_id;
    d.shape = shape->second;
    d.name = m_pass.shapes[d.shape].name;
    d.pid = detail::stored_pid(m_db, m_pass.ordinal, r.pid);
    const Lane lane{r.agent, r.queue_id};
    if (!(lane == m_last_lane)) {
      m_last_lane = lane;
      m_last_lane_index = m_pass.intern(lane);
    }
    d.lane = m_last_lane_index;
    d.start_ns = r.start_ns;
    d.end_ns = r.end_ns;
    return true;
  }
  return false;
}

void for_each_stored_dispatch(store::CaptureDb& db, PassData& pass, NameTable& names,
                              const std::function<void(const Dispatch&)>& f) {
  const StoredShapes shape_of = read_stored_shapes(db, pass, names);
  StoredDispatchReader rows(db, pass, shape_of);
  for (Dispatch d; rows.next(d);) f(d);
}

namespace {

// Reads a pass's launch configurations and then its narrow dispatch rows, reserved to the count
// so the vector is never reallocated (a grown vector holds up to twice its rows at the copy).
PassData load_pass(store::CaptureDb& db, const store::PassInfo& p, NameTable& names) {
  PassData out;
  out.pass_id = p.id;
  out.ordinal = static_cast<int>(p.ordinal);
  out.kind = p.kind;
  out.dispatches.reserve(static_cast<size_t>(store::dispatch_count(db, p.id)));
  for_each_stored_dispatch(db, out, names, [&](const Dispatch& d) { out.dispatches.push_back(d); });
  return out;
}

// The newest run whose trace pass holds dispatches: where a user who asked for the newest run, and
// found only counters there, can look (a folder of separate captures ingests as several runs).
std::optional<store::RunInfo> latest_traced_run(store::CaptureDb& db) {
  auto runs = db.list_runs();
  for (auto r = runs.rbegin(); r != runs.rend(); ++r)
    for (const auto& p : db.list_passes(r->id))
      if (p.kind == store::PassKind::trace && db.has_dispatches(p.id)) return *r;
  return std::nullopt;
}

}  // namespace

RunTrace find_run_trace(store::CaptureDb& db, std::optional<int64_t> run_id) {
  auto run = run_id ? db.find_run(*run_id) : db.find_last_run();
  if (!run) {
    throw Error::input(
        run_id ? "no run " + std::to_string(*run_id) + " in " + db.path().string()
               : "no run in " + db.path().string(),
        run_id ? "'kprof status DB' lists the runs" : "run 'kprof run' or 'kprof ingest' first");
  }
  RunTrace out;
  out.run = *run;
  out.passes = db.list_passes(run->id);
  const store::PassInfo* trace = nullptr;
  for (const auto& p : out.passes)
    if (p.kind == store::PassKind::trace && (!trace || p.ordinal < trace->ordinal)) trace = &p;
  const std::string run_text = "run " + std::to_string(run->id) + " ('" + run->name + "')";
  if (!trace) {
    const auto traced = latest_traced_run(db);
    throw Error::input(
        run_text + " has no trace pass, only counter passes",
        traced ? "the explanation needs a kernel trace; run " + std::to_string(traced->id) + " ('" +
                     traced->name + "') holds one: add '--run " + std::to_string(traced->id) +
                     "' (or load a trace into this run with 'kprof ingest DB FILE --run \"" +
                     run->name + "\"')"
               : "the explanation needs a kernel trace (rocprofv3 --kernel-trace; passes.trace in "
                 "a runbook): load one into this run with 'kprof ingest DB FILE --run \"" +
                     run->name + "\"'");
  }
  out.trace = *trace;
  return out;
}

void no_dispatches(store::CaptureDb& db, const store::RunInfo& run, int64_t trace_pass_id) {
  std::set<std::string> kinds;
  for (const auto& f : db.ingest_files(trace_pass_id)) kinds.insert(f.kind);
  throw Error::input(
      "the trace pass of run " + std::to_string(run.id) + " ('" + run.name +
          "') holds no kernel dispatches" +
          (kinds.empty()
               ? std::string()
               : " (it holds " + join(std::vector<std::string>(kinds.begin(), kinds.end()), ", ") +
                     ", but no kernel_trace.csv)"),
      "the explanation needs per-dispatch kernel trace rows (rocprofv3 --kernel-trace): ingest "
      "one into this run with 'kprof ingest DB FILE --run \"" +
          run.name + "\"'");
}

void load_counter_rows(store::CaptureDb& db, Capture& cap) {
  if (cap.counter_rows) return;
  for (const auto& p : cap.passes) {
    if (p.kind != store::PassKind::counters) continue;
    auto pd = load_pass(db, p, cap.names);
    if (!pd.dispatches.empty()) cap.counters.push_back(std::move(pd));
  }
  cap.counter_rows = true;
}

RunTrace run_trace_of(const Capture& cap) {
  RunTrace rt;
  rt.run = cap.run;
  rt.passes = cap.passes;
  for (const auto& p : cap.passes)
    if (p.id == cap.trace.pass_id) rt.trace = p;
  return rt;
}

Capture load_capture(store::CaptureDb& db, std::optional<int64_t> run_id, bool counter_rows) {
  Capture cap;
  RunTrace rt = find_run_trace(db, run_id);
  cap.run = std::move(rt.run);
  cap.passes = std::move(rt.passes);
  const store::PassInfo* trace = &rt.trace;
  cap.trace = load_pass(db, *trace, cap.names);
  if (cap.trace.dispatches.empty()) no_dispatches(db, cap.run, trace->id);
  cap.counter_rows = false;
  if (counter_rows) load_counter_rows(db, cap);
  const detail::GpuAgent gpu =
      detail::gpu_agent(db, trace->id, cap.trace.agent(cap.trace.dispatches.front()));
  cap.arch = gpu.arch;
  cap.product = gpu.product;
  if (gpu.wave_size > 0) cap.wave_size = static_cast<int>(gpu.wave_size);
  return cap;
}

namespace detail {

int32_t stored_pid(store::CaptureDb& db, int ordinal, int64_t pid) {
  if (pid < INT32_MIN || pid > INT32_MAX) {
    throw Error::input("pass " + std::to_string(ordinal) + " of " + db.path().string() +
                           " holds Process_Id " + std::to_string(pid) +
                           ", which no Linux process has (pid_max is at most 2^22)",
                       "re-ingest the pass from the profiler's own output files");
  }
  return static_cast<int32_t>(pid);
}

GpuAgent gpu_agent(store::CaptureDb& db, int64_t pass_id, int64_t agent) {
  GpuAgent out;
  for (const auto& a : db.agents(pass_id)) {
    if (a.type != "GPU") continue;
    if (a.logical_node_id == agent || a.node_id == agent || out.arch.empty()) {
      out.arch = a.name;
      out.product = a.product_name;
      if (a.wave_front_size > 0) out.wave_size = a.wave_front_size;
    }
  }
  return out;
}

}  // namespace detail

RunCounts run_counts(const Capture& cap) {
  RunCounts out;
  out.trace = {cap.trace.pass_id, cap.trace.ordinal,
               static_cast<int64_t>(cap.trace.dispatches.size())};
  for (const auto& c : cap.counters)
    out.counters.push_back({c.pass_id, c.ordinal, static_cast<int64_t>(c.dispatches.size())});
  return out;
}

RunCounts run_counts(store::CaptureDb& db, const RunTrace& rt) {
  // The narrow rows, as load_pass counts them.
  auto count = [&](int64_t pass_id) { return store::dispatch_count(db, pass_id); };
  RunCounts out;
  out.trace = {rt.trace.id, rt.trace.ordinal, count(rt.trace.id)};
  // list_passes returns them by ordinal, as load_capture keeps them.
  for (const auto& p : rt.passes)
    if (p.kind == store::PassKind::counters)
      if (const int64_t k = count(p.id); k > 0) out.counters.push_back({p.id, p.ordinal, k});
  return out;
}

}  // namespace kprof::analysis
