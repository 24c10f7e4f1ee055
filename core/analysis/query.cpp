#include "core/analysis/query.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

std::optional<Phase> parse_phase_option(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto p = parse_phase(text)) return p;
  throw Error::input("--phase: unknown phase '" + std::string(text) + "'",
                     "choose " + phase_choices());
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
  QuerySession session = QuerySession::open(r.db, r.session);
  for (const auto& j : session.joins_computed()) out.joins.push_back(join_note(j));
  out.notes = session.notes();
  out.table = session.view(r.view, r.options);
  return out;
}

}  // namespace kprof::analysis
