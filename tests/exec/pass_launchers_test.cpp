// The launcher registry (core/exec/launch/pass_launchers.cpp): every registered name makes its
// launcher, for a resume's owner record and for `--launcher NAME`, and an unknown name is refused
// with the names this kprof has.
#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/launch/pass_launcher.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using testing::what_of;

TEST(PassLaunchers, EveryRegisteredNameMakesItsLauncher) {
  EXPECT_EQ(pass_launcher_names(), (std::vector<std::string>{"local", "slurm"}));
  for (const auto& name : pass_launcher_names()) {
    const auto launcher = make_pass_launcher(name);
    ASSERT_NE(launcher, nullptr) << name;
    EXPECT_EQ(launcher->name(), name);
  }
}

TEST(PassLaunchers, AnUnknownNameIsRefusedWithTheRegisteredOnes) {
  EXPECT_EQ(what_of([] { make_pass_launcher("lsf"); }),
            "unknown pass launcher 'lsf' (this kprof launches passes with: local, slurm)");
  runbook::Runbook rb;
  LauncherFlags flags;
  flags.type = "lsf";
  EXPECT_EQ(what_of([&] { make_launcher(rb, flags); }),
            "unknown launcher 'lsf' (use --launcher local or slurm)");
}

TEST(PassLaunchers, LauncherFlagMakesTheRegisteredLauncher) {
  runbook::Runbook rb;
  LauncherFlags flags;
  EXPECT_EQ(make_launcher(rb, flags), nullptr);  // the runbook's default: local, the executor's
  flags.type = "local";
  EXPECT_EQ(make_launcher(rb, flags), nullptr);
  flags.type = "slurm";
  const auto slurm = make_launcher(rb, flags);
  ASSERT_NE(slurm, nullptr);
  EXPECT_EQ(slurm->name(), "slurm");
  EXPECT_TRUE(slurm->schedules_itself());
}

}  // namespace
}  // namespace kprof::exec
