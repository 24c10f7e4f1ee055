// Parsing Slurm's outputs. The texts are what slurm-wlm 22.05.8 (Debian 12) printed on the
// loopback cluster of scripts/slurm-loopback, trimmed to the fields that matter.
#include "core/exec/launch/slurm_jobs.hpp"

#include <gtest/gtest.h>

namespace kprof::exec {
namespace {

TEST(SlurmJobs, ArrayRanges) {
  EXPECT_EQ(parse_array_ranges("4"), (std::vector<int64_t>{4}));
  EXPECT_EQ(parse_array_ranges("1-4"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(parse_array_ranges("3,5-7%2"), (std::vector<int64_t>{3, 5, 6, 7}));
  EXPECT_EQ(parse_array_ranges("[0-2]"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(parse_array_ranges("1-7:3"), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_TRUE(parse_array_ranges("x").empty());
}

TEST(SlurmJobs, ScontrolRecordsOfStartedTasksAndThePendingRest) {
  const std::string text =
      "JobId=1 ArrayJobId=1 ArrayTaskId=4 JobName=kt UserId=root(0) JobState=FAILED "
      "Reason=JobLaunchFailure Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:9 "
      "NodeList=vm Command=/tmp/dir with space/j2.sh WorkDir=/tmp\n"
      "JobId=3 ArrayJobId=1 ArrayTaskId=2 JobState=FAILED Reason=NonZeroExitCode Restarts=0 "
      "ExitCode=3:0 NodeList=vm\n"
      "JobId=2 ArrayJobId=1 ArrayTaskId=1 JobState=COMPLETED Reason=None Restarts=0 "
      "ExitCode=0:0 NodeList=vm\n"
      "JobId=9 ArrayJobId=1 ArrayTaskId=5-6%1 JobState=PENDING Reason=JobArrayTaskLimit "
      "Restarts=0 ExitCode=0:0 NodeList=\n"
      "JobId=7 ArrayJobId=7 ArrayTaskId=1 JobState=RUNNING Reason=None ExitCode=0:0\n";
  const auto t = parse_scontrol_jobs(text, 1);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.at(1).phase, SlurmPhase::completed);
  EXPECT_EQ(t.at(2).phase, SlurmPhase::failed);
  EXPECT_EQ(t.at(2).exit_code, 3);
  EXPECT_EQ(t.at(2).reason, "NonZeroExitCode");
  EXPECT_EQ(t.at(4).signal, 9);
  EXPECT_EQ(t.at(4).node, "vm");
  EXPECT_EQ(t.at(5).phase, SlurmPhase::waiting);
  EXPECT_EQ(t.at(6).reason, "JobArrayTaskLimit");
  EXPECT_TRUE(t.at(6).node.empty());
  EXPECT_EQ(t.at(1).reason, "");
}

TEST(SlurmJobs, RequeuedAfterNodeDownIsWaitingWithARestart) {
  const auto t = parse_scontrol_jobs(
      "JobId=12 ArrayJobId=10 ArrayTaskId=3 JobState=PENDING Reason=BeginTime Restarts=1 "
      "ExitCode=0:0 NodeList=(null)",
      10);
  ASSERT_EQ(t.count(3), 1u);
  EXPECT_EQ(t.at(3).phase, SlurmPhase::waiting);
  EXPECT_EQ(t.at(3).restarts, 1);
  EXPECT_FALSE(slurm_phase_ended(t.at(3).phase));
}

TEST(SlurmJobs, EveryEndStateMapsToAPhase) {
  EXPECT_EQ(slurm_phase("COMPLETED"), SlurmPhase::completed);
  EXPECT_EQ(slurm_phase("FAILED"), SlurmPhase::failed);
  EXPECT_EQ(slurm_phase("OUT_OF_MEMORY"), SlurmPhase::failed);
  EXPECT_EQ(slurm_phase("TIMEOUT"), SlurmPhase::timeout);
  EXPECT_EQ(slurm_phase("CANCELLED"), SlurmPhase::cancelled);
  EXPECT_EQ(slurm_phase("CANCELLED by 0"), SlurmPhase::cancelled);
  EXPECT_EQ(slurm_phase("NODE_FAIL"), SlurmPhase::lost);
  EXPECT_EQ(slurm_phase("PREEMPTED"), SlurmPhase::lost);
  EXPECT_EQ(slurm_phase("RUNNING"), SlurmPhase::running);
  EXPECT_EQ(slurm_phase("PENDING"), SlurmPhase::waiting);
  EXPECT_EQ(slurm_phase("SOME_NEW_STATE"), SlurmPhase::waiting);
  EXPECT_TRUE(slurm_phase_ended(SlurmPhase::lost));
  EXPECT_FALSE(slurm_phase_ended(SlurmPhase::running));
}

TEST(SlurmJobs, Sacct) {
  const auto t = parse_sacct(
      "12_1|COMPLETED|0:0\n12_3|CANCELLED by 0|0:15\n12_[4-5]|PENDING|0:0\n13_1|FAILED|1:0\n", 12);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.at(3).phase, SlurmPhase::cancelled);
  EXPECT_EQ(t.at(3).signal, 15);
  EXPECT_EQ(t.at(5).phase, SlurmPhase::waiting);
}

TEST(SlurmJobs, SbatchParsable) {
  EXPECT_EQ(parse_sbatch_job_id("17\n"), 17);
  EXPECT_EQ(parse_sbatch_job_id("17;cluster\n"), 17);
  EXPECT_EQ(parse_sbatch_job_id("sbatch: error: Batch job submission failed"), std::nullopt);
}

}  // namespace
}  // namespace kprof::exec
