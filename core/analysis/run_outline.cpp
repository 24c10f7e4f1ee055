// The stored run outline (run_outline.hpp): computed from a phase model, written and read back.
#include "core/analysis/run_outline.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <climits>

namespace kprof::analysis {
namespace {

// Bumped whenever phase detection or what is stored changes its results: a stored outline of
// another version is computed again rather than trusted. 3: segment starts are a running maximum
// (outline_segments), so version 2's stored segments, whose starts could go back, are recomputed.
constexpr int64_t k_outline_version = 3;

// Whether the outline tables are absent or have this kprof's columns and version only.
bool layout_current(SQLite::Database& sql) {
  static const char* const k_layout[][2] = {
      {"analysis_outline", "trace_pass_id,version,arch,product,main_pid,main_agent"},
      {"analysis_outline_passes", "trace_pass_id,pass_id,dispatches,base_ns,reorder_window,files"},
      {"analysis_outline_segments",
       "trace_pass_id,first_id,phase,step,start_ns,end_ns,dispatches,window_no"}};
  bool any = false;
  for (const auto& [table, columns] : k_layout) {
    SQLite::Statement q(sql, "SELECT group_concat(name, ',') FROM pragma_table_info(?)");
    q.bind(1, table);
    q.executeStep();
    if (q.getColumn(0).isNull()) continue;  // no such table
    any = true;
    if (q.getColumn(0).getString() != columns) return false;
  }
  if (!any) return true;
  // Finalized on return, before any DROP (a pending statement makes it fail: SQLITE_LOCKED).
  SQLite::Statement other(sql, "SELECT 1 FROM analysis_outline WHERE version <> ? LIMIT 1");
  other.bind(1, k_outline_version);
  return !other.executeStep();
}

std::optional<OutlinePass> stored_pass(store::CaptureDb& db, int64_t trace_pass_id,
                                       const PassCount& want) {
  SQLite::Statement q(db.sql(),
                      "SELECT dispatches, base_ns, reorder_window, files FROM "
                      "analysis_outline_passes WHERE trace_pass_id = ? AND pass_id = ?");
  q.bind(1, trace_pass_id);
  q.bind(2, want.pass_id);
  if (!q.executeStep() || q.getColumn(0).getInt64() != want.dispatches ||
      q.getColumn(3).getString() != pass_files_fingerprint(db, want.pass_id))
    return std::nullopt;
  return OutlinePass{want.pass_id, want.ordinal, want.dispatches, q.getColumn(1).getInt64(),
                     q.getColumn(2).getInt64()};
}

// The reorder window of one process's starts in Dispatch_Id order, start_at(i) for i in [0, n):
// the most earlier starts greater than one start. A sorted list holds the earlier starts that
// some later start may still be below: a start at or below every later one can never count again
// and is dropped. So the list never holds more than the window itself (when the smallest later
// start comes, every start in the list is greater than it), and memory is that, a block of starts
// and one minimum per block, whatever n is. The minimum of all later starts is the block's own
// suffix minimum, then the minimum of the blocks after it (found in a first pass).
template <class StartAt>
size_t process_window(size_t n, const StartAt& start_at) {
  constexpr size_t k_block = size_t{1} << 16;
  const size_t blocks = (n + k_block - 1) / k_block;
  std::vector<int64_t> later_blocks_min(blocks + 1, INT64_MAX);
  for (size_t c = blocks; c-- > 0;) {
    int64_t m = later_blocks_min[c + 1];
    for (size_t i = c * k_block; i < std::min(n, (c + 1) * k_block); ++i)
      m = std::min(m, start_at(i));
    later_blocks_min[c] = m;
  }
  size_t window = 0;
  std::vector<int64_t> live;  // sorted; live[head, end) are the earlier starts kept
  size_t head = 0;
  std::vector<int64_t> block, later_min;
  for (size_t c = 0; c < blocks; ++c) {
    const size_t b = c * k_block, len = std::min(n, b + k_block) - b;
    block.resize(len);
    for (size_t j = 0; j < len; ++j) block[j] = start_at(b + j);
    later_min.assign(len + 1, later_blocks_min[c + 1]);
    for (size_t j = len; j-- > 0;) later_min[j] = std::min(block[j], later_min[j + 1]);
    for (size_t j = 0; j < len; ++j) {
      const auto at =
          std::upper_bound(live.begin() + static_cast<long>(head), live.end(), block[j]);
      window = std::max(window, static_cast<size_t>(live.end() - at));
      live.insert(at, block[j]);
      while (head < live.size() && live[head] <= later_min[j + 1]) ++head;
      if (head > 4096 && head * 2 > live.size()) {
        live.erase(live.begin(), live.begin() + static_cast<long>(head));
        head = 0;
      }
    }
  }
  return window;
}

}  // namespace

size_t reorder_window(const std::vector<Dispatch>& ds) {
  size_t window = 0;
  for (size_t b = 0; b < ds.size();) {
    size_t e = b + 1;
    while (e < ds.size() && ds[e].pid == ds[b].pid) ++e;
    window = std::max(window, process_window(e - b, [&](size_t i) { return ds[b + i].start_ns; }));
    b = e;
  }
  return window;
}

size_t reorder_window(const SpillVector<int64_t>& starts,
                      const std::vector<size_t>& process_begins) {
  size_t window = 0;
  for (size_t p = 0; p < process_begins.size(); ++p) {
    const size_t b = process_begins[p];
    const size_t e = p + 1 < process_begins.size() ? process_begins[p + 1] : starts.size();
    window = std::max(window, process_window(e - b, [&](size_t i) { return starts[b + i]; }));
  }
  return window;
}

namespace {

OutlinePass outline_pass(const PassData& p) {
  int64_t base = INT64_MAX;
  for (const auto& d : p.dispatches) base = std::min(base, d.start_ns);
  return {p.pass_id, p.ordinal, static_cast<int64_t>(p.dispatches.size()),
          base == INT64_MAX ? 0 : base, static_cast<int64_t>(reorder_window(p.dispatches))};
}

}  // namespace

RunOutline compute_outline(const Capture& cap) {
  return compute_outline(cap, detect_phases(cap.trace, &cap.names));
}

RunOutline compute_outline(const Capture& cap, const PhaseModel& pm) {
  RunOutline ro;
  ro.arch = cap.arch;
  ro.product = cap.product;
  ro.main_pid = pm.main_pid;
  ro.main_agent = pm.main_agent;
  ro.segments = outline_segments(pm);
  ro.trace = outline_pass(cap.trace);
  for (const auto& c : cap.counters) ro.counters.push_back(outline_pass(c));
  return ro;
}

bool OutlineSegment::operator==(const OutlineSegment& o) const {
  return first_id == o.first_id && phase == o.phase && step == o.step && start_ns == o.start_ns &&
         end_ns == o.end_ns && dispatches == o.dispatches && window == o.window;
}

bool OutlinePass::operator==(const OutlinePass& o) const {
  return pass_id == o.pass_id && ordinal == o.ordinal && dispatches == o.dispatches &&
         base_ns == o.base_ns && reorder_window == o.reorder_window;
}

bool RunOutline::operator==(const RunOutline& o) const {
  return arch == o.arch && product == o.product && main_pid == o.main_pid &&
         main_agent == o.main_agent && trace == o.trace && counters == o.counters &&
         segments == o.segments;
}

bool is_step(Phase p) {
  return p == Phase::prefill || p == Phase::decode || p == Phase::step || p == Phase::irregular;
}

std::vector<OutlineSegment> outline_segments(const PhaseModel& pm) {
  // The segments become the phase and step slices of one thread ("phases and steps",
  // report/perfetto_outline.cpp for_each_enclosing), and slices of one thread must nest or be
  // disjoint: Perfetto's importer does not nest a slice that starts inside another and ends after
  // it (google/perfetto src/trace_processor/importers/common/slice_tracker.cc
  // SliceTracker::MaybeCloseStack). Up to v56.1 it drops it (stat
  // slice_drop_overlapping_complete_event); since v57.0 the JSON parser spills it onto a
  // "thread_overlapping_slice" track and counts the error stat
  // slice_spill_overlapping_complete_event (src/trace_processor/importers/json/
  // json_trace_parser.cc JsonTraceParser::ParseJsonPacket, case 'X'). A segment starts at its
  // first dispatch by Dispatch_Id, which can start before the previous segment's first one (kernels
  // of two queues), so starts are a running maximum: a segment never starts before the one before
  // it. Its end is its dispatches' latest end, at least its start, and cut at the next segment's
  // start (kernels of one step may still run when the next starts). Then every segment lies in
  // [its start, the next start] and the slices made of them nest.
  std::vector<OutlineSegment> out;
  out.reserve(pm.steps.size());
  int64_t step_no = 0;
  for (size_t i = 0; i < pm.steps.size(); ++i) {
    const Step& s = pm.steps[i];
    OutlineSegment seg;
    seg.first_id = pm.order[s.begin].dispatch_id;
    seg.phase = s.phase;
    seg.step = is_step(s.phase) ? ++step_no : 0;
    seg.start_ns = pm.order[s.begin].start_ns;
    if (!out.empty()) seg.start_ns = std::max(seg.start_ns, out.back().start_ns);
    seg.end_ns = seg.start_ns;
    for (size_t k = s.begin; k < s.end; ++k) seg.end_ns = std::max(seg.end_ns, pm.order[k].end_ns);
    seg.dispatches = static_cast<int64_t>(s.end - s.begin);
    seg.window = s.window;
    // The previous segment ends at the latest where this one starts.
    if (!out.empty()) out.back().end_ns = std::min(out.back().end_ns, seg.start_ns);
    out.push_back(seg);
  }
  return out;
}

namespace {

std::optional<RunOutline> read_current(store::CaptureDb& db, const RunCounts& counts) {
  auto& sql = db.sql();
  const int64_t tp = counts.trace.pass_id;
  RunOutline o;
  {
    SQLite::Statement q(sql,
                        "SELECT arch, product, main_pid, main_agent FROM analysis_outline "
                        "WHERE trace_pass_id = ? AND version = ?");
    q.bind(1, tp);
    q.bind(2, k_outline_version);
    if (!q.executeStep()) return std::nullopt;
    o.arch = q.getColumn(0).getString();
    o.product = q.getColumn(1).getString();
    o.main_pid = q.getColumn(2).getInt64();
    o.main_agent = q.getColumn(3).getInt64();
  }
  {
    // Exactly the passes of `counts`: a counter pass cleared or added since makes it stale.
    SQLite::Statement n(sql,
                        "SELECT count(*) FROM analysis_outline_passes WHERE trace_pass_id = ?");
    n.bind(1, tp);
    n.executeStep();
    if (n.getColumn(0).getInt64() != static_cast<int64_t>(counts.counters.size() + 1))
      return std::nullopt;
  }
  auto trace = stored_pass(db, tp, counts.trace);
  if (!trace) return std::nullopt;
  o.trace = *trace;
  for (const auto& c : counts.counters) {
    auto p = stored_pass(db, tp, c);
    if (!p) return std::nullopt;
    o.counters.push_back(*p);
  }
  SQLite::Statement q(sql,
                      "SELECT first_id, phase, step, start_ns, end_ns, dispatches, window_no FROM "
                      "analysis_outline_segments WHERE trace_pass_id = ? ORDER BY first_id");
  q.bind(1, tp);
  while (q.executeStep()) {
    OutlineSegment s;
    s.first_id = q.getColumn(0).getInt64();
    const auto phase = parse_phase(q.getColumn(1).getString());
    if (!phase) return std::nullopt;  // a word this kprof does not know: compute it again
    s.phase = *phase;
    s.step = q.getColumn(2).getInt64();
    s.start_ns = q.getColumn(3).getInt64();
    s.end_ns = q.getColumn(4).getInt64();
    s.dispatches = q.getColumn(5).getInt64();
    s.window = q.getColumn(6).getInt64();
    o.segments.push_back(s);
  }
  return o;
}

}  // namespace

std::optional<RunOutline> read_outline(store::CaptureDb& db, const RunCounts& counts) {
  if (!detail::has_table(db, "analysis_outline_segments")) return std::nullopt;
  try {
    return read_current(db, counts);
  } catch (const SQLite::Exception&) {
    // Tables of another kprof's layout (derived data): found again and stored anew.
    return std::nullopt;
  }
}

bool try_store_outline(store::CaptureDb& db, const RunOutline& o) {
  auto& sql = db.sql();
  // Never wait for another writer, as try_store_joins (join_store.cpp): BEGIN IMMEDIATE fails at
  // once with SQLITE_BUSY when the busy timeout is 0 (https://sqlite.org/lang_transaction.html,
  // https://sqlite.org/c3ref/busy_timeout.html).
  sql.setBusyTimeout(0);
  try {
    SQLite::Transaction tx(sql, SQLite::TransactionBehavior::IMMEDIATE);
    // Derived data only: outline tables that another kprof made (another layout or version) are
    // dropped and made again rather than migrated. The column lists are this file's INSERTs'.
    if (!layout_current(sql))
      sql.exec(
          "DROP TABLE IF EXISTS analysis_outline_segments; DROP TABLE IF EXISTS "
          "analysis_outline_passes; DROP TABLE IF EXISTS analysis_outline;");
    sql.exec(analysis_schema_sql());
    // The capture was loaded in an earlier read transaction: a pass re-ingested since then makes
    // this outline stale before it is stored.
    {
      SQLite::Statement n(sql, "SELECT count(*) FROM dispatch_rows WHERE pass_id = ?");
      auto same = [&](const OutlinePass& p) {
        n.reset();
        n.bind(1, p.pass_id);
        n.executeStep();
        return n.getColumn(0).getInt64() == p.dispatches;
      };
      if (!same(o.trace)) return false;
      for (const auto& c : o.counters)
        if (!same(c)) return false;
    }
    const int64_t tp = o.trace.pass_id;
    for (const char* table :
         {"analysis_outline_segments", "analysis_outline_passes", "analysis_outline"}) {
      SQLite::Statement del(sql, std::string("DELETE FROM ") + table + " WHERE trace_pass_id = ?");
      del.bind(1, tp);
      del.exec();
    }
    SQLite::Statement head(sql,
                           "INSERT INTO analysis_outline (trace_pass_id, version, arch, product, "
                           "main_pid, main_agent) VALUES (?, ?, ?, ?, ?, ?)");
    head.bind(1, tp);
    head.bind(2, k_outline_version);
    head.bind(3, o.arch);
    head.bind(4, o.product);
    head.bind(5, o.main_pid);
    head.bind(6, o.main_agent);
    head.exec();
    SQLite::Statement pass(sql,
                           "INSERT INTO analysis_outline_passes (trace_pass_id, pass_id, "
                           "dispatches, base_ns, reorder_window, files) VALUES (?, ?, ?, ?, ?, ?)");
    auto add_pass = [&](const OutlinePass& p) {
      pass.reset();
      pass.bind(1, tp);
      pass.bind(2, p.pass_id);
      pass.bind(3, p.dispatches);
      pass.bind(4, p.base_ns);
      pass.bind(5, p.reorder_window);
      pass.bind(6, pass_files_fingerprint(db, p.pass_id));
      pass.exec();
    };
    add_pass(o.trace);
    for (const auto& c : o.counters) add_pass(c);
    SQLite::Statement seg(
        sql,
        "INSERT INTO analysis_outline_segments (trace_pass_id, first_id, phase, "
        "step, start_ns, end_ns, dispatches, window_no) VALUES (?, ?, ?, ?, ?, ?, "
        "?, ?)");
    for (const auto& s : o.segments) {
      seg.reset();
      seg.bind(1, tp);
      seg.bind(2, s.first_id);
      seg.bind(3, std::string(to_string(s.phase)));
      seg.bind(4, s.step);
      seg.bind(5, s.start_ns);
      seg.bind(6, s.end_ns);
      seg.bind(7, s.dispatches);
      seg.bind(8, s.window);
      seg.exec();
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    if ((e.getErrorCode() & 0xff) == SQLITE_BUSY) return false;
    throw;
  }
  return true;
}

bool keep_outline(const std::filesystem::path& path, store::CaptureDb& db, const Capture& cap,
                  const PhaseModel& pm) {
  const RunCounts counts = run_counts(cap);
  // A stored outline is used only with a current join (report/perfetto_outline.cpp), so one made
  // while the joins are stale would never be read.
  if (!joins_current(db, counts)) return false;
  if (read_outline(db, counts)) return true;
  if (!writable_database(path)) return false;
  store::CaptureDb rw(path, store::OpenMode::read_write);
  return try_store_outline(rw, compute_outline(cap, pm));
}

}  // namespace kprof::analysis
