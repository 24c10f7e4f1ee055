// What the benches that time kprof on capture databases of N dispatches (bench/query,
// bench/export) share: their command line and the database of each size, built or, with
// --db-dir, reused. Header-only, as the rest of bench/common.
//
//   <bench> [--rounds R] [--kprof PATH] [--db-dir DIR] [--runbook YAML] [--tsv FILE] [N ...]
// --db-dir keeps the databases in DIR and reuses one that is there (a 10M database takes minutes
// to build), instead of building them in a temporary folder removed at the end. --runbook: the
// runbook whose plan gives the counter passes (bench/query); --tsv: where to append the
// machine-readable lines bench/all reads (bench/harness/side_by_side.hpp, append_tsv).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/decode_loop_capture.hpp"
#include "bench/harness/side_by_side.hpp"

namespace kprof::bench {

struct DatabaseBenchArgs {
  std::vector<int64_t> sizes;  // dispatches per database; default 1M and 10M
  int rounds = 3;
  std::string kprof;    // default: the kprof beside the bench
  std::string db_dir;   // empty: a temporary folder
  std::string runbook;  // empty: the bench's default
  std::string tsv;      // empty: none written
};

// nullopt after printing the usage line (exit 2).
inline std::optional<DatabaseBenchArgs> parse_database_bench_args(int argc, char** argv,
                                                                  const char* bench_name) {
  DatabaseBenchArgs a;
  a.kprof = (std::filesystem::path(argv[0]).parent_path() / "kprof").string();
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--rounds" && i + 1 < argc)
      a.rounds = std::atoi(argv[++i]);
    else if (s == "--kprof" && i + 1 < argc)
      a.kprof = argv[++i];
    else if (s == "--db-dir" && i + 1 < argc)
      a.db_dir = argv[++i];
    else if (s == "--runbook" && i + 1 < argc)
      a.runbook = argv[++i];
    else if (s == "--tsv" && i + 1 < argc)
      a.tsv = argv[++i];
    else if (!s.empty() && s[0] != '-')
      a.sizes.push_back(std::atoll(s.c_str()));
    else {
      std::fprintf(stderr,
                   "usage: %s [--rounds R] [--kprof PATH] [--db-dir DIR] [--runbook YAML] "
                   "[--tsv FILE] [N ...]\n",
                   bench_name);
      return std::nullopt;
    }
  }
  if (a.sizes.empty()) a.sizes = {1'000'000, 10'000'000};
  return a;
}

// The database of `n` dispatches at `db`: reused when --db-dir was given and it is there, else
// built in a child process (build_decode_loop_capture_in_child) into `db`.part and renamed, so a
// build cut short is never reused. Prints what it did and the rounds to come.
inline void prepare_database(const std::filesystem::path& db, int64_t n,
                             const DatabaseBenchArgs& args, const DecodeLoopShape& shape,
                             const char* bench_name) {
  const double t0 = now_s();
  const bool reused = !args.db_dir.empty() && std::filesystem::exists(db);
  if (!reused) {
    auto part = db;
    part += ".part";
    std::filesystem::remove(part);
    build_decode_loop_capture_in_child(part, n, shape, bench_name);
    std::filesystem::rename(part, db);
  }
  std::printf(
      "\n%lld dispatches (database %s in %.1f s, %.1f MB), median of %d paired rounds "
      "(load average before: %s)\n",
      static_cast<long long>(n), reused ? "reused" : "built", now_s() - t0,
      static_cast<double>(std::filesystem::file_size(db)) / 1e6, args.rounds,
      load_average().c_str());
  std::fflush(stdout);
}

}  // namespace kprof::bench
