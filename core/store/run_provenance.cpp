// CaptureDb: a run's provenance (run_provenance.hpp), in the run's row.
#include "core/store/run_provenance.hpp"

#include "core/store/capture_db.hpp"
#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

void CaptureDb::set_run_provenance(int64_t run_id, const RunProvenance& p) {
  guarded(*m_impl, "recording a run's provenance", [&] {
    SQLite::Statement st(m_impl->db,
                         "UPDATE runs SET simulated = ?, profiler_path = ?, profiler_release = ? "
                         "WHERE id = ?");
    st.bind(1, int64_t{p.simulated ? 1 : 0});
    st.bind(2, p.profiler_path);
    st.bind(3, p.profiler_release);
    st.bind(4, run_id);
    if (st.exec() != 1)
      throw Error::runtime(
          "run " + std::to_string(run_id) + " is not in '" + m_impl->path.string() + "'",
          "record the run before its provenance");
  });
}

std::optional<RunProvenance> CaptureDb::run_provenance(int64_t run_id) {
  return guarded(*m_impl, "reading a run's provenance", [&]() -> std::optional<RunProvenance> {
    SQLite::Statement st(
        m_impl->db, "SELECT simulated, profiler_path, profiler_release FROM runs WHERE id = ?");
    st.bind(1, run_id);
    if (!st.executeStep()) return std::nullopt;
    RunProvenance p;
    p.simulated = st.getColumn(0).getInt64() != 0;
    p.profiler_path = st.getColumn(1).getString();
    p.profiler_release = st.getColumn(2).getString();
    return p;
  });
}

}  // namespace kprof::store
