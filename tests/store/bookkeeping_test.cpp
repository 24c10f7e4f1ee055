// Runs, passes, strings, selected kernels and the run lock, written and read back from a real file.
#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

TEST(Runs, CreateFindListAndStatus) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  EXPECT_FALSE(db.find_last_run());
  const int64_t before = now_unix_ms();
  NewRun n{"qwen3",
           "/rb/q.yaml",
           std::string(64, 'f'),
           "name: qwen3\nweird: \"quote\"\n",
           "node7",
           "0.1.0",
           true,
           1234};
  int64_t a = db.create_run(n);
  int64_t b = db.create_run({"other", "", "", "", "node8", "0.1.0", false, {}});
  int64_t c = db.create_run({"qwen3", "/rb/q.yaml", "", "", "node7", "0.1.0", false, {}});

  auto r = db.find_run(a);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, a);
  EXPECT_EQ(r->name, "qwen3");
  EXPECT_EQ(r->runbook_path, "/rb/q.yaml");
  EXPECT_EQ(r->runbook_sha256, std::string(64, 'f'));
  EXPECT_EQ(r->runbook_text, "name: qwen3\nweird: \"quote\"\n");
  EXPECT_EQ(r->host, "node7");
  EXPECT_GE(r->started_ms, before);
  EXPECT_FALSE(r->finished_ms);
  EXPECT_EQ(r->status, RunStatus::running);
  EXPECT_EQ(r->kprof_version, "0.1.0");
  EXPECT_TRUE(r->simulated);
  EXPECT_EQ(r->seed, 1234);
  EXPECT_FALSE(db.find_run(b)->simulated);
  EXPECT_FALSE(db.find_run(b)->seed);

  EXPECT_EQ(db.find_last_run()->id, c);
  EXPECT_EQ(db.find_run_by_name("qwen3")->id, c);
  EXPECT_EQ(db.find_run_by_name("other")->id, b);
  EXPECT_FALSE(db.find_run_by_name("nope"));
  EXPECT_FALSE(db.find_run(999));
  auto all = db.list_runs();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, a);
  EXPECT_EQ(all[2].id, c);

  db.set_run_status(a, RunStatus::interrupted, r->started_ms + 5);
  EXPECT_EQ(db.find_run(a)->status, RunStatus::interrupted);
  EXPECT_EQ(db.find_run(a)->finished_ms, r->started_ms + 5);
  db.set_run_status(a, RunStatus::running);
  EXPECT_FALSE(db.find_run(a)->finished_ms);
  db.set_run_status(a, RunStatus::done);
  EXPECT_GE(*db.find_run(a)->finished_ms, r->started_ms);
  EXPECT_THROW(db.set_run_status(999, RunStatus::done), Error);
}

TEST(Passes, PlannedPassKeepsEveryField) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  PlannedPass p;
  p.ordinal = 2;
  p.kind = PassKind::counters;
  p.counters = {"SQ_WAVES", "TCC_HIT_sum"};
  p.argv = {"rocprofv3", "--pmc", "SQ_WAVES TCC_HIT_sum",   "-d",      "/out/p 2", "--",
            "python3",   "-c",    "print(\"a\\b\")\n\tend", "ünïcödé", ""};
  p.env = {{"HIP_VISIBLE_DEVICES", "0"}, {"EMPTY", ""}, {"Q", "\"x\""}};
  p.output_dir = "/out/p 2";
  p.log_path = "/out/p 2/log.txt";
  int64_t id = db.add_planned_pass(run, p);
  testing::make_pass(db, run, 0);

  auto got = db.find_pass(run, 2);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, id);
  EXPECT_EQ(got->run_id, run);
  EXPECT_EQ(got->ordinal, 2);
  EXPECT_EQ(got->kind, PassKind::counters);
  EXPECT_EQ(got->counters, p.counters);
  EXPECT_EQ(got->argv, p.argv);
  EXPECT_EQ(got->env, p.env);
  EXPECT_EQ(got->state, PassState::planned);
  EXPECT_EQ(got->attempts, 0);
  EXPECT_FALSE(got->exit_code);
  EXPECT_FALSE(got->signal);
  EXPECT_EQ(got->reason, "");
  EXPECT_FALSE(got->started_ms);
  EXPECT_FALSE(got->finished_ms);
  EXPECT_EQ(got->output_dir, "/out/p 2");
  EXPECT_EQ(got->log_path, "/out/p 2/log.txt");
  EXPECT_EQ(got->log_excerpt, "");
  EXPECT_FALSE(got->owner_pid);
  EXPECT_EQ(got->owner_host, "");

  auto list = db.list_passes(run);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].ordinal, 0);
  EXPECT_EQ(list[0].kind, PassKind::trace);
  EXPECT_TRUE(list[0].argv.empty());
  EXPECT_EQ(list[1].id, id);
  EXPECT_FALSE(db.find_pass(run, 7));
  EXPECT_EQ(db.find_pass(id)->argv, p.argv);
}

TEST(Passes, StateMachineFields) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t id = testing::make_pass(db, run, 0);

  PassTransition start{PassState::running, 1, {}, {}, {}, {}, 4321, "nodeA"};
  db.set_pass_state(id, start);
  auto p = *db.find_pass(id);
  EXPECT_EQ(p.state, PassState::running);
  EXPECT_EQ(p.attempts, 1);
  EXPECT_EQ(p.owner_pid, 4321);
  EXPECT_EQ(p.owner_host, "nodeA");
  ASSERT_TRUE(p.started_ms);
  EXPECT_FALSE(p.finished_ms);
  EXPECT_EQ(p.launcher, "");  // the attempt is not started yet
  db.set_pass_launch(id, "local", "4400:123456");
  p = *db.find_pass(id);
  EXPECT_EQ(p.launcher, "local");
  EXPECT_EQ(p.launch_id, "4400:123456");

  db.set_pass_state(id,
                    {PassState::failed, {}, 1, 9, "killed by SIGKILL", "...last lines\n", {}, ""});
  p = *db.find_pass(id);
  EXPECT_EQ(p.state, PassState::failed);
  EXPECT_EQ(p.attempts, 1);  // kept
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.signal, 9);
  EXPECT_EQ(p.reason, "killed by SIGKILL");
  EXPECT_EQ(p.log_excerpt, "...last lines\n");
  EXPECT_FALSE(p.owner_pid);  // only a running pass has an owner
  EXPECT_EQ(p.owner_host, "");
  EXPECT_EQ(p.launcher, "");
  EXPECT_EQ(p.launch_id, "");
  EXPECT_THROW(db.set_pass_launch(id, "local", "1:2"), Error);  // not running
  ASSERT_TRUE(p.finished_ms);
  EXPECT_GE(*p.finished_ms, *p.started_ms);

  // A retry: a new attempt clears the previous exit status; reason and excerpt are kept.
  db.set_pass_state(id, {PassState::running, 2, {}, {}, {}, {}, 99, "nodeB"});
  p = *db.find_pass(id);
  EXPECT_EQ(p.attempts, 2);
  EXPECT_FALSE(p.exit_code);
  EXPECT_FALSE(p.signal);
  EXPECT_FALSE(p.finished_ms);
  EXPECT_EQ(p.reason, "killed by SIGKILL");
  EXPECT_EQ(p.owner_host, "nodeB");

  db.set_pass_state(id, {PassState::done, {}, 0, {}, std::string(), std::string("ok"), {}, ""});
  p = *db.find_pass(id);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.reason, "");
  EXPECT_EQ(p.log_excerpt, "ok");

  db.set_pass_state(id, {PassState::planned, 0, {}, {}, {}, {}, {}, ""});
  p = *db.find_pass(id);
  EXPECT_EQ(p.state, PassState::planned);
  EXPECT_EQ(p.attempts, 0);
  EXPECT_FALSE(p.started_ms);
  EXPECT_FALSE(p.finished_ms);
  EXPECT_THROW(db.set_pass_state(12345, start), Error);
}

TEST(Strings, InternIsIdempotent) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const std::string name(300, 'k');
  int64_t a = db.intern(name);
  int64_t b = db.intern("other");
  EXPECT_NE(a, b);
  EXPECT_EQ(db.intern(name), a);
  EXPECT_EQ(db.find_string(name), a);
  EXPECT_FALSE(db.find_string("missing"));
  EXPECT_EQ(db.string_by_id(b), "other");
  EXPECT_FALSE(db.string_by_id(999));
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM strings").getInt(), 2);
}

TEST(SelectedKernels, ReplacedAndOrderedByRank) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t other = testing::make_run(db, "other");
  db.set_selected_kernels(
      run, {{"gemm_b", 2, "top 2 by total_duration"}, {"gemm_a", 1, "top 2 by total_duration"}});
  db.set_selected_kernels(other, {{"x", 1, "include_regex 'x'"}});
  auto got = db.selected_kernels(run);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "gemm_a");
  EXPECT_EQ(got[0].rank, 1);
  EXPECT_EQ(got[1].name, "gemm_b");
  EXPECT_EQ(got[1].reason, "top 2 by total_duration");

  db.set_selected_kernels(run, {{"attn", 1, "include_regex 'attn'"}});
  got = db.selected_kernels(run);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].name, "attn");
  EXPECT_EQ(db.selected_kernels(other).size(), 1u);
  // Two kernels with one rank is a planner mistake; the old selection survives it.
  EXPECT_THROW(db.set_selected_kernels(run, {{"a", 1, ""}, {"b", 1, ""}}), Error);
  EXPECT_EQ(db.selected_kernels(run)[0].name, "attn");
}

TEST(RunLock, OneHolderAtATime) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  EXPECT_FALSE(db.run_lock(run));
  EXPECT_FALSE(db.try_lock_run(run, 100, "hostA"));  // acquired
  EXPECT_FALSE(db.try_lock_run(run, 100, "hostA"));  // same holder again: fine
  {
    // A second connection (another process would do the same) sees the holder.
    CaptureDb other(dir / "c.db");
    auto holder = other.try_lock_run(run, 200, "hostB");
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->pid, 100);
    EXPECT_EQ(holder->host, "hostA");
    EXPECT_GT(holder->acquired_ms, 0);
    other.unlock_run(run, 200, "hostB");  // not the holder: no effect
  }
  // The same pid on another host is someone else.
  EXPECT_TRUE(db.try_lock_run(run, 100, "hostB"));
  db.unlock_run(run, 100, "hostA");
  EXPECT_FALSE(db.run_lock(run));
  EXPECT_FALSE(db.try_lock_run(run, 300, "hostC"));
  db.break_run_lock(run);
  EXPECT_FALSE(db.run_lock(run));
}

}  // namespace
}  // namespace kprof::store

namespace kprof::store {

TEST(Passes, RunningAttemptRecordsItsExactCommand) {
  testing::TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t run = testing::make_run(db);
  const int64_t id = testing::make_pass(db, run, 1);
  const auto planned = db.find_pass(id)->argv;
  PassTransition start{PassState::running, 1, {}, {}, {}, {}, 7, "n"};
  start.argv = std::vector<std::string>{
      "rocprofv3", "--pmc", "SQ_WAVES", "--kernel-include-regex", "^(?:fused_moe_kernel)$",
      "--",        "true"};
  db.set_pass_state(id, start);
  EXPECT_EQ(db.find_pass(id)->argv, *start.argv);
  db.set_pass_state(id, {PassState::done, {}, 0, {}, {}, {}, {}, ""});  // no argv: kept
  EXPECT_EQ(db.find_pass(id)->argv, *start.argv);
  EXPECT_NE(planned, *start.argv);
}

}  // namespace kprof::store
