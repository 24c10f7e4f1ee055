#include "core/report/perfetto.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/analysis/join/joined_stream.hpp"
#include "core/analysis/metrics/metrics.hpp"
#include "core/analysis/outline/claims.hpp"
#include "core/base/text.hpp"
#include "core/report/perfetto_json.hpp"
#include "core/report/start_order.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;
using nlohmann::json;
using namespace perfetto_json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A dispatch read from the store, waiting for its place in start order.
struct Pending {
  int64_t start = 0, end = 0, dispatch_id = 0, pid = 0, agent = 0, queue = 0;
  int64_t step = 0;                        // 1-based step number, 0: none
  int64_t joined = -1;                     // PerfettoOutline::joined index
  std::vector<an::CounterSample> samples;  // streamed joined counters (PerfettoOutline::counts)
  uint32_t what = 0;                       // trace: a Variants index; counter pass: a Kernels id
  an::Phase phase = an::Phase::other;
  int64_t duration() const { return end > start ? end - start : 0; }
};

Pending pending(const store::DispatchRow& r) {
  Pending p;
  p.start = r.start_ns;
  p.end = r.end_ns;
  p.dispatch_id = r.dispatch_id;
  p.pid = r.pid;
  p.agent = r.agent;
  p.queue = r.queue_id;
  return p;
}

// Streams a pass's rows into `order`, one process at a time.
void stream_pass(store::CaptureDb& db, int64_t pass_id, StartOrder<Pending>& order,
                 const std::function<Pending(const store::DispatchRow&)>& make) {
  bool any = false;
  int64_t pid = 0;
  db.for_each_dispatch(pass_id, [&](const store::DispatchRow& r) {
    if (any && r.pid != pid) order.flush();
    any = true;
    pid = r.pid;
    order.push(r.start_ns, make(r));
  });
  order.flush();
}

}  // namespace

PerfettoExport PerfettoExport::open(const std::filesystem::path& db, std::optional<int64_t> run_id,
                                    bool use_stored) {
  PerfettoExport e;
  e.m_db = std::make_unique<store::CaptureDb>(db, store::OpenMode::read_only);
  e.m_outline = outline_run(*e.m_db, run_id, use_stored);
  return e;
}

namespace {

// Every structural claim (analysis/claims.hpp) with its confidence, evidence, alternatives and,
// when unknown, why: the phase model's (from the outline) and each join mapping's.
std::vector<an::Claim> all_claims(const PerfettoOutline& o, store::CaptureDb& db) {
  std::vector<an::Claim> claims = o.structure_claims;
  const auto joins =
      o.joins_computed.empty() ? analysis::read_joins(db, o.counts) : o.joins_computed;
  for (auto& c : analysis::join_claims(joins)) claims.push_back(std::move(c));
  return claims;
}

json claims_json(const std::vector<an::Claim>& claims) {
  json out = json::array();
  for (const auto& c : claims)
    out.push_back({{"topic", c.topic},
                   {"subject", c.subject},
                   {"claim", c.claim},
                   {"confidence", c.confidence},
                   {"evidence", c.evidence},
                   {"alternatives", c.alternatives},
                   {"reason", c.reason}});
  return out;
}

// The object's opening up to the trace events: displayTimeUnit and otherData. displayTimeUnit:
// chrome://tracing shows times in it (catapult-project/catapult
// tracing/tracing/extras/importer/trace_event_importer.html, TraceEventImporter: the model's
// intrinsicTimeUnit), and kernels last microseconds or less; Perfetto ignores it and only counts
// it (google/perfetto src/trace_processor/importers/json/json_trace_tokenizer.cc
// JsonTraceTokenizer::HandleDictionaryKey, info stat json_display_time_unit). The claims are in
// otherData for a program.
void write_other_data(std::ostream& os, const PerfettoOutline& o, const json& claims) {
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
     << dump(json{{"kprof_run", o.run.id},
                  {"claims", claims},
                  {"run_name", o.run.name},
                  {"simulated", o.simulated},
                  {"figures", o.simulated ? "SIMULATED: rocprofv3 test double, not measured"
                                          : "measured with rocprofv3"},
                  {"time_base_ns", o.base_ns},
                  {"agent", o.arch + (o.product.empty() ? "" : " (" + o.product + ")")}})
     << ",\"traceEvents\":[";
}

// Per pid of the trace pass that drives a rank (store::pass_ranks: one rank per GPU agent), when
// the pass has several: "rank 1 (GPU agent 2)", or "rank 0 (GPU agent 1), rank 1 (GPU agent 2)"
// for a process that drives two GPUs.
using RankLabels = std::map<int64_t, std::string>;
RankLabels rank_labels(store::CaptureDb& db, int64_t trace_pass_id) {
  RankLabels out;
  const auto ranks = store::pass_ranks(db, trace_pass_id);
  if (ranks.size() < 2) return out;
  for (const auto& r : ranks) {
    auto& label = out[r.pid];
    label += (label.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r.rank) +
             " (GPU agent " + std::to_string(r.agent) + ")";
  }
  return out;
}

// A trace-pass process track: "process 102 trace pass", with its ranks first when it drives some.
std::string trace_process_name(const RankLabels& ranks, int64_t pid, const std::string& sim) {
  const auto it = ranks.find(pid);
  return (it == ranks.end() ? "" : it->second + ", ") + "process " + std::to_string(pid) +
         " trace pass" + sim;
}

// The main process and its "phases and steps" thread: the claims as instant events at the
// trace's start (a reader of the UI sees the args of one when selecting it), then the steps and
// phases as enclosing slices.
void write_structure(Writer& w, const PerfettoOutline& o, const std::vector<an::Claim>& claims,
                     const json& claims_args, const std::string& sim, const RankLabels& ranks,
                     PerfettoSummary& sum) {
  w.name_process(o.main_pid, trace_process_name(ranks, o.main_pid, sim), 0);
  w.name_thread(o.main_pid, 1, "phases and steps", 0);
  for (size_t i = 0; i < claims.size(); ++i) {
    w.event(analysis::claim_line(claims[i]), "i", o.main_pid, 1, 0, 0, "claim",
            dump(claims_args[i]));
    ++sum.claim_events;
  }
  for_each_enclosing(o, [&](const EnclosingSlice& s) {
    w.event(s.name, "X", o.main_pid, 1, s.start_ns, s.dur_ns, s.cat, s.args);
    ++sum.step_slices;
  });
}

// The trace pass's dispatch slices: each dispatch's variant, phase and step, its joined counters
// (held in the outline, or streamed beside the rows) and the metrics derived from them.
class TraceSlices {
 public:
  TraceSlices(const PerfettoOutline& o, store::CaptureDb& db, Writer& w, Tracks& tracks,
              Kernels& kernels, PerfettoSummary& sum, const std::string& sim,
              const RankLabels& ranks)
      : m_o(o),
        m_db(db),
        m_w(w),
        m_tracks(tracks),
        m_kernels(kernels),
        m_sum(sum),
        m_sim(sim),
        m_ranks(ranks) {
    if (o.stream_joined) m_stream.emplace(db, o.counts);
    m_streamed.by_dispatch.resize(1);
  }

  void write() {
    StartOrder<Pending> order(m_o.trace_window, [&](Pending& p) { slice(p); });
    stream_pass(m_db, m_o.trace_pass_id, order,
                [&](const store::DispatchRow& r) { return read(r); });
  }

 private:
  Pending read(const store::DispatchRow& r) {
    Pending p = pending(r);
    const uint32_t name = m_kernels.id(r.kernel_name);
    p.what = m_variants.of(r, name, m_kernels.family(name));
    if (const auto* seg = m_o.segment_of(r.pid, r.agent, r.dispatch_id)) {
      p.phase = seg->phase;
      p.step = seg->step;
    }
    p.joined = m_o.joined_keys.empty() ? -1 : m_o.joined_index(r.pid, r.dispatch_id);
    if (m_stream) p.samples = m_stream->take(r.pid, r.dispatch_id, m_streamed.counters);
    return p;
  }

  void slice(Pending& p) {
    if (m_named.insert(p.pid).second)
      m_w.name_process(p.pid, trace_process_name(m_ranks, p.pid, m_sim), 1);
    const int64_t tid =
        m_tracks.place(m_w, p.pid, p.agent, p.queue, p.start, p.end, m_sum.overlap_lanes);
    const VariantInfo& v = m_variants[p.what];
    // The joined counters: held in the outline, or streamed alongside the rows into m_streamed.
    const an::JoinedCounters* jc = nullptr;
    size_t k = 0;
    QuotedNames* quoted_counters = nullptr;
    an::DispatchMetricsCache* metrics = nullptr;
    if (p.joined >= 0) {
      jc = &m_o.joined;
      k = static_cast<size_t>(p.joined);
      quoted_counters = &m_held_names;
      metrics = &m_held_metrics;
    } else if (!p.samples.empty()) {
      m_streamed.by_dispatch[0] = std::move(p.samples);
      jc = &m_streamed;
      quoted_counters = &m_streamed_names;
      metrics = &m_streamed_metrics;
    }
    an::DispatchMetrics dm;
    if (jc && m_o.target) dm = (*metrics)(*m_o.target, *jc, k);
    // The args object as nlohmann wrote it: keys sorted, "counters" first.
    m_args.assign(1, '{');
    if (jc) append_counters(*jc, k, *quoted_counters);
    append_args(p, v, dm);
    m_w.event_quoted(v.short_quoted, "X", p.pid, tid, p.start - m_o.base_ns, p.duration(),
                     m_dispatch_cat, m_args);
    ++m_sum.dispatch_slices;
  }

  // "counters":{...}, as nlohmann's object (a std::map) held them: each name once, sorted, with
  // its last value.
  void append_counters(const an::JoinedCounters& jc, size_t k, QuotedNames& quoted) {
    std::string& a = m_args;
    const auto& samples = jc.by_dispatch[k];
    m_by_name.resize(samples.size());
    for (size_t i = 0; i < m_by_name.size(); ++i) m_by_name[i] = i;
    std::stable_sort(m_by_name.begin(), m_by_name.end(), [&](size_t x, size_t y) {
      return jc.counters.name(samples[x].counter) < jc.counters.name(samples[y].counter);
    });
    a += "\"counters\":{";
    bool first = true;
    for (size_t i = 0; i < m_by_name.size(); ++i) {
      const auto& s = samples[m_by_name[i]];
      if (i + 1 < m_by_name.size() && samples[m_by_name[i + 1]].counter == s.counter) continue;
      if (!first) a += ',';
      first = false;
      a += quoted.of(jc.counters, s.counter);
      a += ':';
      append_double(a, s.value);
    }
    a += "},";
  }

  // The args after "counters", keys in sorted order.
  void append_args(const Pending& p, const VariantInfo& v, const an::DispatchMetrics& dm) {
    std::string& a = m_args;
    a += "\"dispatch_id\":";
    append_int(a, p.dispatch_id);
    if (!dm.dominant_type.empty()) {
      a += ",\"dominant_type\":";
      a += m_words.of(dm.dominant_type);
    }
    a += ",\"family\":";
    a += m_kernels.quoted_family(v.name);
    if (dm.has_flops() && dm.has_bytes() && dm.bytes() > 0) {
      a += ",\"flop_per_byte\":";
      append_double(a, dm.flops() / dm.bytes());
    }
    if (dm.has_flops()) {
      a += ",\"flops\":";
      append_double(a, dm.flops());
    }
    a += ",\"grid\":";
    a += v.grid_quoted;
    if (dm.has_bytes()) {
      a += ",\"hbm_bytes\":";
      append_double(a, dm.bytes());
    }
    a += ",\"kernel\":";
    a += m_kernels.quoted_name(v.name);
    a += ",\"phase\":";
    a += m_words.of(an::to_string(p.phase));
    if (m_sum.simulated) a += ",\"simulated\":true";
    if (p.step > 0) {
      a += ",\"step\":";
      append_int(a, p.step);
    }
    a += ",\"variant\":";
    append_int(a, v.index);
    a += ",\"workgroup\":";
    a += v.wg_quoted;
    a += '}';
  }

  const PerfettoOutline& m_o;
  store::CaptureDb& m_db;
  Writer& m_w;
  Tracks& m_tracks;
  Kernels& m_kernels;
  PerfettoSummary& m_sum;
  const std::string& m_sim;
  const RankLabels& m_ranks;
  std::set<int64_t> m_named{m_o.main_pid};
  Variants m_variants;
  std::optional<an::JoinedCounterStream> m_stream;
  an::JoinedCounters m_streamed;  // one dispatch's streamed samples at a time
  // Made once per export rather than per slice: the counter names' and words' JSON strings, the
  // formulas' name resolution (per name table), and the args text's buffer.
  QuotedNames m_held_names, m_streamed_names;
  QuotedWords m_words;
  an::DispatchMetricsCache m_held_metrics, m_streamed_metrics;
  std::string m_args;
  std::vector<size_t> m_by_name;
  const std::string m_dispatch_cat = json_quote("dispatch");
};

// Counter passes: each its own process group and clock (a separate run of the application).
void write_counter_passes(const PerfettoOutline& o, store::CaptureDb& db, Writer& w, Tracks& tracks,
                          Kernels& kernels, PerfettoSummary& sum, const std::string& sim) {
  const std::string pass_cat = json_quote("counter pass dispatch");
  std::string args;
  int64_t fake_pid = 1'000'000'000;
  for (const auto& c : o.counter_passes) {
    std::map<int64_t, int64_t> pid_of;  // real pid -> this pass's process id in the JSON
    StartOrder<Pending> order(c.window, [&](Pending& p) {
      auto it = pid_of.find(p.pid);
      if (it == pid_of.end()) {
        it = pid_of.emplace(p.pid, ++fake_pid).first;
        w.name_process(it->second,
                       "counter pass " + std::to_string(c.ordinal) + ", process " +
                           std::to_string(p.pid) + " (its own run and clock)" + sim,
                       static_cast<int>(100 + c.ordinal));
      }
      const int64_t tid =
          tracks.place(w, it->second, p.agent, p.queue, p.start, p.end, sum.overlap_lanes);
      // {"dispatch_id", "kernel", "pass", "simulated"}, as nlohmann's sorted object wrote it.
      args.assign("{\"dispatch_id\":");
      append_int(args, p.dispatch_id);
      args += ",\"kernel\":";
      args += kernels.quoted_name(p.what);
      args += ",\"pass\":";
      append_int(args, c.ordinal);
      if (sum.simulated) args += ",\"simulated\":true";
      args += '}';
      w.event_quoted(kernels.quoted_family(p.what), "X", it->second, tid, p.start - c.base_ns,
                     p.duration(), pass_cat, args);
      ++sum.counter_pass_slices;
    });
    stream_pass(db, c.pass_id, order, [&](const store::DispatchRow& r) {
      Pending p = pending(r);
      p.what = kernels.id(r.kernel_name);
      return p;
    });
  }
}

}  // namespace

PerfettoSummary PerfettoExport::write(std::ostream& os) {
  const PerfettoOutline& o = m_outline;
  PerfettoSummary sum;
  sum.simulated = o.simulated;
  const std::string sim = sum.simulated ? " (SIMULATED)" : "";
  const std::vector<an::Claim> claims = all_claims(o, *m_db);
  const json claims_args = claims_json(claims);
  write_other_data(os, o, claims_args);
  Writer w(os);
  Tracks tracks;
  const RankLabels ranks = rank_labels(*m_db, o.trace_pass_id);
  write_structure(w, o, claims, claims_args, sim, ranks, sum);
  Kernels kernels(o.rules);
  TraceSlices(o, *m_db, w, tracks, kernels, sum, sim, ranks).write();
  write_counter_passes(o, *m_db, w, tracks, kernels, sum, sim);
  w.flush();
  os << "\n]}\n";
  return sum;
}

}  // namespace kprof::report
