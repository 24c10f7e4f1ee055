// The crash test: `kill -9` of kprof (alone, or with its whole process tree) at named steps of a
// `kprof run` of the simulated Qwen3 runbook and of a `kprof ingest`, then the recovery a user
// would do (`kprof resume`, or the same `kprof ingest` again). Each point passes when the
// recovery exits 0, `PRAGMA integrity_check` says ok, and the database's canonical dump equals
// that of an uninterrupted run: nothing lost, nothing doubled.
//
// The steps are the crash points of core/base/crash_point.hpp, one-line calls in exec, ingest and
// the ingest command. The reference run counts how often each is reached (KPROF_CRASH_LOG), so a
// point is a hook and one of its actual hits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kprof::crash {

enum class Phase { planning, launching, running, ingesting, committing };
const char* phase_name(Phase p);

struct Hook {
  const char* name;
  Phase phase;
  const char* what;  // the state the database is in when kprof dies there
};
// The hooks a `kprof run` reaches, and those a `kprof ingest` reaches.
const std::vector<Hook>& run_hooks();
const std::vector<Hook>& ingest_hooks();

struct Point {
  std::string command;  // "run" or "ingest"
  std::string hook;
  int hit = 1;        // which time the hook is reached
  bool tree = false;  // kill every descendant too (the profiler and the workload)
  Phase phase = Phase::planning;
  std::string label() const;  // "run ingest.chunk_read:3 tree"
};

struct Outcome {
  bool passed = false;
  std::string detail;  // what differed, or "ok"
  double seconds = 0;
};

class Harness {
 public:
  // Runs the uninterrupted references in `work` (a run of the Qwen3 simulated runbook, and an
  // ingest of its first two passes' files) and counts every hook's hits.
  // `workload`, when given, replaces the runbook's workload command (a YAML flow list).
  explicit Harness(std::filesystem::path work, const std::string& workload = "");

  // Every hook at every hit, kprof alone and the whole tree.
  std::vector<Point> all_points() const;
  // `count` points chosen by `seed`: `kprof run` points round robin over the five phases, then
  // `ingest_count` points of `kprof ingest` (ingesting, committing); a random point of the phase
  // each time, kprof alone and the whole tree alternating.
  std::vector<Point> seeded_points(uint64_t seed, size_t count, size_t ingest_count) const;

  // The points of `kprof run` at `hooks`, each at its first and its last hit, kprof alone and
  // the whole tree.
  std::vector<Point> window_points(const std::vector<std::string>& hooks) const;

  Outcome run(const Point& p);

  // How often one uninterrupted run reached each hook.
  const std::map<std::string, int>& run_hits() const { return m_run_hits; }
  const std::map<std::string, int>& ingest_hits() const { return m_ingest_hits; }

 private:
  std::filesystem::path m_work;
  std::filesystem::path m_runbook_text_source;
  std::string m_runbook;  // the text every run of this harness starts from
  std::vector<std::string> m_run_dump, m_ingest_dump;
  std::map<std::string, int> m_run_hits, m_ingest_hits;
  int m_next = 0;
};

// "ok" or the integrity_check's first complaint.
std::string integrity(const std::filesystem::path& db);

}  // namespace kprof::crash
