// configs/families/collectives.yaml on a real capture: one torchrun worker of a ROCm/aorta FSDP
// run on 8 x gfx950 (tests/data/captures/aorta-fsdp-rank-908, rocprofv3 JSON), loaded through
// kprof's ingest into a real database. Its PROVENANCE.md gives the truths `cut.py --truths`
// counted from the raw records: 2,053 dispatches, 13 of them RCCL ncclDevKernel_Generic_1
// collectives taking 884,427,021 ns in all, one rank (pid 908 on agent 2).
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "core/analysis/structure/collectives.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/ingest/discover.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/pass_ranks.hpp"
#include "tests/store/store_test_util.hpp"

namespace kprof::analysis {
namespace {

namespace fs = std::filesystem;

TEST(CollectivesOnARealCapture, TheRcclKernelsOfAnFsdpWorkerAreItsCollectives) {
  store::testing::TempDir dir;
  const fs::path db_path = dir / "c.db";
  int64_t pass = 0;
  {
    store::CaptureDb db(db_path);
    pass = store::testing::make_pass(db, store::testing::make_run(db), 0);
    const auto found = ingest::discover(
        {(fs::path(KPROF_TEST_DATA) / "captures" / "aorta-fsdp-rank-908").string()});
    ASSERT_EQ(found.passes.size(), 1u);
    store::PassLoader loader(db, pass);
    ingest::read_pass(found.passes.at(0), loader, ingest::ReadOptions{});
    loader.commit();
    EXPECT_EQ(store::pass_ranks(db, pass), (std::vector<store::PassRank>{{0, 908, 2, 2053}}));
  }
  const FamilyRules families = FamilyRules::load_default();
  const CollectiveRules collectives = CollectiveRules::load_default();
  SQLite::Database d(db_path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement rows(d,
                         "SELECT s.value, d.end_ns - d.start_ns FROM dispatches d "
                         "JOIN strings s ON s.id = d.kernel_name_id WHERE d.pass_id = ?");
  rows.bind(1, pass);
  int64_t dispatches = 0, count = 0, ns = 0;
  std::set<std::string> libraries;
  while (rows.executeStep()) {
    ++dispatches;
    const std::string name = rows.getColumn(0).getString();
    const auto kind = collectives.kind_of_kernel(name, families.family_of(name));
    if (!kind) continue;
    ++count;
    ns += rows.getColumn(1).getInt64();
    libraries.insert(kind->library);
  }
  EXPECT_EQ(dispatches, 2053);
  EXPECT_EQ(count, 13);
  EXPECT_EQ(ns, 884427021);
  EXPECT_EQ(libraries, (std::set<std::string>{"rccl"}));
}

}  // namespace
}  // namespace kprof::analysis
