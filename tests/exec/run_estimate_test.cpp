// The estimates of `kprof plan` (run_estimate.hpp) read the workload model through the loader the
// app composes (workload_model.hpp), so core/exec needs no part of the test double's engine. A
// hand-made model here; the double's own loader is composed in apps/kprof (sim_workload.cpp) and
// exercised by the plan CLI tests.
#include "core/exec/usecases/run_estimate.hpp"

#include <gtest/gtest.h>

#include "core/runbook/runbook.hpp"

namespace kprof::exec {
namespace {

runbook::Runbook with_model(const std::string& name) {
  runbook::Runbook rb;
  rb.sim.present = true;
  rb.sim.model.value = name;
  return rb;
}

// load 1 s, warm-up 0.2 s, one request 0.5 s, 1000 ns per counted dispatch.
WorkloadModelLoader fixed_model(int& calls) {
  return [&calls](const std::string& name) {
    ++calls;
    WorkloadModel m;
    m.name = name;
    m.symbols = {"gemm", "norm"};
    // Region: gemm(64) norm(64) gemm(128) gemm(64): three variants, four counted launches.
    m.dispatches = {{0, {64, 1, 1}, false},
                    {0, {64, 1, 1}, true},
                    {1, {64, 1, 1}, true},
                    {0, {128, 1, 1}, true},
                    {0, {64, 1, 1}, true}};
    m.load_ns = 1e9;
    m.warmup_ns = 2e8;
    m.region_ns = 5e8;
    m.counter_extra_ns = 1000;
    return m;
  };
}

TEST(RunEstimate, TimesComeFromTheInjectedModel) {
  int calls = 0;
  const RunEstimate e = estimate_runs(with_model("toy"), 3, 4, 100, fixed_model(calls));
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(e.unavailable, "");
  EXPECT_EQ(e.model, "toy");
  // trace run = 1 + 0.2 + 0.5 = 1.7 s; a counter run adds 100 × 1000 ns = 0.0001 s.
  EXPECT_EQ(e.application_runs, 4);
  EXPECT_NEAR(e.application_s, 1.7 + 3 * 1.7001, 1e-9);
  // rotated: the trace, then one load and warm-up and 4 requests of 0.5001 s.
  EXPECT_NEAR(e.rotated_s, 1.7 + 1.2 + 4 * 0.5001, 1e-9);
}

// `kprof plan` estimates on the model twice (its rotation, then the run times): it is read once.
TEST(RunEstimate, AModelIsLoadedOncePerName) {
  int calls = 0;
  const WorkloadModelLoader once = loaded_once(fixed_model(calls));
  ASSERT_TRUE(rotation_on_model(with_model("toy"), 2, 1, once).has_value());
  EXPECT_EQ(estimate_runs(with_model("toy"), 3, 4, 100, once).unavailable, "");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(once("other").name, "other");
  EXPECT_EQ(calls, 2);
  int failures = 0;
  const WorkloadModelLoader broken = loaded_once([&failures](const std::string&) -> WorkloadModel {
    ++failures;
    throw Error::input("no such model", "name one of configs/sim");
  });
  EXPECT_THROW(broken("gone"), Error);
  EXPECT_THROW(broken("gone"), Error);
  EXPECT_EQ(failures, 2);  // a failed load is not kept
}

TEST(RunEstimate, NoLoaderNoEstimate) {
  const RunEstimate e = estimate_runs(with_model("toy"), 3, 4, 100, {});
  EXPECT_NE(e.unavailable, "");
  EXPECT_FALSE(rotation_on_model(with_model("toy"), 2, 1, {}).has_value());
}

TEST(RunEstimate, RotationOnTheInjectedModelsRegion) {
  int calls = 0;
  const auto m = rotation_on_model(with_model("toy"), 2, 1, fixed_model(calls));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->counted, 4);    // the region's launches, not the warm-up's
  EXPECT_EQ(m->variants, 3u);  // gemm 64, norm 64, gemm 128
  EXPECT_EQ(m->model, "toy");
}

}  // namespace
}  // namespace kprof::exec
