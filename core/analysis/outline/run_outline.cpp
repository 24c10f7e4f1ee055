// The stored run outline (run_outline.hpp): computed from a phase model, written and read back.
#include "core/analysis/outline/run_outline.hpp"

#include <algorithm>
#include <climits>

#include "core/store/analysis_results.hpp"

namespace kprof::analysis {
namespace {

// Bumped whenever phase detection or what is stored changes its results: a stored outline of
// another version is computed again rather than trusted. 3: segment starts are a running maximum
// (outline_segments), so version 2's stored segments, whose starts could go back, are recomputed.
constexpr int64_t k_outline_version = 3;

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
  const int64_t tp = counts.trace.pass_id;
  const auto head = store::read_outline_head(db, tp, k_outline_version);
  if (!head) return std::nullopt;
  RunOutline o;
  o.arch = head->arch;
  o.product = head->product;
  o.main_pid = head->main_pid;
  o.main_agent = head->main_agent;
  // Exactly the passes of `counts`: a counter pass cleared or added since makes it stale.
  const auto passes = store::read_outline_passes(db, tp);
  if (passes.size() != counts.counters.size() + 1) return std::nullopt;
  auto stored_pass = [&](const PassCount& want) -> std::optional<OutlinePass> {
    for (const auto& p : passes)
      if (p.pass_id == want.pass_id) {
        if (p.dispatches != want.dispatches || p.files != pass_files_fingerprint(db, want.pass_id))
          return std::nullopt;
        return OutlinePass{want.pass_id, want.ordinal, want.dispatches, p.base_ns,
                           p.reorder_window};
      }
    return std::nullopt;
  };
  auto trace = stored_pass(counts.trace);
  if (!trace) return std::nullopt;
  o.trace = *trace;
  for (const auto& c : counts.counters) {
    auto p = stored_pass(c);
    if (!p) return std::nullopt;
    o.counters.push_back(*p);
  }
  bool known = true;
  store::for_each_outline_segment(db, tp, [&](const store::StoredSegment& r) {
    const auto phase = parse_phase(r.phase);
    if (!phase) known = false;  // a word this kprof does not know: compute it again
    if (!known) return;
    o.segments.push_back(
        {r.first_id, *phase, r.step, r.start_ns, r.end_ns, r.dispatches, r.window_no});
  });
  if (!known) return std::nullopt;
  return o;
}

}  // namespace

std::optional<RunOutline> read_outline(store::CaptureDb& db, const RunCounts& counts) {
  return read_current(db, counts);
}

bool try_store_outline(store::CaptureDb& db, const RunOutline& o) {
  return store::try_write_now(db, [&] {
    // The capture was loaded in an earlier read transaction: a pass re-ingested since then makes
    // this outline stale before it is stored.
    auto same = [&](const OutlinePass& p) {
      return store::dispatch_count(db, p.pass_id) == p.dispatches;
    };
    if (!same(o.trace)) return false;
    for (const auto& c : o.counters)
      if (!same(c)) return false;
    std::vector<store::StoredOutlinePass> passes;
    auto add_pass = [&](const OutlinePass& p) {
      passes.push_back({p.pass_id, p.dispatches, p.base_ns, p.reorder_window,
                        pass_files_fingerprint(db, p.pass_id)});
    };
    add_pass(o.trace);
    for (const auto& c : o.counters) add_pass(c);
    std::vector<store::StoredSegment> segments;
    segments.reserve(o.segments.size());
    for (const auto& s : o.segments)
      segments.push_back({s.first_id, std::string(to_string(s.phase)), s.step, s.start_ns, s.end_ns,
                          s.dispatches, s.window});
    store::replace_outline(db, o.trace.pass_id,
                           {k_outline_version, o.arch, o.product, o.main_pid, o.main_agent}, passes,
                           segments);
    return true;
  });
}

}  // namespace kprof::analysis
