// Test-only helpers: a capture database in a temp dir, filled through the real ingest library and
// the real store loader (no mocks), one pass per call.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/ingest/read_file.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::analysis::test {

class TempDb {
 public:
  explicit TempDb(const std::string& tag) {
    m_dir = std::filesystem::temp_directory_path() /
            ("kprof_analysis_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  ~TempDb() { std::filesystem::remove_all(m_dir); }
  std::filesystem::path path() const { return m_dir / "capture.db"; }
  const std::filesystem::path& dir() const { return m_dir; }

 private:
  std::filesystem::path m_dir;
};

inline int64_t new_run(store::CaptureDb& db, bool simulated) {
  store::NewRun r;
  r.name = "test";
  r.host = "test-host";
  r.kprof_version = "test";
  r.simulated = simulated;
  return db.create_run(r);
}

// Adds a pass and loads `files` (read in the given order) into it in one transaction.
inline int64_t load_pass(store::CaptureDb& db, int64_t run_id, int64_t ordinal,
                         store::PassKind kind, const std::vector<std::string>& files) {
  store::PlannedPass p;
  p.ordinal = ordinal;
  p.kind = kind;
  const int64_t id = db.add_planned_pass(run_id, p);
  {
    store::PassLoader loader(db, id);
    for (const auto& f : files) ingest::read_file(f, loader);
    loader.commit();
  }
  store::PassTransition done;
  done.state = store::PassState::done;
  db.set_pass_state(id, done);
  return id;
}

// A new (measured) run of the files a test wrote into `dir` as one process, pid 100: its trace pass
// is 100_agent_info.csv + 100_kernel_trace.csv, then one counter pass per name of `counter_files`
// (each with the same agent_info), ordinals 1, 2, ... Returns the run's id.
inline int64_t load_trace_and_counters(store::CaptureDb& db, const std::filesystem::path& dir,
                                       const std::vector<std::string>& counter_files) {
  const int64_t run = new_run(db, false);
  const std::string agents = (dir / "100_agent_info.csv").string();
  load_pass(db, run, 0, store::PassKind::trace, {agents, (dir / "100_kernel_trace.csv").string()});
  int64_t ordinal = 1;
  for (const auto& f : counter_files)
    load_pass(db, run, ordinal++, store::PassKind::counters, {agents, (dir / f).string()});
  return run;
}

}  // namespace kprof::analysis::test
