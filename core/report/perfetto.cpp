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

#include "core/analysis/claims.hpp"
#include "core/analysis/joined_stream.hpp"
#include "core/analysis/metrics.hpp"
#include "core/base/text.hpp"
#include "core/report/start_order.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;
using nlohmann::json;

// The slices are written as text straight into a buffer: building an nlohmann object per slice
// and dumping it cost more than the rest of the export together (perf, 1M dispatches with
// counters). What is written is what nlohmann's dump wrote: keys in its object order (std::map,
// sorted), strings through json_quote (nlohmann, error_handler replace), integers in decimal,
// doubles through nlohmann's own float formatting (append_double).
void append_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// nlohmann's serializer::dump_float: null for NaN/inf, else its Grisu2 shortest round trip.
// nlohmann::detail::to_chars is the library's internal function (include/nlohmann/detail/
// conversions/to_chars.hpp, nlohmann-json3-dev 3.11.2 in Debian 12), called so that the numbers
// stay byte for byte what json::dump wrote before: std::to_chars (Ryu) is always shortest and
// writes "8273" where Grisu2 via dump writes "8273.0". ctest -R SliceArgsAreWhatNlohmannsDumpWrites
// checks every slice's args against dump.
void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
}

// Microseconds with nanosecond digits ("%" PRId64 ".%03" PRId64, minus sign first when the
// fraction is negative), from nanoseconds relative to the pass's first start. Perfetto reads such
// a number as a double (google/perfetto src/trace_processor/util/json_parser.h
// internal::StringToDouble: integer part + fraction as doubles) and then llround(v * 1000) ns
// (importers/json/json_trace_tokenizer.cc CoerceToTs), which gives back the exact nanoseconds only
// below 2^51 ns, 26 days (the sum's and the product's roundings stay under 0.37 ns there; that
// arithmetic run on random values: about one in a hundred off by 1 ns between 2^51 and 2^52, up to
// 250 ns off at an epoch clock's 1.7e18 ns). rocprofv3's timestamps are of a boot-relative clock,
// as large as the host's uptime: the real captures of tests/data/captures start between 1.8e13 and
// 2.4e15 ns, the last already past 2^51. So ts is written relative to the pass's first start
// (PerfettoOutline::base_ns), which keeps it small and exact, and never negative (Perfetto's
// sorter drops a negative ts: src/trace_processor/sorter/trace_sorter.h TraceSorter::Stream::Push,
// stat trace_sorter_negative_timestamp_dropped).
void append_us(std::string& out, int64_t ns) {
  const int64_t whole = ns / 1000, frac = ns % 1000;
  int64_t f = frac;
  if (ns < 0 && frac != 0) {
    out += '-';
    append_int(out, -(ns / 1000));
    f = -frac;
  } else {
    append_int(out, whole);
  }
  const char digits[4] = {'.', static_cast<char>('0' + f / 100),
                          static_cast<char>('0' + f / 10 % 10), static_cast<char>('0' + f % 10)};
  out.append(digits, 4);
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

class Writer {
 public:
  explicit Writer(std::ostream& os) : m_os(os) {}
  // One event object; `args` is a JSON object's text, or empty for none.
  void event(const std::string& name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
             int64_t dur_ns, const std::string& cat, const std::string& args) {
    event_quoted(json_quote(name), ph, pid, tid, ts_ns, dur_ns, cat.empty() ? "" : json_quote(cat),
                 args);
  }
  // The same with the name and the category (empty: none) already through json_quote.
  void event_quoted(std::string_view name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
                    int64_t dur_ns, std::string_view cat, std::string_view args) {
    std::string& b = m_buf;
    b += m_first ? "\n{\"name\":" : ",\n{\"name\":";
    b += name;
    b += ",\"ph\":\"";
    b += ph;
    b += "\",\"pid\":";
    append_int(b, pid);
    b += ",\"tid\":";
    append_int(b, tid);
    if (!cat.empty()) {
      b += ",\"cat\":";
      b += cat;
    }
    if (ph[0] == 'X') {
      b += ",\"ts\":";
      append_us(b, ts_ns);
      b += ",\"dur\":";
      append_us(b, dur_ns);
    }
    if (ph[0] == 'i') {  // an instant event on its thread's track ("s":"t")
      b += ",\"ts\":";
      append_us(b, ts_ns);
      b += ",\"s\":\"t\"";
    }
    if (!args.empty()) {
      b += ",\"args\":";
      b += args;
    }
    b += '}';
    m_first = false;
    if (b.size() >= k_flush_bytes) flush();
  }
  // Hands the buffered text to the stream (done every k_flush_bytes and at the end).
  void flush() {
    m_os.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
    m_buf.clear();
  }
  void name_process(int64_t pid, const std::string& name, int sort) {
    event("process_name", "M", pid, 0, 0, 0, "", dump(json{{"name", name}}));
    event("process_sort_index", "M", pid, 0, 0, 0, "", dump(json{{"sort_index", sort}}));
  }
  void name_thread(int64_t pid, int64_t tid, const std::string& name, int sort) {
    event("thread_name", "M", pid, tid, 0, 0, "", dump(json{{"name", name}}));
    event("thread_sort_index", "M", pid, tid, 0, 0, "", dump(json{{"sort_index", sort}}));
  }

 private:
  static constexpr size_t k_flush_bytes = 1 << 16;
  std::ostream& m_os;
  std::string m_buf;
  bool m_first = true;
};

// Threads of one process: (agent, queue, lane) -> tid, with the lane's last end time.
class Tracks {
 public:
  // The thread for a dispatch on (agent, queue) that starts at `start` and ends at `end`: the first
  // lane of that queue whose last dispatch has ended. In start order the fewest lanes; in any
  // order the slices of a lane never overlap.
  int64_t place(Writer& w, int64_t pid, int64_t agent, int64_t queue, int64_t start, int64_t end,
                int64_t& new_lanes) {
    auto& lanes = m_lanes[{pid, agent, queue}];
    size_t lane = 0;
    while (lane < lanes.size() && lanes[lane].second > start) ++lane;
    if (lane == lanes.size()) {
      const int64_t tid = ++m_next_tid;
      lanes.push_back({tid, end});
      if (lane > 0) ++new_lanes;
      std::string name = "agent " + std::to_string(agent) + " queue " + std::to_string(queue) +
                         (lane ? " (overlap " + std::to_string(lane) + ")" : "");
      w.name_thread(pid, tid, name, static_cast<int>(tid));
    } else {
      lanes[lane].second = end;
    }
    return lanes[lane].first;
  }

 private:
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> m_lanes;
  int64_t m_next_tid = 1;  // tid 1: the phases-and-steps thread
};

std::string dims(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

// Kernel names met in the stream, each once, with its family.
class Kernels {
 public:
  explicit Kernels(const an::FamilyRules& rules) : m_rules(rules) {}
  uint32_t id(const std::string& name) {
    auto [it, added] = m_ids.try_emplace(name, static_cast<uint32_t>(m_names.size()));
    if (added) {
      m_names.push_back(name);
      m_families.push_back(m_rules.family_of(name));
      m_quoted_names.push_back(json_quote(m_names.back()));
      m_quoted_families.push_back(json_quote(m_families.back()));
    }
    return it->second;
  }
  const std::string& name(uint32_t id) const { return m_names[id]; }
  const std::string& family(uint32_t id) const { return m_families[id]; }
  // The same as JSON strings (json_quote), made once per kernel name.
  const std::string& quoted_name(uint32_t id) const { return m_quoted_names[id]; }
  const std::string& quoted_family(uint32_t id) const { return m_quoted_families[id]; }

 private:
  const an::FamilyRules& m_rules;
  std::unordered_map<std::string, uint32_t> m_ids;
  std::vector<std::string> m_names, m_families, m_quoted_names, m_quoted_families;
};

// json_quote of the names of one name table (counter names), made once per name.
class QuotedNames {
 public:
  const std::string& of(const an::NameTable& table, uint32_t id) {
    while (m_quoted.size() <= id)
      m_quoted.push_back(json_quote(table.name(static_cast<uint32_t>(m_quoted.size()))));
    return m_quoted[id];
  }

 private:
  std::vector<std::string> m_quoted;
};

// json_quote of a few distinct strings (phases, FLOP types), made once each.
class QuotedWords {
 public:
  const std::string& of(std::string_view s) {
    auto it = m_quoted.find(s);
    if (it == m_quoted.end()) it = m_quoted.emplace(std::string(s), json_quote(s)).first;
    return it->second;
  }

 private:
  std::map<std::string, std::string, std::less<>> m_quoted;
};

// A variant as the trace model numbers them (analysis::build_trace_model): a distinct (Kernel_Id,
// name, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR), 1-based in order of first launch in
// (pid, Dispatch_Id) order, which is the order the store streams the rows in.
struct VariantInfo {
  int index = 0;
  uint32_t name = 0;
  int64_t grid[3] = {0, 1, 1}, wg[3] = {0, 1, 1};
  std::string grid_quoted, wg_quoted;  // json_quote(dims(grid)), json_quote(dims(wg))
  // The slice's name as people say it, the family and the variant number ("fused_moe_kernel v3"):
  // Perfetto shows a slice's name on it, and a demangled name starts with its return type and
  // namespaces ("std::enable_if<..."). The args' "kernel" holds the full name.
  std::string short_quoted;
};
class Variants {
 public:
  uint32_t of(const store::DispatchRow& r, uint32_t name, const std::string& family) {
    const Key key{r.kernel_id,
                  name,
                  r.grid_x,
                  r.grid_y,
                  r.grid_z,
                  r.wg_x,
                  r.wg_y,
                  r.wg_z,
                  r.lds,
                  r.scratch,
                  r.vgpr.value_or(-1),
                  r.agpr.value_or(-1),
                  r.sgpr.value_or(-1)};
    auto [it, added] = m_index.try_emplace(key, static_cast<uint32_t>(m_list.size()));
    if (added) {
      m_list.push_back({static_cast<int>(m_list.size()) + 1,
                        name,
                        {r.grid_x, r.grid_y, r.grid_z},
                        {r.wg_x, r.wg_y, r.wg_z},
                        {},
                        {},
                        {}});
      m_list.back().grid_quoted = json_quote(dims(m_list.back().grid));
      m_list.back().wg_quoted = json_quote(dims(m_list.back().wg));
      m_list.back().short_quoted = json_quote(family + " v" + std::to_string(m_list.back().index));
    }
    return it->second;
  }
  const VariantInfo& operator[](uint32_t i) const { return m_list[i]; }

 private:
  using Key = std::tuple<int64_t, uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, uint32_t> m_index;
  std::vector<VariantInfo> m_list;
};

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

PerfettoSummary PerfettoExport::write(std::ostream& os) {
  const PerfettoOutline& o = m_outline;
  PerfettoSummary sum;
  sum.simulated = o.simulated;
  const std::string sim = sum.simulated ? " (SIMULATED)" : "";
  // displayTimeUnit: chrome://tracing shows times in it (catapult-project/catapult
  // tracing/tracing/extras/importer/trace_event_importer.html, TraceEventImporter: the model's
  // intrinsicTimeUnit), and kernels last microseconds or less; Perfetto ignores it and only counts
  // it (google/perfetto src/trace_processor/importers/json/json_trace_tokenizer.cc
  // JsonTraceTokenizer::HandleDictionaryKey, info stat json_display_time_unit).
  // Every structural claim (analysis/claims.hpp) with its confidence, evidence, alternatives and,
  // when unknown, why: the phase model's (from the outline) and each join mapping's. In otherData
  // for a program, and as instant events at the trace's start on the "phases and steps" thread
  // for a reader of the UI, who sees the args of one when selecting it.
  std::vector<an::Claim> all_claims = o.structure_claims;
  const auto joins =
      o.joins_computed.empty() ? analysis::read_joins(*m_db, o.counts) : o.joins_computed;
  for (auto& c : analysis::join_claims(joins)) all_claims.push_back(std::move(c));
  json claims = json::array();
  for (const auto& c : all_claims)
    claims.push_back({{"topic", c.topic},
                      {"subject", c.subject},
                      {"claim", c.claim},
                      {"confidence", c.confidence},
                      {"evidence", c.evidence},
                      {"alternatives", c.alternatives},
                      {"reason", c.reason}});
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
     << dump(json{{"kprof_run", o.run.id},
                  {"claims", claims},
                  {"run_name", o.run.name},
                  {"simulated", sum.simulated},
                  {"figures", sum.simulated ? "SIMULATED: rocprofv3 test double, not measured"
                                            : "measured with rocprofv3"},
                  {"time_base_ns", o.base_ns},
                  {"agent", o.arch + (o.product.empty() ? "" : " (" + o.product + ")")}})
     << ",\"traceEvents\":[";
  Writer w(os);
  Tracks tracks;
  std::set<int64_t> named{o.main_pid};
  w.name_process(o.main_pid, "process " + std::to_string(o.main_pid) + " trace pass" + sim, 0);
  w.name_thread(o.main_pid, 1, "phases and steps", 0);
  for (size_t i = 0; i < all_claims.size(); ++i) {
    const auto& c = all_claims[i];
    w.event(analysis::claim_line(c), "i", o.main_pid, 1, 0, 0, "claim", dump(claims[i]));
    ++sum.claim_events;
  }
  for_each_enclosing(o, [&](const EnclosingSlice& s) {
    w.event(s.name, "X", o.main_pid, 1, s.start_ns, s.dur_ns, s.cat, s.args);
    ++sum.step_slices;
  });

  Kernels kernels(o.rules);
  Variants variants;
  std::optional<an::JoinedCounterStream> stream;
  if (o.stream_joined) stream.emplace(*m_db, o.counts);
  an::JoinedCounters streamed;  // one dispatch's streamed samples at a time
  streamed.by_dispatch.resize(1);
  // Made once per export rather than per slice: the counter names' and words' JSON strings, the
  // formulas' name resolution (per name table), and the args text's buffer.
  QuotedNames held_names, streamed_names;
  QuotedWords words;
  an::DispatchMetricsCache held_metrics, streamed_metrics;
  std::string args;
  std::vector<size_t> by_name;
  const std::string dispatch_cat = json_quote("dispatch");
  StartOrder<Pending> trace_order(o.trace_window, [&](Pending& p) {
    if (named.insert(p.pid).second)
      w.name_process(p.pid, "process " + std::to_string(p.pid) + " trace pass" + sim, 1);
    const int64_t tid = tracks.place(w, p.pid, p.agent, p.queue, p.start, p.end, sum.overlap_lanes);
    const VariantInfo& v = variants[p.what];
    // The joined counters: held in the outline, or streamed alongside the rows into `streamed`.
    const an::JoinedCounters* jc = nullptr;
    size_t k = 0;
    QuotedNames* quoted_counters = nullptr;
    an::DispatchMetricsCache* metrics = nullptr;
    if (p.joined >= 0) {
      jc = &o.joined;
      k = static_cast<size_t>(p.joined);
      quoted_counters = &held_names;
      metrics = &held_metrics;
    } else if (!p.samples.empty()) {
      streamed.by_dispatch[0] = std::move(p.samples);
      jc = &streamed;
      quoted_counters = &streamed_names;
      metrics = &streamed_metrics;
    }
    an::DispatchMetrics dm;
    if (jc && o.target) dm = (*metrics)(*o.target, *jc, k);
    // The args object as nlohmann wrote it: keys sorted, "counters" first.
    std::string& a = args;
    a.assign(1, '{');
    if (jc) {
      // nlohmann's object (a std::map) held each name once, sorted, with its last value.
      const auto& samples = jc->by_dispatch[k];
      by_name.resize(samples.size());
      for (size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
      std::stable_sort(by_name.begin(), by_name.end(), [&](size_t x, size_t y) {
        return jc->counters.name(samples[x].counter) < jc->counters.name(samples[y].counter);
      });
      a += "\"counters\":{";
      bool first = true;
      for (size_t i = 0; i < by_name.size(); ++i) {
        const auto& s = samples[by_name[i]];
        if (i + 1 < by_name.size() && samples[by_name[i + 1]].counter == s.counter) continue;
        if (!first) a += ',';
        first = false;
        a += quoted_counters->of(jc->counters, s.counter);
        a += ':';
        append_double(a, s.value);
      }
      a += "},";
    }
    a += "\"dispatch_id\":";
    append_int(a, p.dispatch_id);
    if (!dm.dominant_type.empty()) {
      a += ",\"dominant_type\":";
      a += words.of(dm.dominant_type);
    }
    a += ",\"family\":";
    a += kernels.quoted_family(v.name);
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
    a += kernels.quoted_name(v.name);
    a += ",\"phase\":";
    a += words.of(an::to_string(p.phase));
    if (sum.simulated) a += ",\"simulated\":true";
    if (p.step > 0) {
      a += ",\"step\":";
      append_int(a, p.step);
    }
    a += ",\"variant\":";
    append_int(a, v.index);
    a += ",\"workgroup\":";
    a += v.wg_quoted;
    a += '}';
    w.event_quoted(v.short_quoted, "X", p.pid, tid, p.start - o.base_ns, p.duration(), dispatch_cat,
                   a);
    ++sum.dispatch_slices;
  });
  stream_pass(*m_db, o.trace_pass_id, trace_order, [&](const store::DispatchRow& r) {
    Pending p = pending(r);
    const uint32_t name = kernels.id(r.kernel_name);
    p.what = variants.of(r, name, kernels.family(name));
    if (const auto* seg = o.segment_of(r.pid, r.agent, r.dispatch_id)) {
      p.phase = seg->phase;
      p.step = seg->step;
    }
    p.joined = o.joined_keys.empty() ? -1 : o.joined_index(r.pid, r.dispatch_id);
    if (stream) p.samples = stream->take(r.pid, r.dispatch_id, streamed.counters);
    return p;
  });

  // Counter passes: each its own process group and clock (a separate run of the application).
  const std::string pass_cat = json_quote("counter pass dispatch");
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
      std::string& a = args;
      a.assign("{\"dispatch_id\":");
      append_int(a, p.dispatch_id);
      a += ",\"kernel\":";
      a += kernels.quoted_name(p.what);
      a += ",\"pass\":";
      append_int(a, c.ordinal);
      if (sum.simulated) a += ",\"simulated\":true";
      a += '}';
      w.event_quoted(kernels.quoted_family(p.what), "X", it->second, tid, p.start - c.base_ns,
                     p.duration(), pass_cat, a);
      ++sum.counter_pass_slices;
    });
    stream_pass(*m_db, c.pass_id, order, [&](const store::DispatchRow& r) {
      Pending p = pending(r);
      p.what = kernels.id(r.kernel_name);
      return p;
    });
  }
  w.flush();
  os << "\n]}\n";
  return sum;
}

}  // namespace kprof::report
