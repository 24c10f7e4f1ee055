// The real rocprofv3 JSON capture (tests/data/captures/aorta-fsdp-rank-908: one torchrun worker
// of a ROCm/aorta FSDP run on 8 x gfx950, cut to a window of 2,053 dispatches by cut.py there),
// discovered, read and stored in a real SQLite capture database through the loader `kprof ingest`
// uses, then read back through the store. Every expected figure is one that `cut.py --truths`
// counts from the excerpt's raw records (PROVENANCE.md in that folder lists them).
#include <gtest/gtest.h>

#include <SQLiteCpp/Database.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/base/error.hpp"
#include "core/ingest/discover.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/pass_ranks.hpp"
#include "tests/ingest/captures.hpp"
#include "tests/store/store_test_util.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
using store::testing::TempDir;

const fs::path k_folder = test::k_captures / "aorta-fsdp-rank-908";

// Discovers `folder` and loads its one pass into `pass`.
void load_into(store::CaptureDb& db, const fs::path& folder, int64_t pass) {
  const Discovery found = discover({folder.string()});
  EXPECT_EQ(found.passes.size(), 1u);
  store::PassLoader loader(db, pass);
  read_pass(found.passes.at(0), loader, ReadOptions{});
  loader.commit();
}

// A new run's trace pass, loaded from `folder`; returns the pass id.
int64_t load(store::CaptureDb& db, const fs::path& folder, const std::string& run) {
  const int64_t pass = store::testing::make_pass(db, store::testing::make_run(db, run), 0);
  load_into(db, folder, pass);
  return pass;
}

TEST(JsonCapture, StoredRowsHoldTheTruthsOfTheRawRecords) {
  TempDir dir;
  store::CaptureDb db(dir / "c.db");
  const int64_t pass = load(db, k_folder, "aorta");

  std::vector<store::DispatchRow> rows;
  db.for_each_dispatch(pass, [&](const store::DispatchRow& d) { rows.push_back(d); });
  ASSERT_EQ(rows.size(), 2053u);
  std::set<std::string> kernels;
  std::map<int64_t, int64_t> per_queue, per_agent;
  int64_t collectives = 0, collective_ns = 0, all_ns = 0;
  int64_t first = rows[0].start_ns, last = rows[0].end_ns;
  for (const auto& d : rows) {
    kernels.insert(d.kernel_name);
    ++per_queue[d.queue_id];
    ++per_agent[d.agent];
    EXPECT_EQ(d.pid, 908);
    all_ns += d.end_ns - d.start_ns;
    first = std::min(first, d.start_ns);
    last = std::max(last, d.end_ns);
    if (d.kernel_name.rfind("ncclDevKernel_", 0) == 0) {
      ++collectives;
      collective_ns += d.end_ns - d.start_ns;
      EXPECT_EQ(d.kernel_name, "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)");
    }
  }
  EXPECT_EQ(kernels.size(), 23u);
  EXPECT_EQ(per_agent, (std::map<int64_t, int64_t>{{2, 2053}}));
  EXPECT_EQ(per_queue, (std::map<int64_t, int64_t>{{16, 136}, {18, 786}, {19, 1118}, {20, 13}}));
  EXPECT_EQ(collectives, 13);
  EXPECT_EQ(collective_ns, 884427021);
  EXPECT_EQ(all_ns, 892804505);
  EXPECT_EQ(first, 63860075331517);
  EXPECT_EQ(last, 63866402119689);

  // One process, one GPU agent: exactly one rank. The other ranks of the 8-GPU run wrote files
  // of their own, which are not in the capture.
  EXPECT_EQ(store::pass_ranks(db, pass), (std::vector<store::PassRank>{{0, 908, 2, 2053}}));

  const auto agents = db.agents(pass);
  ASSERT_EQ(agents.size(), 4u);  // two CPUs, the GPU every dispatch ran on, and the next GPU
  EXPECT_EQ(agents[2].logical_node_id, 2);
  EXPECT_EQ(agents[2].type, "GPU");
  EXPECT_EQ(agents[2].name, "gfx950");
  EXPECT_EQ(agents[2].product_name, "AMD Instinct MI350X");
  EXPECT_EQ(agents[2].cu_count, 256);

  const auto files = db.ingest_files(pass);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].kind, "json");
}

// A file cut off mid-record fails the load, and the loader rolls back: the database holds exactly
// what it held before (the pass loaded from the whole file included).
TEST(JsonCapture, ACutOffFileLeavesTheDatabaseAsItWas) {
  TempDir dir;
  store::CaptureDb db(dir / "c.db");
  load(db, k_folder, "aorta");
  const fs::path broken = dir / "cut" / "908_results.json";
  fs::create_directories(broken.parent_path());
  {
    std::ifstream in(k_folder / "908_results.json", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(broken, std::ios::binary) << text.substr(0, text.size() * 3 / 4);
  }
  const int64_t pass = store::testing::make_pass(db, store::testing::make_run(db, "cut"), 0);
  std::string before;
  {
    SQLite::Database raw((dir / "c.db").string(), SQLite::OPEN_READONLY);
    before = store::testing::dump_all_tables(raw);
  }
  try {
    load_into(db, broken.parent_path(), pass);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].line().find("not valid JSON"), std::string::npos)
        << e.diagnostics()[0].line();
  }
  SQLite::Database raw((dir / "c.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(store::testing::dump_all_tables(raw), before);
}

}  // namespace
}  // namespace kprof::ingest
