#include "core/report/run_ref.hpp"

namespace kprof::report {

OpenedRun open_run_ref(const std::string& text) {
  const RunRef ref = parse_run_ref(text);
  analysis::SessionOptions so;
  so.run_id = ref.run;
  // A comparison reads the trace model's sums and views of the bounded session (bounded_view).
  so.bounded = true;
  OpenedRun out{analysis::QuerySession::open(ref.db, so), "", {}};
  out.label = ref.db + " run " + std::to_string(out.session.trace_capture().run.id);
  for (const auto& j : out.session.joins_computed()) out.joins.push_back(analysis::join_note(j));
  return out;
}

RefComparison compare_run_refs(const std::string& a, const std::string& b,
                               const CompareOptions& options) {
  OpenedRun ra = open_run_ref(a), rb = open_run_ref(b);
  RefComparison out;
  out.joins = ra.joins;
  out.joins.insert(out.joins.end(), rb.joins.begin(), rb.joins.end());
  out.comparison = compare_runs(ra.session, ra.label, rb.session, rb.label, options);
  return out;
}

}  // namespace kprof::report
