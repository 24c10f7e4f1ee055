// kprof_ingest_bench: generates a seeded rocprofv3 kernel_trace.csv and counter_collection.csv and
// times, in paired rounds (every contender once per round, --rounds of them after one warm-up
// round; medians with their spread, each ratio the median of the per-round ratios), each into a
// fresh database file:
//   sqlite3 .import      — the sqlite3 shell importing the same file (one transaction, untyped)
//   kprof ingest         — the kprof CLI itself, as a user runs it (read, validate, hash, load)
//   raw insert, kprof schema — the same parsed rows through store::RawInsert (kprof's tables and
//                          index, one transaction), parsing done beforehand and not timed
//   raw insert, narrowest — the columns kprof stores per row into plain STRICT tables without
//                          index, with kprof's connection settings, one transaction, no parsing:
//                          the storage limit
//   parse only           — kprof's reader with the rows dropped (what parsing costs)
// Every contender is its own process; its peak RSS is the kernel's (wait4 rusage). Then, with
// --rss-rows, one `kprof ingest` of a larger file for its peak RSS. Asserts nothing.
//
//   kprof_ingest_bench [--trace-rows N] [--counter-rows N] [--rss-rows N] [--rounds R]
//                      [--kprof PATH] [--dir D] [--seed S] [--tsv FILE]
// --tsv appends one line per contender for bench/all (bench/harness/side_by_side.hpp, append_tsv).
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/harness/side_by_side.hpp"
#include "bench/ingest/csv_gen.hpp"
#include "core/base/error.hpp"
#include "core/ingest/read_file.hpp"
#include "core/store/capture_db.hpp"

namespace fs = std::filesystem;
using namespace kprof;
using bench::Contender;

namespace {

void remove_db(const fs::path& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(db.string() + suffix);
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

// Collects every parsed row in memory (the raw contenders insert them afterwards, timed alone).
class CollectSink : public store::RowSink {
 public:
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow& r) override { dispatches.push_back(r); }
  void counter(const store::CounterRow& r) override { counters.push_back(r); }
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
  std::vector<store::DispatchRow> dispatches;
  std::vector<store::CounterRow> counters;
};

// Rows dropped: what the reader alone costs.
class NullSink : public CollectSink {
 public:
  void dispatch(const store::DispatchRow&) override {}
  void counter(const store::CounterRow&) override {}
};

// store::RawInsert into kprof's own schema; parsing and interning are not timed.
double raw_kprof_schema(const fs::path& csv, const fs::path& db_path, ingest::Format format) {
  CollectSink rows;
  ingest::read_file(csv.string(), format, rows, {});
  store::CaptureDb db(db_path);
  const bool trace = format == ingest::Format::kernel_trace;
  const int64_t pass = new_pass(db, trace ? store::PassKind::trace : store::PassKind::counters);
  std::vector<int64_t> counter_ids;
  std::map<std::string, int64_t> ids;
  for (const auto& c : rows.counters) {
    auto it = ids.find(c.counter);
    if (it == ids.end()) it = ids.emplace(c.counter, db.intern(c.counter)).first;
    counter_ids.push_back(it->second);
  }
  const int64_t name_id = db.intern("kernel");
  const double t0 = bench::now_s();
  store::RawInsert::dispatches(db, pass, rows.dispatches, name_id);
  store::RawInsert::counters(db, pass, rows.counters, counter_ids);
  return bench::now_s() - t0;
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string e = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error(std::string(sql) + ": " + e);
  }
}

// The narrowest typed insert of the same rows: exactly the columns kprof stores per row — a
// dispatch's 11 of `dispatch_rows` (pass, ids, agent, queue, stream, pid, tid, times, variant; the
// baseline has no variant table, so it writes the Kernel_Id where kprof writes the variant id it
// looked up) and a counter value's 5 of `counter_values` (pass, pid, dispatch, counter id, value;
// a counter file's dispatches are written too, as kprof writes them) — into tables without index,
// key or constraint, one prepared statement each, one transaction, no parsing, with the connection
// kprof's store opens (core/store/capture_db_open.cpp, write_transaction.cpp: SQLITE_OPEN_NOMUTEX,
// WAL, synchronous=NORMAL, journal_size_limit 64 MiB; a bulk load's cache_size of 64 MiB,
// temp_store=MEMORY, BEGIN IMMEDIATE; statements prepared SQLITE_PREPARE_PERSISTENT as
// bulk_insert.hpp's). What only the storage costs: the limit a loader of kprof's rows can reach.
double raw_narrowest(const fs::path& csv, const fs::path& db_path, ingest::Format format) {
  CollectSink rows;
  ingest::read_file(csv.string(), format, rows, {});
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    throw std::runtime_error("cannot open " + db_path.string());
  exec(db,
       "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit=67108864; "
       "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY");
  exec(
      db,
      "CREATE TABLE d(pass_id INTEGER, dispatch_id INTEGER, correlation_id INTEGER, agent INTEGER, "
      "queue_id INTEGER, stream_id INTEGER, pid INTEGER, tid INTEGER, start_ns INTEGER, "
      "end_ns INTEGER, variant_id INTEGER) STRICT; CREATE TABLE c(pass_id INTEGER, pid INTEGER, "
      "dispatch_id INTEGER, counter_id INTEGER, value REAL) STRICT");
  // Dispatches 256 rows per INSERT, as kprof's loader writes them (bulk_insert.hpp), and the
  // remainder one by one.
  constexpr int k_batch = 256;
  std::string batch_sql = "INSERT INTO d VALUES ";
  for (int r = 0; r < k_batch; ++r)
    batch_sql += r ? ",(?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?)";
  sqlite3_stmt *sd = nullptr, *sb = nullptr, *sc = nullptr;
  if (sqlite3_prepare_v3(db, "INSERT INTO d VALUES (?,?,?,?,?,?,?,?,?,?,?)", -1,
                         SQLITE_PREPARE_PERSISTENT, &sd, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v3(db, batch_sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &sb, nullptr) !=
          SQLITE_OK ||
      sqlite3_prepare_v3(db, "INSERT INTO c VALUES (?,?,?,?,?)", -1, SQLITE_PREPARE_PERSISTENT, &sc,
                         nullptr) != SQLITE_OK)
    throw std::runtime_error(sqlite3_errmsg(db));
  std::map<std::string, int64_t> ids;
  std::vector<int64_t> counter_ids;
  for (const auto& c : rows.counters)
    counter_ids.push_back(ids.emplace(c.counter, static_cast<int64_t>(ids.size())).first->second);
  const int64_t pass = 1;
  const auto step = [db](sqlite3_stmt* st) {
    if (sqlite3_step(st) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db));
    sqlite3_reset(st);
  };
  const double t0 = bench::now_s();
  exec(db, "BEGIN IMMEDIATE");
  const auto bind = [](sqlite3_stmt* st, int first, const store::DispatchRow& d) {
    const int64_t v[10] = {pass,  d.dispatch_id, d.correlation_id, d.agent, d.queue_id, 0,
                           d.pid, d.tid,         d.start_ns,       d.end_ns};
    for (int i = 0; i < 10; ++i) sqlite3_bind_int64(st, first + i + 1, v[i]);
    if (d.stream_id)
      sqlite3_bind_int64(st, first + 6, *d.stream_id);
    else
      sqlite3_bind_null(st, first + 6);
    sqlite3_bind_int64(st, first + 11, d.kernel_id);
  };
  const size_t n = rows.dispatches.size(), full = n - n % k_batch;
  for (size_t i = 0; i < full; i += k_batch) {
    for (int r = 0; r < k_batch; ++r) bind(sb, 11 * r, rows.dispatches[i + static_cast<size_t>(r)]);
    step(sb);
  }
  for (size_t i = full; i < n; ++i) {
    bind(sd, 0, rows.dispatches[i]);
    step(sd);
  }
  for (size_t i = 0; i < rows.counters.size(); ++i) {
    const auto& c = rows.counters[i];
    sqlite3_bind_int64(sc, 1, pass);
    sqlite3_bind_int64(sc, 2, c.pid);
    sqlite3_bind_int64(sc, 3, c.dispatch_id);
    sqlite3_bind_int64(sc, 4, counter_ids[i]);
    sqlite3_bind_double(sc, 5, c.value);
    step(sc);
  }
  exec(db, "COMMIT");
  const double s = bench::now_s() - t0;
  sqlite3_finalize(sd);
  sqlite3_finalize(sb);
  sqlite3_finalize(sc);
  sqlite3_close(db);
  return s;
}

double parse_only(const fs::path& csv, ingest::Format format) {
  NullSink sink;
  const double t0 = bench::now_s();
  ingest::read_file(csv.string(), format, sink, {});
  return bench::now_s() - t0;
}

void compare(const char* what, const fs::path& csv, int64_t rows, ingest::Format format,
             const fs::path& dir, const std::string& kprof, int rounds, const std::string& tsv) {
  std::printf("\n%s: %lld rows, %.1f MB, median of %d paired rounds (load average before: %s)\n",
              what, static_cast<long long>(rows), static_cast<double>(fs::file_size(csv)) / 1e6,
              rounds, bench::load_average().c_str());
  std::fflush(stdout);
  const fs::path imp = dir / "import.db", kp = dir / "kprof.db", raw = dir / "raw.db",
                 narrow = dir / "narrow.db";
  std::vector<Contender> cs(5);
  cs[0].label = "sqlite3 .import";
  cs[0].argv = {"sqlite3", imp.string(), ".mode csv", ".import " + csv.string() + " t"};
  cs[0].before = [=] { remove_db(imp); };
  cs[1].label = "kprof ingest (the CLI)";
  cs[1].argv = {kprof, "ingest", kp.string(), csv.string()};
  cs[1].before = [=] { remove_db(kp); };
  cs[1].stdout_path = (dir / "kprof_ingest.log").string();
  cs[2].label = "raw insert, kprof schema (rows pre-parsed)";
  cs[2].timed = [=] { return raw_kprof_schema(csv, raw, format); };
  cs[2].before = [=] { remove_db(raw); };
  cs[3].label = "raw insert, narrowest table (pre-parsed)";
  cs[3].timed = [=] { return raw_narrowest(csv, narrow, format); };
  cs[3].before = [=] { remove_db(narrow); };
  cs[4].label = "(kprof parse only, rows dropped)";
  cs[4].timed = [=] { return parse_only(csv, format); };
  bench::interleave(cs, rounds, true);
  bench::print_table(cs, static_cast<double>(rows));
  // Ratios are kprof's figure over the other's (below 1: kprof takes less). The raw contenders
  // time their inserts alone (their CPU seconds include parsing first): the wall ratio of the two
  // is kprof's storage against the limit, like for like.
  bench::print_ratio(cs[1], cs[0]);
  bench::print_ratio(cs[2], cs[3]);
  bench::print_ratio(cs[1], cs[3]);
  std::printf("  (load average after: %s)\n", bench::load_average().c_str());
  std::fflush(stdout);
  const std::string bench_name = std::string("ingest ") + what;
  bench::append_tsv(tsv, bench_name.c_str(), static_cast<long long>(rows), cs[0], nullptr);
  bench::append_tsv(tsv, bench_name.c_str(), static_cast<long long>(rows), cs[1], &cs[0]);
  bench::append_tsv(tsv, bench_name.c_str(), static_cast<long long>(rows), cs[3], nullptr);
  bench::append_tsv(tsv, bench_name.c_str(), static_cast<long long>(rows), cs[2], &cs[3]);
  for (const auto& p : {imp, kp, raw, narrow}) remove_db(p);
}

void peak_rss(const fs::path& dir, int64_t rows, uint64_t seed, const std::string& kprof) {
  const fs::path csv = dir / "rss_kernel_trace.csv";
  bench::write_kernel_trace(csv.string(), rows, seed);
  std::printf("\npeak RSS: kprof ingest of %lld kernel_trace rows (%.1f MB), one run\n",
              static_cast<long long>(rows), static_cast<double>(fs::file_size(csv)) / 1e6);
  std::fflush(stdout);
  const fs::path db = dir / "rss.db";
  remove_db(db);
  std::vector<Contender> cs(1);
  cs[0].label = "kprof ingest (the CLI)";
  cs[0].argv = {kprof, "ingest", db.string(), csv.string()};
  cs[0].stdout_path = (dir / "rss_ingest.log").string();
  bench::interleave(cs, 1, false);
  bench::print_table(cs, static_cast<double>(rows));
  fs::remove(csv);
  remove_db(db);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t trace_rows = 1'000'000, counter_rows = 1'000'000, rss_rows = 0;
  int rounds = 3;
  uint64_t seed = 6;
  fs::path dir = fs::temp_directory_path() / ("kprof-ingest-bench-" + std::to_string(getpid()));
  std::string kprof = (fs::path(argv[0]).parent_path() / "kprof").string();
  std::string tsv, write_trace;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--trace-rows")
      trace_rows = std::stoll(v);
    else if (a == "--counter-rows")
      counter_rows = std::stoll(v);
    else if (a == "--rss-rows")
      rss_rows = std::stoll(v);
    else if (a == "--rounds")
      rounds = std::stoi(v);
    else if (a == "--seed")
      seed = std::stoull(v);
    else if (a == "--dir")
      dir = v;
    else if (a == "--kprof")
      kprof = v;
    else if (a == "--tsv")
      tsv = v;
    else if (a == "--write-trace")  // only write the synthetic kernel_trace (for perf), then exit
      write_trace = v;
    else {
      std::fprintf(stderr,
                   "unknown option %s\nusage: %s [--trace-rows N] [--counter-rows N] "
                   "[--rss-rows N (0: skip)] [--rounds R] [--kprof PATH] [--dir D] [--seed S] "
                   "[--tsv FILE] [--write-trace FILE]\n",
                   a.c_str(), argv[0]);
      return 2;
    }
  }
  try {
    if (!write_trace.empty()) {
      bench::write_kernel_trace(write_trace, trace_rows, seed);
      return 0;
    }
    fs::create_directories(dir);
    std::printf(
        "kprof ingest benchmark (seed %llu, synthetic rocprofv3-format files; %s; %ld CPUs)\n",
        static_cast<unsigned long long>(seed), kprof.c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    if (trace_rows > 0) {
      const fs::path kt = dir / "bench_kernel_trace.csv";
      bench::write_kernel_trace(kt.string(), trace_rows, seed);
      compare("kernel_trace.csv", kt, trace_rows, ingest::Format::kernel_trace, dir, kprof, rounds,
              tsv);
      fs::remove(kt);
    }
    if (counter_rows > 0) {
      const fs::path cc = dir / "bench_counter_collection.csv";
      bench::write_counter_collection(cc.string(), counter_rows, 8, seed);
      compare("counter_collection.csv", cc, counter_rows, ingest::Format::counter_collection, dir,
              kprof, rounds, tsv);
      fs::remove(cc);
    }
    if (rss_rows > 0) peak_rss(dir, rss_rows, seed, kprof);
    fs::remove_all(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kprof_ingest_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
