// The runbook's passes: (trace, counters, kernel selection) and retry: sections.
#include "core/runbook/checks.hpp"
#include "core/runbook/parser.hpp"

namespace kprof::runbook::detail {

void Parser::passes(const Entry& e, Passes& p) {
  auto m = map(e, "passes", k_passes_keys);
  if (!m) return;
  if (const Entry* c = m->find("trace")) trace(*c, p.trace);
  if (const Entry* c = m->find("counters")) counters(*c, p.counters);
}

void Parser::trace(const Entry& e, TracePass& t) {
  auto m = map(e, "passes.trace", k_trace_keys);
  if (!m) return;
  read_bool(*m, "enabled", t.enabled);
  read_bool(*m, "stats", t.stats);
  read_bool(*m, "markers", t.markers);
}

void Parser::counters(const Entry& e, CountersPass& c) {
  auto m = map(e, "passes.counters", k_counters_keys);
  if (!m) return;
  set(c.enabled, true, e);
  if (const Entry* x = m->find("metric_sets"))
    if (auto v = read_names(*x, "passes.counters.metric_sets", "metric set"))
      c.metric_sets = std::move(*v);
  if (const Entry* x = m->find("counters"))
    if (auto v = read_names(*x, "passes.counters.counters", "counter")) c.counters = std::move(*v);
  if (const Entry* x = m->find("pins")) {
    const std::string path = "passes.counters.pins";
    if (auto lists = m_r.list(x->value, x->value_pos, path)) {
      std::vector<LocatedStrings> pins;
      bool good = true;
      for (size_t i = 0; i < lists->size(); ++i) {
        const YAML::Node& n = (*lists)[i];
        const std::string ipath = path + "[" + std::to_string(i) + "]";
        const SourcePos ip = n.IsNull() ? x->value_pos : m_r.pos_of(n.Mark());
        if (!n.IsSequence()) {
          m_r.error(ip, ipath + ": expected a list of counters, got " + Reader::describe(n),
                    "write each pin as [COUNTER_A, COUNTER_B]");
          good = false;
          continue;
        }
        auto names = read_names(Entry{std::to_string(i), ip, ip, n}, ipath, "counter");
        if (!names) {
          good = false;
          continue;
        }
        if (names->value.size() < 2) {
          m_r.error(ip, ipath + ": a pin needs at least two counters",
                    "a pin keeps counters in one pass; list two or more, or remove it");
          good = false;
          continue;
        }
        pins.push_back(std::move(*names));
      }
      if (good) set(c.pins, std::move(pins), *x);
    }
  }
  if (const Entry* x = m->find("kernels")) kernels(*x, c.kernels);
  if (const Entry* x = m->find("iteration_range")) {
    const std::string path = "passes.counters.iteration_range";
    if (auto s = m_r.string(x->value, x->value_pos, path)) {
      if (auto problem = detail::iteration_range_problem(*s))
        m_r.error(x->value_pos, path + ": " + *problem,
                  "write e.g. \"[1-2],[5]\": 1-based iterations, A-B inclusive");
      else
        set(c.iteration_range, std::optional<std::string>(*s), *x);
    }
  }
  if (const Entry* x = m->find("replay")) {
    // `kernel` (rocprofv3's beta kernel replay) is checked where the profiler is known: whether
    // the installed rocprofv3 offers it, and the workload's limits (exec/replay_choice.cpp).
    if (auto i = m_r.choice(x->value, x->value_pos, "passes.counters.replay", k_replays))
      set(c.replay, static_cast<Replay>(*i), *x);
  }
  if (const Entry* x = m->find("min_samples"))
    if (auto v = m_r.integer(x->value, x->value_pos, "passes.counters.min_samples", 1, 100000))
      set(c.min_samples, static_cast<int>(*v), *x);
  if (!m->find("metric_sets") && !m->find("counters") && !m->find("pins") && !m->has_unknown)
    m_r.error(e.value_pos, "passes.counters: names no metric_sets and no counters",
              "add metric_sets: [roofline] or counters: [...], or remove passes.counters");
}

void Parser::kernels(const Entry& e, KernelSelection& k) {
  auto m = map(e, "passes.counters.kernels", k_kernels_keys);
  if (!m) return;
  read_regex(*m, "include_regex", k.include_regex);
  read_regex(*m, "exclude_regex", k.exclude_regex);
  const Entry* x = m->find("from_trace");
  if (!x) return;
  auto ft = map(*x, "passes.counters.kernels.from_trace", k_from_trace_keys);
  if (!ft) return;
  FromTrace out;
  out.pos = x->value_pos;
  out.top = Located<int>{0, x->value_pos, false};
  out.by = Located<RankBy>{RankBy::total_duration, m_r.file_pos(), false};
  bool good = true;
  if (const Entry* t = ft->find("top")) {
    if (auto v =
            m_r.integer(t->value, t->value_pos, "passes.counters.kernels.from_trace.top", 1, 10000))
      set(out.top, static_cast<int>(*v), *t);
    else
      good = false;
  } else {
    m_r.missing(*ft, "top", "add e.g. top: 10 (how many kernels to keep)");
    good = false;
  }
  if (const Entry* b = ft->find("by")) {
    if (auto i =
            m_r.choice(b->value, b->value_pos, "passes.counters.kernels.from_trace.by", k_rank_by))
      set(out.by, static_cast<RankBy>(*i), *b);
    else
      good = false;
  }
  if (good) k.from_trace = out;
}

void Parser::retry(const Entry& e, Retry& r) {
  auto m = map(e, "retry", k_retry_keys);
  if (!m) return;
  read_int(*m, "attempts", r.attempts, 1, 100);
  if (const Entry* c = m->find("backoff"))
    if (auto d = m_r.duration(c->value, c->value_pos, "retry.backoff", std::chrono::hours(1), "1h"))
      set(r.backoff, *d, *c);
}

}  // namespace kprof::runbook::detail
