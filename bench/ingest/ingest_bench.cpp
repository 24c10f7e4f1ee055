// kprof_ingest_bench: generates a seeded rocprofv3 kernel_trace.csv and counter_collection.csv,
// then times side by side, each into a fresh database file:
//   sqlite3 .import   — the sqlite3 CLI importing the same file into an untyped table
//   kprof ingest      — tokenizer + reader (second thread) + PassLoader, one transaction
//   raw insert        — the same typed rows through store::RawInsert, parsed beforehand (untimed):
//                       the storage limit
// and prints rows/s and ratios; then the peak RSS of an ingest of a larger file (a child
// process, so its maxrss is the ingest's alone). Asserts nothing: figures depend on the machine.
//
//   kprof_ingest_bench [--trace-rows N] [--counter-rows N] [--rss-rows N] [--dir D] [--seed S]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/ingest/csv_gen.hpp"
#include "core/base/error.hpp"
#include "core/ingest/read_file.hpp"
#include "core/store/capture_db.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int64_t new_pass(store::CaptureDb& db, store::PassKind kind) {
  store::NewRun run;
  run.name = "bench";
  run.kprof_version = KPROF_VERSION;
  run.simulated = true;  // synthetic data: never passes for a measured capture
  int64_t id = db.create_run(run);
  store::PlannedPass p;
  p.kind = kind;
  p.ordinal = kind == store::PassKind::trace ? 0 : 1;
  return db.add_planned_pass(id, p);
}

double time_sqlite_import(const fs::path& csv, const fs::path& db) {
  fs::remove(db);
  const std::string cmd =
      "sqlite3 '" + db.string() + "' '.mode csv' '.import " + csv.string() + " t' > /dev/null 2>&1";
  double t0 = now_s();
  int rc = std::system(cmd.c_str());
  double t = now_s() - t0;
  if (rc != 0) std::fprintf(stderr, "warning: `%s` failed (rc %d)\n", cmd.c_str(), rc);
  return t;
}

double time_kprof_ingest(const fs::path& csv, const fs::path& db_path, ingest::Format format,
                         bool hash) {
  fs::remove(db_path);
  store::CaptureDb db(db_path);
  int64_t pass = new_pass(db, format == ingest::Format::kernel_trace ? store::PassKind::trace
                                                                     : store::PassKind::counters);
  double t0 = now_s();
  (void)hash;  // the reader now always hashes as it reads (one pass over the file)
  store::PassLoader loader(db, pass);
  ingest::ReadOptions ro;
  ro.pipelined = true;
  ingest::read_file(csv.string(), format, loader, ro);
  loader.commit();
  return now_s() - t0;
}

// Collects parsed rows in chunks and hands each chunk to RawInsert; only RawInsert is timed.
class RawSink : public store::RowSink {
 public:
  RawSink(store::CaptureDb& db, int64_t pass) : m_db(db), m_pass(pass) {}
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow& r) override {
    m_dispatches.push_back(r);
    if (m_dispatches.size() >= k_chunk) flush();
  }
  void counter(const store::CounterRow& r) override {
    auto it = m_ids.find(r.counter);
    if (it == m_ids.end()) it = m_ids.emplace(r.counter, m_db.intern(r.counter)).first;
    m_counters.push_back(r);
    m_counter_ids.push_back(it->second);
    if (m_counters.size() >= k_chunk) flush();
  }
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override { flush(); }
  double seconds = 0;
  int64_t rows = 0;

 private:
  void flush() {
    if (!m_name_id && !m_dispatches.empty()) m_name_id = m_db.intern(m_dispatches[0].kernel_name);
    double t0 = now_s();
    if (!m_dispatches.empty())
      rows += store::RawInsert::dispatches(m_db, m_pass, m_dispatches, *m_name_id);
    if (!m_counters.empty())
      rows += store::RawInsert::counters(m_db, m_pass, m_counters, m_counter_ids);
    seconds += now_s() - t0;
    m_dispatches.clear();
    m_counters.clear();
    m_counter_ids.clear();
  }
  static constexpr size_t k_chunk = 250'000;
  store::CaptureDb& m_db;
  int64_t m_pass;
  std::optional<int64_t> m_name_id;
  std::vector<store::DispatchRow> m_dispatches;
  std::vector<store::CounterRow> m_counters;
  std::vector<int64_t> m_counter_ids;
  std::map<std::string, int64_t> m_ids;
};

// Tokenizer + reader alone, rows dropped: what parsing costs.
class NullSink : public store::RowSink {
 public:
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow&) override {}
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
};

double time_parse_only(const fs::path& csv, ingest::Format format) {
  NullSink sink;
  double t0 = now_s();
  ingest::read_file(csv.string(), format, sink, {});
  return now_s() - t0;
}

double time_raw_insert(const fs::path& csv, const fs::path& db_path, ingest::Format format) {
  fs::remove(db_path);
  store::CaptureDb db(db_path);
  int64_t pass = new_pass(db, format == ingest::Format::kernel_trace ? store::PassKind::trace
                                                                     : store::PassKind::counters);
  RawSink sink(db, pass);
  ingest::read_file(csv.string(), format, sink, {});
  return sink.seconds;
}

void compare(const char* what, const fs::path& csv, int64_t rows, ingest::Format format,
             const fs::path& dir) {
  std::printf("\n%s: %lld rows, %.1f MB (%s)\n", what, static_cast<long long>(rows),
              static_cast<double>(fs::file_size(csv)) / 1e6, csv.c_str());
  const double imp = time_sqlite_import(csv, dir / "import.db");
  const double kp = time_kprof_ingest(csv, dir / "kprof.db", format, false);
  const double kph = time_kprof_ingest(csv, dir / "kprof_hash.db", format, true);
  const double raw = time_raw_insert(csv, dir / "raw.db", format);
  const double parse = time_parse_only(csv, format);
  auto rate = [&](double s) { return static_cast<double>(rows) / s; };
  std::printf("  %-34s %8.2f s %12.0f rows/s\n", "sqlite3 .import", imp, rate(imp));
  std::printf("  %-34s %8.2f s %12.0f rows/s\n", "kprof ingest", kp, rate(kp));
  std::printf("  %-34s %8.2f s %12.0f rows/s\n", "kprof ingest + sha256 provenance", kph,
              rate(kph));
  std::printf("  %-34s %8.2f s %12.0f rows/s\n", "raw typed insert (storage limit)", raw,
              rate(raw));
  std::printf("  %-34s %8.2f s %12.0f rows/s\n", "(parse only, rows dropped)", parse, rate(parse));
  std::printf(
      "  kprof ingest / sqlite3 .import = %.2fx   kprof ingest / raw insert = %.2f"
      "   (with sha256: %.2fx, %.2f)\n",
      imp / kp, raw / kp, imp / kph, raw / kph);
  for (const char* f : {"import.db", "kprof.db", "kprof_hash.db", "raw.db"}) {
    fs::remove(dir / f);
    fs::remove(dir / (std::string(f) + "-wal"));
    fs::remove(dir / (std::string(f) + "-shm"));
  }
}

void peak_rss(const fs::path& dir, int64_t rows, uint64_t seed) {
  const fs::path csv = dir / "rss_kernel_trace.csv";
  bench::write_kernel_trace(csv.string(), rows, seed);
  std::printf("\npeak RSS: kprof ingest of %lld kernel_trace rows (%.1f MB)\n",
              static_cast<long long>(rows), static_cast<double>(fs::file_size(csv)) / 1e6);
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    int rc = 0;
    try {
      double t0 = now_s();
      time_kprof_ingest(csv, dir / "rss.db", ingest::Format::kernel_trace, false);
      std::printf("  %.2f s, %.0f rows/s\n", now_s() - t0,
                  static_cast<double>(rows) / (now_s() - t0));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      rc = 1;
    }
    std::fflush(stdout);
    _exit(rc);
  }
  int status = 0;
  struct rusage ru {};
  wait4(child, &status, 0, &ru);
  std::printf("  peak RSS %.1f MB (getrusage ru_maxrss of the ingesting process)\n",
              static_cast<double>(ru.ru_maxrss) / 1024.0);
  fs::remove(csv);
  for (const char* f : {"rss.db", "rss.db-wal", "rss.db-shm"}) fs::remove(dir / f);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t trace_rows = 1'000'000, counter_rows = 5'000'000, rss_rows = 10'000'000;
  uint64_t seed = 6;
  fs::path dir = fs::temp_directory_path() / "kprof-ingest-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--trace-rows")
      trace_rows = std::stoll(v);
    else if (a == "--counter-rows")
      counter_rows = std::stoll(v);
    else if (a == "--rss-rows")
      rss_rows = std::stoll(v);
    else if (a == "--seed")
      seed = std::stoull(v);
    else if (a == "--dir")
      dir = v;
    else {
      std::fprintf(stderr,
                   "unknown option %s\nusage: %s [--trace-rows N] [--counter-rows N] "
                   "[--rss-rows N (0: skip)] [--dir D] [--seed S]\n",
                   a.c_str(), argv[0]);
      return 2;
    }
  }
  try {
    fs::create_directories(dir);
    std::printf("kprof ingest benchmark (seed %llu, synthetic rocprofv3-format files)\n",
                static_cast<unsigned long long>(seed));
    if (trace_rows > 0) {
      const fs::path kt = dir / "bench_kernel_trace.csv";
      bench::write_kernel_trace(kt.string(), trace_rows, seed);
      compare("kernel_trace.csv", kt, trace_rows, ingest::Format::kernel_trace, dir);
      fs::remove(kt);
    }
    if (counter_rows > 0) {
      const fs::path cc = dir / "bench_counter_collection.csv";
      bench::write_counter_collection(cc.string(), counter_rows, 8, seed);
      compare("counter_collection.csv", cc, counter_rows, ingest::Format::counter_collection, dir);
      fs::remove(cc);
    }
    if (rss_rows > 0) peak_rss(dir, rss_rows, seed);
  } catch (const Error& e) {
    std::fprintf(stderr, "kprof_ingest_bench: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
