// The runbook's `launcher:` map: accepted values with their positions, and each refusal with its
// exact message and position (lines count from k_minimal's 4 lines).
#include <gtest/gtest.h>

#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

std::string with(const std::string& more) { return std::string(k_minimal) + more; }

class Launcher : public RunbookTest {};

TEST_F(Launcher, DefaultIsLocal) {
  const Runbook rb = load(k_minimal);
  EXPECT_FALSE(rb.launcher.present);
  EXPECT_EQ(rb.launcher.type.value, "local");
  EXPECT_EQ(rb.launcher.gpus_per_task.value, 1);
  EXPECT_TRUE(rb.launcher.sbatch_args.value.empty());
}

TEST_F(Launcher, SlurmSettingsWithPositions) {
  const Runbook rb =
      load(with("launcher:\n  type: slurm\n  partition: mi300x\n  time: \"1:30:00\"\n"
                "  gpus_per_task: 2\n  sbatch_args: [--account=proj, --qos=high]\n"));
  EXPECT_TRUE(rb.launcher.present);
  EXPECT_EQ(rb.launcher.type.value, "slurm");
  EXPECT_EQ(rb.launcher.type.pos.line, 6);
  EXPECT_EQ(rb.launcher.partition.value, "mi300x");
  EXPECT_EQ(rb.launcher.time.value, "1:30:00");
  EXPECT_EQ(rb.launcher.gpus_per_task.value, 2);
  ASSERT_EQ(rb.launcher.sbatch_args.value.size(), 2u);
  EXPECT_EQ(rb.launcher.sbatch_args.value[1].value, "--qos=high");
  EXPECT_EQ(rb.launcher.sbatch_args.value[1].pos.line, 10);
}

// The name is kept as written: the launchers are core/exec's registry, which checks it
// (tests/exec/registered_names_test.cpp refuses 'lsf' there, with the registered names).
TEST_F(Launcher, TypeIsKeptAsWrittenWithItsPosition) {
  const Runbook rb = load(with("launcher:\n  type: k8s\n"));
  EXPECT_EQ(rb.launcher.type.value, "k8s");
  EXPECT_EQ(rb.launcher.type.pos.line, 6);
  EXPECT_EQ(rb.launcher.type.pos.col, 9);
  EXPECT_TRUE(rb.launcher.type.from_file);
}

TEST_F(Launcher, Refusals) {
  EXPECT_EQ(error(with("launcher:\n  type: \"a b\"\n")),
            "rb.yaml:6:9: launcher.type: 'a b' is not a launcher name (write a name as `kprof run "
            "--help` lists them under --launcher, e.g. slurm)");
  EXPECT_EQ(error(with("launcher:\n  type: k8s\n  partition: mi300x\n")),
            "rb.yaml:7:3: launcher.partition is a Slurm setting (add 'type: slurm' to the "
            "launcher map, or remove it)");
  EXPECT_EQ(error(with("launcher:\n  type: slurm\n  time: soon\n")),
            "rb.yaml:7:9: launcher.time: 'soon' is not a Slurm time limit (write it as sbatch "
            "--time reads it: \"30\" (minutes), \"1:30:00\", \"1-12\" (days-hours))");
  EXPECT_EQ(error(with("launcher:\n  type: slurm\n  partition: \"a b\"\n")),
            "rb.yaml:7:14: launcher.partition: 'a b' is not a partition name (write a name as "
            "`sinfo -s` lists them, or several separated by ',')");
  EXPECT_EQ(error(with("launcher:\n  type: slurm\n  sbatch_args: [--array=1-3]\n")),
            "rb.yaml:7:17: launcher.sbatch_args[0]: '--array' is set by kprof (remove it: kprof "
            "submits one array task per pass)");
  EXPECT_EQ(error(with("launcher:\n  type: slurm\n  sbatch_args: [account]\n")),
            "rb.yaml:7:17: launcher.sbatch_args[0]: 'account' is not an sbatch option (write "
            "options as sbatch reads them, e.g. --account=proj)");
  EXPECT_EQ(error(with("launcher:\n  partition: mi300x\n")),
            "rb.yaml:6:3: launcher.partition is a Slurm setting (add 'type: slurm' to the "
            "launcher map, or remove it)");
  EXPECT_EQ(error(with("launcher:\n  type: slurm\n  gpus_per_task: 100\n")),
            "rb.yaml:7:18: launcher.gpus_per_task: 100 is out of range (use 0 to 64)");
  EXPECT_EQ(error(with("launcher:\n  typ: slurm\n")),
            "rb.yaml:6:3: unknown key 'launcher.typ' (did you mean 'type'?)");
}

}  // namespace
}  // namespace kprof::runbook::testing
