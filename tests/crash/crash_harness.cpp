#include "tests/crash/crash_harness.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "core/exec/node/process_runner.hpp"
#include "tests/common/canonical_dump.hpp"

namespace kprof::crash {

namespace fs = std::filesystem;
using test_db::canonical_dump;

namespace {

const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";
const fs::path k_runbook = fs::path(KPROF_SOURCE_DIR) / "runbooks" / "qwen3-30b-a3b-sim.yaml";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Ran {
  exec::RunResult result;
  std::string output;
};

Ran kprof(const fs::path& dir, const std::vector<std::string>& args,
          const std::map<std::string, std::string>& env, const std::string& log) {
  exec::LaunchSpec s;
  s.argv = {k_kprof};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.cwd = dir;
  s.log_path = dir / log;
  s.env = env;
  // The double's timestamps are fixed, so start/end times compare equal across runs.
  s.env["ROCPROF_SIM_CLOCK_BASE_NS"] = "1000000000";
  s.log_tail_bytes = 1 << 16;
  s.timeout = std::chrono::minutes(5);
  Ran r;
  r.result = exec::run_process(s);
  r.output = read_text(s.log_path);
  return r;
}

std::map<std::string, int> count_hits(const fs::path& log) {
  std::map<std::string, int> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ++out[line];
  return out;
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::string first_differences(const std::vector<std::string>& want,
                              const std::vector<std::string>& got) {
  std::vector<std::string> only_want, only_got;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(only_want));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(only_got));
  std::string out = std::to_string(want.size()) + " rows expected, " + std::to_string(got.size()) +
                    " found; " + std::to_string(only_want.size()) + " missing, " +
                    std::to_string(only_got.size()) + " extra";
  for (size_t i = 0; i < std::min<size_t>(only_want.size(), 3); ++i)
    out += "\n  missing: " + only_want[i].substr(0, 300);
  for (size_t i = 0; i < std::min<size_t>(only_got.size(), 3); ++i)
    out += "\n  extra:   " + only_got[i].substr(0, 300);
  return out;
}

}  // namespace

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::planning:
      return "planning";
    case Phase::launching:
      return "launching";
    case Phase::running:
      return "running";
    case Phase::ingesting:
      return "ingesting";
    case Phase::committing:
      return "committing";
  }
  return "?";
}

const std::vector<Hook>& run_hooks() {
  static const std::vector<Hook> hooks = {
      {"plan.run_created", Phase::planning, "the run row exists, no pass yet"},
      {"plan.pass_added", Phase::planning, "some passes planned, not all"},
      {"launch.state_running", Phase::launching, "pass marked running, profiler not started"},
      {"launch.forked", Phase::launching,
       "profiler's process forked, held before exec, its id not recorded"},
      {"launch.recorded", Phase::launching, "its id recorded, the process still held"},
      {"launch.spawned", Phase::launching, "profiler started, its pid recorded"},
      {"run.pass_exited", Phase::running, "profiler exited, outcome not recorded"},
      {"run.selection_stored", Phase::running, "kernels of interest stored, no counter pass run"},
      {"ingest.loader_open", Phase::ingesting, "load transaction begun, no row"},
      {"ingest.chunk_read", Phase::ingesting, "a file's rows half loaded"},
      {"ingest.before_commit", Phase::ingesting, "every row loaded, not committed"},
      {"commit.rows_committed", Phase::committing, "rows committed, pass still running"},
      {"commit.pass_done", Phase::committing, "pass done, the next not started"},
      {"commit.run_status", Phase::committing, "every pass done, the run still running"},
  };
  return hooks;
}

const std::vector<Hook>& ingest_hooks() {
  static const std::vector<Hook> hooks = {
      // `kprof ingest` is one transaction: every point leaves the database as it was before.
      {"ingest_cmd.run_created", Phase::planning, "the run row written, no pass"},
      {"ingest_cmd.pass_added", Phase::launching, "a pass row written, nothing loaded"},
      {"ingest.loader_open", Phase::ingesting, "a pass's savepoint begun"},
      {"ingest.chunk_read", Phase::ingesting, "a file's rows half loaded"},
      {"ingest.before_commit", Phase::ingesting, "a pass's rows loaded, savepoint open"},
      {"commit.rows_committed", Phase::committing, "a pass's savepoint released"},
      {"commit.pass_done", Phase::committing, "a pass marked done"},
      {"commit.run_status", Phase::committing, "everything written, not committed"},
  };
  return hooks;
}

std::string Point::label() const {
  return command + " " + hook + ":" + std::to_string(hit) + (tree ? " tree" : " alone");
}

std::string integrity(const fs::path& db_path) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  return db.execAndGet("PRAGMA integrity_check").getString();
}

Harness::Harness(fs::path work, const std::string& workload) : m_work(std::move(work)) {
  fs::remove_all(m_work);
  fs::create_directories(m_work);
  m_runbook = read_text(k_runbook);
  if (m_runbook.empty()) throw std::runtime_error("cannot read " + k_runbook.string());
  if (!workload.empty()) {
    const std::string command = "command: [\"true\"]";
    const auto at = m_runbook.find(command);
    if (at == std::string::npos) throw std::runtime_error("no workload line in the runbook");
    m_runbook.replace(at, command.size(), "command: " + workload);
  }
  const std::string& runbook = m_runbook;

  const fs::path ref = m_work / "reference-run";
  fs::create_directories(ref);
  std::ofstream(ref / "qwen3.yaml") << runbook;
  Ran r = kprof(ref, {"run", "qwen3.yaml", "--simulate", "--quiet", "--db", "q.db"},
                {{"KPROF_CRASH_LOG", (ref / "hits.log").string()}}, "kprof.out");
  if (!r.result.ok()) {
    throw std::runtime_error("the reference run failed (" + r.result.describe() + "):\n" +
                             r.output);
  }
  m_run_hits = count_hits(ref / "hits.log");
  m_run_dump = canonical_dump(ref / "q.db");

  // The input of `kprof ingest`: the reference run's trace and first counter pass, laid out as
  // rocprofv3 writes a multi-pass run (files of the first pass at the top, pass_1/ for the next).
  fs::path run_dir;  // <database stem>-captures/run-1
  for (const auto& e : fs::directory_iterator(ref)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.size() > 9 && name.compare(name.size() - 9, 9, "-captures") == 0)
      run_dir = e.path() / "run-1";
  }
  copy_tree(run_dir / "pass-0", m_work / "capture");
  copy_tree(run_dir / "pass-1", m_work / "capture" / "pass_1");
  const fs::path ing = m_work / "reference-ingest";
  fs::create_directories(ing);
  r = kprof(ing, {"ingest", "i.db", (m_work / "capture").string()},
            {{"KPROF_CRASH_LOG", (ing / "hits.log").string()}}, "kprof.out");
  if (!r.result.ok()) {
    throw std::runtime_error("the reference ingest failed (" + r.result.describe() + "):\n" +
                             r.output);
  }
  m_ingest_hits = count_hits(ing / "hits.log");
  m_ingest_dump = canonical_dump(ing / "i.db");
}

std::vector<Point> Harness::all_points() const {
  std::vector<Point> out;
  for (const std::string command : {"run", "ingest"}) {
    const auto& hooks = command == "run" ? run_hooks() : ingest_hooks();
    const auto& hits = command == "run" ? m_run_hits : m_ingest_hits;
    for (const auto& h : hooks) {
      const auto it = hits.find(h.name);
      const int n = it == hits.end() ? 0 : it->second;
      for (int i = 1; i <= n; ++i) {
        for (bool tree : {false, true}) out.push_back(Point{command, h.name, i, tree, h.phase});
      }
    }
  }
  return out;
}

std::vector<Point> Harness::window_points(const std::vector<std::string>& hooks) const {
  std::vector<Point> out;
  for (const auto& p : all_points()) {
    if (p.command != "run" || std::find(hooks.begin(), hooks.end(), p.hook) == hooks.end())
      continue;
    // The first and the last time each is reached: the trace pass and the last counter pass.
    const int last = m_run_hits.at(p.hook);
    if (p.hit == 1 || p.hit == last) out.push_back(p);
  }
  return out;
}

std::vector<Point> Harness::seeded_points(uint64_t seed, size_t count, size_t ingest_count) const {
  std::mt19937_64 rng(seed);
  const auto all = all_points();
  std::vector<Point> out;
  std::set<std::string> taken;
  // `kprof run` points go round robin over the five phases; `kprof ingest` points over the two
  // where it has rows in flight (its planning is a row or two inside the same transaction).
  const std::vector<Phase> run_phases = {Phase::planning, Phase::launching, Phase::running,
                                         Phase::ingesting, Phase::committing};
  const std::vector<Phase> ingest_phases = {Phase::ingesting, Phase::committing};
  const size_t ingest_from = count - std::min(count, ingest_count);
  for (size_t i = 0; i < count; ++i) {
    const bool ingest = i >= ingest_from;
    const auto& phases = ingest ? ingest_phases : run_phases;
    const size_t k = ingest ? i - ingest_from : i;
    const bool tree = i % 2 == 1;
    std::vector<const Point*> pool;
    for (size_t tries = 0; pool.empty() && tries < phases.size(); ++tries) {
      const Phase phase = phases[(k + tries) % phases.size()];
      for (const auto& p : all) {
        if ((p.command == "ingest") == ingest && p.tree == tree && p.phase == phase &&
            !taken.count(p.label()))
          pool.push_back(&p);
      }
    }
    if (pool.empty()) continue;
    const Point& p = *pool[rng() % pool.size()];
    taken.insert(p.label());
    out.push_back(p);
  }
  return out;
}

Outcome Harness::run(const Point& p) {
  const auto start = std::chrono::steady_clock::now();
  Outcome o;
  const fs::path dir = m_work / ("point-" + std::to_string(++m_next));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::map<std::string, std::string> crash = {
      {"KPROF_CRASH_AT", p.hook + ":" + std::to_string(p.hit)}};
  if (p.tree) crash["KPROF_CRASH_TREE"] = "1";

  std::vector<std::string> first, again;
  fs::path db;
  const std::vector<std::string>* want = nullptr;
  if (p.command == "run") {
    std::ofstream(dir / "qwen3.yaml") << m_runbook;
    db = dir / "q.db";
    first = {"run", "qwen3.yaml", "--simulate", "--quiet", "--db", "q.db"};
    again = {"resume", "q.db", "--quiet"};
    want = &m_run_dump;
  } else {
    db = dir / "i.db";
    first = {"ingest", "i.db", (m_work / "capture").string()};
    again = first;
    want = &m_ingest_dump;
  }
  auto done = [&](bool passed, std::string detail) {
    o.passed = passed;
    o.detail = std::move(detail);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (passed) fs::remove_all(dir);  // a failed point's folder stays for a look
    return o;
  };

  const Ran crashed = kprof(dir, first, crash, "crashed.out");
  if (crashed.result.signal != SIGKILL) {
    return done(false, "kprof was not killed at " + p.hook + ":" + std::to_string(p.hit) + " (" +
                           crashed.result.describe() + "):\n" + crashed.output);
  }
  Ran recovered = kprof(dir, again, {}, "recovered.out");
  if (p.command == "run" && recovered.result.exit_code == 2 &&
      recovered.output.find("holds no run") != std::string::npos) {
    // Killed before the run and its planned passes were committed (one transaction): the database
    // holds no run, and the user starts it again.
    recovered = kprof(dir, first, {}, "recovered.out");
  }
  if (!recovered.result.ok()) {
    return done(false, "`kprof " + again[0] + "` after the crash: " + recovered.result.describe() +
                           ":\n" + recovered.output);
  }
  const std::string check = integrity(db);
  if (check != "ok") return done(false, "integrity_check: " + check);
  const auto got = canonical_dump(db);
  if (got != *want)
    return done(false,
                "the database differs from an uninterrupted run: " + first_differences(*want, got));
  return done(true, "ok");
}

}  // namespace kprof::crash
