// A run's outline found from the database in bounded memory (run_outline.hpp
// compute_outline_bounded): what a first `kprof export --perfetto` needs, without the capture.
// Every query reads dispatch_rows through the index dispatches_by_key (pass_id, pid, dispatch_id)
// (core/store/schema/0005_kernel_variants.sql), so no query sorts.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <climits>
#include <optional>
#include <unordered_map>

#include "core/analysis/run_outline.hpp"

namespace kprof::analysis {
namespace {

// The launch configurations of a pass, as load_capture reads them: the rows it keeps are those
// whose variant the pass has (the foreign key makes that every row).
struct PassShapes {
  PassData pass;                                   // shapes only
  std::unordered_map<int64_t, uint32_t> shape_of;  // kernel_variants.id -> pass.shapes index
};

PassShapes pass_shapes(store::CaptureDb& db, const PassCount& pc, const char* kind,
                       NameTable& names) {
  PassShapes out;
  out.pass.pass_id = pc.pass_id;
  out.pass.ordinal = static_cast<int>(pc.ordinal);
  out.pass.kind = kind;
  for_each_shape(db, pc.pass_id, [&](int64_t id, KernelShape s, const std::string& name) {
    s.name = names.intern(name);
    out.shape_of.emplace(id, static_cast<uint32_t>(out.pass.shapes.size()));
    out.pass.shapes.push_back(s);
  });
  return out;
}

// A pass's count, clock and reorder window from its starts, read once in (pid, Dispatch_Id) order.
OutlinePass bounded_pass(store::CaptureDb& db, const PassCount& pc, const PassShapes& shapes,
                         size_t memory_bytes) {
  SQLite::Statement q(db.sql(),
                      "SELECT pid, start_ns, variant_id FROM dispatch_rows WHERE pass_id = ? "
                      "ORDER BY pid, dispatch_id");
  q.bind(1, pc.pass_id);
  SpillVector<int64_t> starts(memory_bytes);
  std::vector<size_t> process_begins;
  int64_t base = INT64_MAX, pid = 0;
  while (q.executeStep()) {
    if (!shapes.shape_of.count(q.getColumn(2).getInt64())) continue;
    const int64_t p = q.getColumn(0).getInt64(), start = q.getColumn(1).getInt64();
    if (process_begins.empty() || p != pid) process_begins.push_back(starts.size());
    pid = p;
    starts.push_back(start);
    base = std::min(base, start);
  }
  return {pc.pass_id, pc.ordinal, static_cast<int64_t>(starts.size()), base == INT64_MAX ? 0 : base,
          static_cast<int64_t>(reorder_window(starts, process_begins))};
}

}  // namespace

RunOutline compute_outline_bounded(store::CaptureDb& db, const RunTrace& rt,
                                   const RunCounts& counts, size_t memory_bytes) {
  auto& sql = db.sql();
  NameTable names;
  PassShapes trace = pass_shapes(db, counts.trace, "trace", names);
  const int64_t tp = counts.trace.pass_id;

  // The main stream: the (pid, agent) with the most dispatches, the first in (pid, agent) order on
  // a tie, as detect_phases(const PassData&) chooses it.
  struct Stream {
    int64_t pid = 0, agent = 0, size = 0;
  };
  std::optional<Stream> main;
  int64_t main_pid_size = 0;
  {
    SQLite::Statement q(sql,
                        "SELECT pid, agent, count(*) FROM dispatch_rows WHERE pass_id = ? "
                        "GROUP BY pid, agent ORDER BY pid, agent");
    q.bind(1, tp);
    std::vector<Stream> all;
    while (q.executeStep()) {
      const Stream s{
          detail::stored_pid(db, static_cast<int>(counts.trace.ordinal), q.getColumn(0).getInt64()),
          q.getColumn(1).getInt64(), q.getColumn(2).getInt64()};
      all.push_back(s);
      if (!main || s.size > main->size) main = s;
    }
    for (const auto& s : all)
      if (main && s.pid == main->pid) main_pid_size += s.size;
  }
  if (!main) no_dispatches(db, rt.run, tp);

  // Its dispatches in Dispatch_Id order, and the process's ids on other agents (not missing).
  const bool other_agents = main_pid_size > main->size;
  MainStream order(SpillVector<Dispatch>{memory_bytes});
  SpillVector<int64_t> process_ids(other_agents ? memory_bytes : 0);
  {
    SQLite::Statement q(sql,
                        "SELECT dispatch_id, variant_id, agent, queue_id, start_ns, end_ns FROM "
                        "dispatch_rows WHERE pass_id = ? AND pid = ? ORDER BY dispatch_id");
    q.bind(1, tp);
    q.bind(2, main->pid);
    Lane last_lane{-1, -1};
    uint32_t last_lane_index = 0;
    while (q.executeStep()) {
      const auto shape = trace.shape_of.find(q.getColumn(1).getInt64());
      if (shape == trace.shape_of.end()) continue;
      Dispatch d;
      d.dispatch_id = q.getColumn(0).getInt64();
      if (other_agents) process_ids.push_back(d.dispatch_id);
      const Lane lane{q.getColumn(2).getInt64(), q.getColumn(3).getInt64()};
      if (lane.agent != main->agent) continue;
      d.shape = shape->second;
      d.name = trace.pass.shapes[d.shape].name;
      d.pid = static_cast<int32_t>(main->pid);
      if (!(lane == last_lane)) {
        last_lane = lane;
        last_lane_index = trace.pass.intern(lane);
      }
      d.lane = last_lane_index;
      d.start_ns = q.getColumn(4).getInt64();
      d.end_ns = q.getColumn(5).getInt64();
      order.push_back(d);
    }
  }
  const PhaseModel pm =
      detect_phases(trace.pass, std::move(order), std::move(process_ids), &names, memory_bytes);

  RunOutline ro;
  ro.main_pid = pm.main_pid;
  ro.main_agent = pm.main_agent;
  ro.segments = outline_segments(pm);
  ro.trace = bounded_pass(db, counts.trace, trace, memory_bytes);
  for (const auto& c : counts.counters) {
    const PassShapes shapes = pass_shapes(db, c, "counters", names);
    ro.counters.push_back(bounded_pass(db, c, shapes, memory_bytes));
  }
  // The GPU agent, as load_capture picks it: the trace's first dispatch's (pid, Dispatch_Id order).
  SQLite::Statement first(sql,
                          "SELECT agent FROM dispatch_rows WHERE pass_id = ? "
                          "ORDER BY pid, dispatch_id LIMIT 1");
  first.bind(1, tp);
  const int64_t agent = first.executeStep() ? first.getColumn(0).getInt64() : 0;
  const detail::GpuAgent gpu = detail::gpu_agent(db, tp, agent);
  ro.arch = gpu.arch;
  ro.product = gpu.product;
  return ro;
}

}  // namespace kprof::analysis
