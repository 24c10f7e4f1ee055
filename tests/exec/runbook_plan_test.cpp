// The plan use case of `kprof plan` (core/exec/usecases/runbook_plan.hpp) and its views: the next
// run's id, the commands `kprof run` would launch, --gpus slots, and the JSON and text laid out
// from the same data. The profiler is a small script that prints a ROCm 7.0 version.
#include "core/exec/usecases/runbook_plan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/exec/usecases/plan_view.hpp"
#include "tests/exec/runbook_yaml.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using testing::runbook_yaml;
using testing::RunbookYaml;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

struct PlanFixture {
  TempDir dir;
  RunbookPlanRequest request;

  explicit PlanFixture(const std::string& counters, int ranks = 0) {
    write_script(dir / "rocprofv3",
                 "echo '         version: 1.0.0'\n"
                 "echo '    rocm_version: 7.0.2'\n");
    RunbookYaml y;
    y.name = "p";
    y.command = "[\"./app\"]";
    y.profiler = "  path: ./rocprofv3\n  output_format: csv\n";
    y.counters = counters;
    y.database = "p.db";
    y.ranks = ranks;
    write_file(dir / "p.yaml", runbook_yaml(y));
    request.runbook = dir / "p.yaml";
  }
};

TEST(RunbookPlan, PlansTheNextRunsCommandsAndEachGpuSlot) {
  PlanFixture f("GRBM_COUNT, GRBM_GUI_ACTIVE, SQ_WAVES");
  f.request.gpus = "0,1";
  const RunbookPlan p = plan_runbook(f.request);
  EXPECT_EQ(p.run_id, 1);  // no database yet
  EXPECT_FALSE(p.simulated);
  EXPECT_EQ(p.version.summary(), "rocprofiler-sdk 1.0.0 (ROCm 7.0.2)");
  ASSERT_TRUE(p.plan.counters);
  ASSERT_EQ(p.plan.passes.size(), 1 + p.plan.counters->plan.passes.size());
  EXPECT_EQ(p.plan.passes[0].kind, store::PassKind::trace);
  EXPECT_EQ(p.plan.passes[0].output_dir, pass_dir(p.rb, 1, 0));
  EXPECT_EQ(p.plan.passes[0].output_dir.parent_path().filename(), "run-1");
  EXPECT_GE(p.first_fit_passes, p.plan.counters->plan.passes.size());
  EXPECT_EQ(p.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.slot_envs.size(), 2u);
  EXPECT_FALSE(p.rotation);  // one counter pass: nothing to rotate

  // The views lay out the same data.
  const auto j = nlohmann::json::parse(plan_json(p));
  ASSERT_EQ(j["commands"].size(), p.plan.passes.size());
  for (size_t i = 0; i < p.plan.passes.size(); ++i)
    EXPECT_EQ(j["commands"][i]["argv"].get<std::vector<std::string>>(), p.plan.passes[i].argv);
  EXPECT_EQ(j["run_id"], 1);
  EXPECT_EQ(j["gpu_slots"].size(), 2u);
  const std::string text = plan_text(p, 0);
  EXPECT_NE(text.find("commands of run 1 in " + p.rb.database.value.string()), std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU slot 1 adds: "), std::string::npos) << text;
}

// workload.ranks: 2 makes --gpus 0,1,2,3 two slots of two GPUs each, {0,1} and {2,3}; the plan
// shows each slot's ROCR_VISIBLE_DEVICES. Three GPUs are not whole slots: refused at the key.
TEST(RunbookPlan, ShowsSlotsOfRanksGpus) {
  PlanFixture f("SQ_WAVES", 2);
  f.request.gpus = "0,1,2,3";
  const RunbookPlan p = plan_runbook(f.request);
  EXPECT_EQ(p.slots, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  const auto j = nlohmann::json::parse(plan_json(p));
  ASSERT_EQ(j["gpu_slots"].size(), 2u);
  EXPECT_EQ(j["gpu_slots"][1]["gpus"].get<std::vector<int>>(), (std::vector<int>{2, 3}));
  EXPECT_EQ(j["gpu_slots"][1]["env"],
            nlohmann::json::parse(R"([["ROCR_VISIBLE_DEVICES", "2,3"]])"));  // [name, value] pairs
  const std::string text = plan_text(p, 0);
  EXPECT_NE(text.find("GPU slot 0,1 adds: ROCR_VISIBLE_DEVICES=0,1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU slot 2,3 adds: ROCR_VISIBLE_DEVICES=2,3\n"), std::string::npos) << text;

  f.request.gpus = "0,1,2";
  try {
    plan_runbook(f.request);
    ADD_FAILURE() << "three GPUs in slots of two were planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics().at(0).line(),
              (f.dir / "p.yaml").string() +
                  ":5:10: --gpus 0,1,2: 3 GPUs do not make slots of workload.ranks: 2 (each pass "
                  "runs 2 worker processes, one per GPU) (list a multiple of 2 GPUs, e.g. --gpus "
                  "0,1)");
  }
}

TEST(RunbookPlan, TheNextRunIdFollowsTheDatabasesLastRunAndDbMovesTheFolders) {
  PlanFixture f("SQ_WAVES");
  const auto db_path = f.dir / "elsewhere" / "q.db";
  std::filesystem::create_directories(db_path.parent_path());
  {
    store::CaptureDb db(db_path);
    db.create_run({"earlier", "", "", "", "node", "0.1.0", false, {}});
    db.create_run({"earlier", "", "", "", "node", "0.1.0", false, {}});
  }
  f.request.db = db_path;
  const RunbookPlan p = plan_runbook(f.request);
  EXPECT_EQ(p.run_id, 3);
  EXPECT_EQ(p.rb.database.value, std::filesystem::absolute(db_path).lexically_normal());
  EXPECT_EQ(p.plan.passes.at(0).output_dir.parent_path().filename(), "run-3");
}

// The runbook is read before --gpus, as `kprof run` does: a bad runbook is what is reported.
TEST(RunbookPlan, ABadGpuListIsRefusedAfterTheRunbook) {
  PlanFixture f("SQ_WAVES");
  f.request.gpus = "0,0";
  EXPECT_THROW(plan_runbook(f.request), Error);
  f.request.runbook = f.dir / "missing.yaml";
  try {
    plan_runbook(f.request);
    FAIL() << "planned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.yaml"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kprof::exec
