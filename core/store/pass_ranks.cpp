// Reads pass_processes and the pass_ranks view (0010_pass_ranks.sql, which holds the rank rule).
#include "core/store/pass_ranks.hpp"

#include "core/store/capture_db.hpp"
#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

std::vector<PassProcess> pass_processes(CaptureDb& db, int64_t pass_id) {
  auto& sql = db.sql();
  return guarded(db, "reading a pass's processes", [&] {
    SQLite::Statement st(
        sql,
        "SELECT pid, agent, dispatches, first_start_ns, last_end_ns FROM pass_processes "
        "WHERE pass_id = ? "
        "ORDER BY pid, agent");
    st.bind(1, pass_id);
    std::vector<PassProcess> out;
    while (st.executeStep())
      out.push_back({st.getColumn(0).getInt64(), st.getColumn(1).getInt64(),
                     st.getColumn(2).getInt64(), st.getColumn(3).getInt64(),
                     st.getColumn(4).getInt64()});
    return out;
  });
}

std::vector<PassRank> pass_ranks(CaptureDb& db, int64_t pass_id) {
  auto& sql = db.sql();
  return guarded(db, "reading a pass's ranks", [&] {
    SQLite::Statement st(sql,
                         "SELECT rank, pid, agent, dispatches FROM pass_ranks WHERE pass_id = ? "
                         "ORDER BY rank");
    st.bind(1, pass_id);
    std::vector<PassRank> out;
    while (st.executeStep())
      out.push_back({st.getColumn(0).getInt(), st.getColumn(1).getInt64(),
                     st.getColumn(2).getInt64(), st.getColumn(3).getInt64()});
    return out;
  });
}

}  // namespace kprof::store
