#include "core/analysis/views/query.hpp"

#include <algorithm>

#include "core/analysis/views/compact_views.hpp"
#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

std::optional<Phase> parse_phase_option(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto p = parse_phase(text)) return p;
  throw Error::input("--phase: unknown phase '" + std::string(text) + "'",
                     "choose " + phase_choices());
}

QueryRequest query_request(const QueryArgs& a) {
  if (a.db.empty()) throw Error::input("missing capture database", "usage: kprof query DB <view>");
  QueryRequest r;
  r.db = a.db;
  r.view = a.view;
  r.options.family = a.family;
  if (!a.family_arg.empty()) {
    if (!a.family.empty() && a.family != a.family_arg)
      throw Error::input(
          "two families given ('" + a.family_arg + "' and --family '" + a.family + "')",
          "give one");
    r.options.family = a.family_arg;
  }
  if (a.run) r.session.run_id = a.run;
  // Flags override the runbook's hints.
  if (a.expect_layers) r.session.layers = static_cast<int>(a.expect_layers);
  if (a.expect_steps) r.session.output_tokens = static_cast<int>(a.expect_steps);
  r.session.force_join = a.force_join;
  r.options.phase = parse_phase_option(a.phase);
  r.options.limit = a.limit > 0 ? static_cast<size_t>(a.limit) : 0;
  r.options.metric_sets = a.metric_sets;
  r.options.structured = a.structured;
  r.all = a.all;
  r.options.compact = !a.all && !a.structured;
  if (a.sql) {
    if (!a.view.empty())
      throw Error::input("give a view or --sql, not both", "see 'kprof query --help'");
    const auto timeout = parse_duration(a.timeout);
    if (!timeout || timeout->count() <= 0)
      throw Error::input("--timeout: '" + a.timeout + "' is not a duration",
                         "write e.g. 90s, 10m or 500ms");
    r.sql = a.sql;
    r.timeout = *timeout;
  }
  return r;
}

QueryResult run_query(const QueryRequest& r) {
  QueryResult out;
  if (r.sql) {
    store::CaptureDb db(r.db, store::OpenMode::read_only);
    const auto info = r.session.run_id ? db.find_run(*r.session.run_id) : db.find_last_run();
    out.table = sql_table(db, *r.sql, info && info->simulated, info ? info->id : 0, r.timeout);
    return out;
  }
  const auto& names = view_names();
  if (r.view.empty())
    throw Error::input("missing view", "views: " + join(names, ", ") + ", or --sql");
  if (std::find(names.begin(), names.end(), r.view) == names.end()) {
    throw Error::input("unknown view '" + r.view + "'",
                       did_you_mean(nearest_names(r.view, names, 1, true)) +
                           " (views: " + join(names, ", ") + ")");
  }
  // `top` over the whole trace streams the rows instead of loading the capture.
  if (auto t = streamed_view(r.db, r.session, r.view, r.options, out.notes)) {
    out.table = std::move(*t);
    return out;
  }
  // Views that read only the trace model's sums hold no dispatch when the stored join is current.
  SessionOptions options = r.session;
  options.bounded = bounded_view(r.view);
  QuerySession session = QuerySession::open(r.db, options);
  for (const auto& j : session.joins_computed()) out.joins.push_back(join_note(j));
  out.notes = session.notes();
  out.table = session.view(r.view, r.options);
  // Machine formats carry every row and column; the terminal's default is the compact form.
  if (!r.all && !r.options.structured) compact_counter_view(r.view, out.table);
  return out;
}

}  // namespace kprof::analysis
