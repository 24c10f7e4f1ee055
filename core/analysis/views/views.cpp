// QueryContext: the loaded capture, its trace model and joins, and the dispatch to the view
// builders (one file per view: top_view.cpp, families_view.cpp, ...).
#include "core/analysis/views/views.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/analysis/join/joined_stream.hpp"
#include "core/analysis/views/view_helpers.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

const std::vector<QueryContext::ViewEntry>& QueryContext::registry() {
  // Captureless lambdas defined in a member: they may call the private builders.
  static const std::vector<ViewEntry> entries = {
      {"top", [](QueryContext& q, const ViewOptions& o) { return q.top(o); }},
      {"families", [](QueryContext& q, const ViewOptions& o) { return q.families(o); }},
      {"variants", [](QueryContext& q, const ViewOptions& o) { return q.variants(o); }},
      {"phases", [](QueryContext& q, const ViewOptions& o) { return q.phases(o); }},
      {"structure", [](QueryContext& q, const ViewOptions& o) { return q.structure(o); }},
      {"windows", [](QueryContext& q, const ViewOptions& o) { return q.windows(o); }},
      {"explain", [](QueryContext& q, const ViewOptions& o) { return q.explain_view(o); }},
      {"counters", [](QueryContext& q, const ViewOptions& o) { return q.counters(o); }},
      {"metrics", [](QueryContext& q, const ViewOptions& o) { return q.metrics(o, false); }},
      {"metric_sets", [](QueryContext& q, const ViewOptions& o) { return q.metric_sets(o); }},
      {"roofline", [](QueryContext& q, const ViewOptions& o) { return q.metrics(o, true); }},
      {"passes", [](QueryContext& q, const ViewOptions& o) { return q.passes(o); }},
      {"samples", [](QueryContext& q, const ViewOptions& o) { return q.samples(o); }},
      {"claims", [](QueryContext& q, const ViewOptions& o) { return q.claims(o); }},
      {"ranks", [](QueryContext& q, const ViewOptions& o) { return q.ranks(o); }},
  };
  return entries;
}

const std::vector<std::string>& view_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& e : QueryContext::registry()) out.emplace_back(e.name);
    return out;
  }();
  return names;
}

QueryContext::QueryContext(store::CaptureDb& db, std::optional<int64_t> run_id, FamilyRules rules)
    : QueryContext(db, load_capture(db, run_id), std::move(rules)) {}

QueryContext::QueryContext(store::CaptureDb& db, Capture capture, FamilyRules rules)
    : m_db(db), m_cap(std::move(capture)), m_rules(std::move(rules)) {
  m_model = build_trace_model(m_cap.trace, m_cap.names, m_rules, m_cap.wave_size);
}

const JoinedCounters& QueryContext::joined() {
  if (!m_joined) {
    load_counter_rows(m_db, m_cap);
    m_joined = m_computed ? load_joined_counters(m_db, m_cap, *m_computed, m_use_unreliable)
                          : load_joined_counters(m_db, m_cap, m_use_unreliable);
    ++m_whole_loads;
  }
  return *m_joined;
}

const RunCounts& QueryContext::counts() {
  if (!m_counts)
    m_counts = m_cap.counter_rows ? run_counts(m_cap) : run_counts(m_db, run_trace_of(m_cap));
  return *m_counts;
}

bool QueryContext::for_each_joined(const std::function<bool(size_t)>& keep, const JoinedVisit& f) {
  if (m_bounded) return for_each_joined_bounded(keep, f);
  const auto& ds = m_cap.trace.dispatches;
  // The stream hands dispatches out in (pid, Dispatch_Id) order, the loader's; a hand-made
  // capture in another order reads them all at once.
  bool sorted = true;
  for (size_t k = 1; k < ds.size() && sorted; ++k)
    sorted = std::make_pair(ds[k - 1].pid, ds[k - 1].dispatch_id) <
             std::make_pair(ds[k].pid, ds[k].dispatch_id);
  if (m_joined || m_computed || !sorted) {
    const auto& jc = joined();
    for (size_t k = 0; k < ds.size(); ++k)
      if (keep(k)) f(k, jc, k);
    return jc.repeated_launches;
  }
  JoinedCounterStream stream(m_db, counts(), m_use_unreliable);
  m_one.by_dispatch.resize(1);
  bool repeated = false;
  for (size_t k = 0; k < ds.size(); ++k)
    if (keep(k)) visit_streamed(stream, k, ds[k], f, repeated);
  m_one.by_dispatch[0].clear();
  return repeated;
}

void QueryContext::visit_streamed(JoinedCounterStream& stream, size_t k, const Dispatch& d,
                                  const JoinedVisit& f, bool& repeated) {
  auto& samples = m_one.by_dispatch[0];
  samples = stream.take(d.pid, d.dispatch_id, m_one.counters);
  // As load_joined_counters marks it: two launches of one pass on one trace dispatch.
  for (size_t i = 1; i < samples.size() && !repeated; ++i)
    repeated =
        samples[i].pass_id == samples[i - 1].pass_id && samples[i].launch != samples[i - 1].launch;
  f(k, m_one, 0);
}

std::vector<JoinSummary> QueryContext::join_summaries() {
  return m_computed ? m_computed->summaries : read_joins(m_db, counts());
}

// Views built on joined counters say which joins failed their self-check and whether their
// counters were used.
void QueryContext::add_join_notes(Table& t) {
  for (const auto& j : join_summaries()) {
    if (j.reliable) continue;
    t.notes.push_back("pass " + std::to_string(j.ordinal) + ": " + join_check_text(j) +
                      (m_use_unreliable ? " [used anyway: --force-join]" : ""));
  }
}

const hw::Target* QueryContext::target() {
  if (!m_target_tried) {
    m_target_tried = true;
    if (!m_cap.arch.empty()) {
      try {
        m_target = hw::Target::load_arch(m_cap.arch);
      } catch (const Error&) {
        // No hardware file for this arch: counters still print, derived metrics do not.
      }
    }
  }
  return m_target ? &*m_target : nullptr;
}

Table QueryContext::base_table(const std::string& title) const {
  Table t;
  t.title = title;
  // The run's flag alone: `kprof run` records it from the backend, `kprof ingest` from the loaded
  // agents (store::PassLoader::commit), and schema 4 filled it in for databases made before.
  t.simulated = m_cap.run.simulated;
  t.run_id = m_cap.run.id;
  return t;
}

bool QueryContext::keep(size_t k, const ViewOptions& o) const {
  if (!o.family.empty() && m_model.variants[static_cast<size_t>(variant_of(k))].family != o.family)
    return false;
  if (o.phase && phase_of(k) != *o.phase) return false;
  return true;
}

Table QueryContext::view(const std::string& name, const ViewOptions& o) {
  if (!o.family.empty()) {
    bool found = false;
    std::vector<std::string> fams;
    for (const auto& v : m_model.variants) {
      found |= v.family == o.family;
      if (std::find(fams.begin(), fams.end(), v.family) == fams.end()) fams.push_back(v.family);
    }
    if (!found) {
      throw Error::input("no family '" + o.family + "' in run " + std::to_string(m_cap.run.id),
                         did_you_mean(nearest_names(o.family, fams, 3, true)));
    }
  }
  const auto& views = registry();
  const auto entry =
      std::find_if(views.begin(), views.end(), [&](const ViewEntry& e) { return name == e.name; });
  if (entry == views.end()) {
    throw Error::input("unknown view '" + name + "'",
                       did_you_mean(nearest_names(name, view_names(), 1, true)) +
                           " (views: " + join(view_names(), ", ") + ")");
  }
  // A bounded context holds the sums of the views that read no dispatch but in order.
  if (m_bounded && !bounded_view(name))
    throw std::logic_error("view '" + name + "' asked of a bounded query context");
  Table t = entry->build(*this, o);
  apply_limit(t, o.limit);
  return t;
}

}  // namespace kprof::analysis
