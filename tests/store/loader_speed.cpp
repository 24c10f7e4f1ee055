// kprof_store_speed [ROWS] [DIR]: loader vs raw typed insert of the same synthetic rows, each into
// a fresh database file. Prints rows/s and the ratio; asserts nothing (figures depend on the
// machine).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace fs = std::filesystem;
using namespace kprof::store;

namespace {

// CPU seconds of this process (user + system): on a shared machine wall time mostly measures
// the neighbours. I/O waits are not counted; the WAL writes are buffered and synced once per
// commit.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Clock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
};

struct Took {
  double wall, cpu;
};

Took since(const Clock& c) {
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - c.wall).count(),
          cpu_seconds() - c.cpu};
}

void report(const char* what, double n, Took raw, Took load) {
  std::printf(
      "%-15s %9.0f rows | raw insert %8.0f rows/s wall %8.0f rows/s cpu | loader %8.0f rows/s "
      "wall %8.0f rows/s cpu | loader/raw %.2f wall %.2f cpu\n",
      what, n, n / raw.wall, n / raw.cpu, n / load.wall, n / load.cpu, raw.wall / load.wall,
      raw.cpu / load.cpu);
}

std::vector<DispatchRow> make_dispatches(int64_t n) {
  std::mt19937_64 rng(42);
  std::vector<std::string> names;
  for (int i = 0; i < 60; ++i) {
    names.push_back("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<" +
                    std::to_string(i) + ">, std::array<char*, 1ul> >(int, at::native::Fill)");
  }
  std::vector<DispatchRow> rows(static_cast<size_t>(n));
  int64_t t = 1'000'000'000;
  for (int64_t i = 0; i < n; ++i) {
    DispatchRow& d = rows[static_cast<size_t>(i)];
    d.dispatch_id = i + 1;
    d.kernel_id = static_cast<int64_t>(rng() % 60);
    d.correlation_id = i + 1;
    d.agent = 1;
    d.queue_id = 1;
    d.stream_id = 0;
    d.pid = 4242;
    d.tid = 4243;
    d.start_ns = t;
    t += 1000 + static_cast<int64_t>(rng() % 20000);
    d.end_ns = t;
    d.kernel_name = names[static_cast<size_t>(d.kernel_id)];
    d.grid_x = 65536;
    d.wg_x = 256;
    d.lds = 4096;
    d.vgpr = 64;
    d.agpr = 0;
    d.sgpr = 32;
  }
  return rows;
}

int64_t new_pass(CaptureDb& db, PassKind kind) {
  int64_t run = db.create_run({"speed", "", "", "", "localhost", "bench", true, 1});
  return db.add_planned_pass(run, {0, kind, {}, {}, {}, "", ""});
}

// A fresh database `file` with one pass of `kind`; `prepare(db, pass)` does the untimed setup and
// returns the work that is timed.
template <class Prepare>
Took timed(const fs::path& file, PassKind kind, Prepare&& prepare) {
  fs::remove(file);
  CaptureDb db(file);
  const int64_t pass = new_pass(db, kind);
  auto work = prepare(db, pass);
  Clock t0;
  work();
  return since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::stoll(argv[1]) : 1'000'000;
  const fs::path dir = argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "kprof-speed";
  fs::create_directories(dir);
  auto rows = make_dispatches(n);

  const Took raw_t = timed(dir / "raw.db", PassKind::trace, [&](CaptureDb& db, int64_t pass) {
    const int64_t name_id = db.intern(rows[0].kernel_name);
    return [&db, pass, name_id, &rows] { RawInsert::dispatches(db, pass, rows, name_id); };
  });
  const Took load_t = timed(dir / "load.db", PassKind::trace, [&](CaptureDb& db, int64_t pass) {
    return [&db, pass, &rows, n] {
      PassLoader loader(db, pass);
      loader.begin_file("synthetic", "kernel_trace");
      for (const auto& r : rows) loader.dispatch(r);
      loader.end_file(n);
      loader.commit();
    };
  });
  report("dispatches", static_cast<double>(n), raw_t, load_t);

  // Counters: 8 per dispatch.
  std::vector<std::string> counter_names = {"SQ_WAVES",       "SQ_INSTS_VALU", "SQ_INSTS_SALU",
                                            "TCC_HIT_sum",    "TCC_MISS_sum",  "GRBM_COUNT",
                                            "SQ_BUSY_CYCLES", "TA_BUSY_avr"};
  const int64_t nd = n / 8;
  std::vector<CounterRow> crows;
  crows.reserve(static_cast<size_t>(nd * 8));
  for (int64_t i = 0; i < nd; ++i) {
    for (const auto& c : counter_names) crows.push_back({i + 1, 4242, c, double(i % 977)});
  }
  const Took rawc_t = timed(dir / "rawc.db", PassKind::counters, [&](CaptureDb& db, int64_t pass) {
    auto ids = std::make_shared<std::vector<int64_t>>();
    for (const auto& c : crows) ids->push_back(db.intern(c.counter));  // outside the timing
    return [&db, pass, &crows, ids] { RawInsert::counters(db, pass, crows, *ids); };
  });
  const Took loadc_t =
      timed(dir / "loadc.db", PassKind::counters, [&](CaptureDb& db, int64_t pass) {
        return [&db, pass, &crows] {
          PassLoader loader(db, pass);
          loader.begin_file("synthetic", "counter_collection");
          for (const auto& c : crows) loader.counter(c);
          loader.end_file(static_cast<int64_t>(crows.size()));
          loader.commit();
        };
      });
  const double nc = static_cast<double>(crows.size());
  report("counter values", nc, rawc_t, loadc_t);
  return 0;
}
