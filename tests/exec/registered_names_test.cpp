// The runbook's `launcher.type` and `profiler.backend` against core/exec's registries
// (pass_launchers.cpp, profiler_backends.cpp): no name is spelt here but the unknown ones, so a
// launcher or backend registered tomorrow is checked by the same tests. Every registered name is
// accepted by the built `kprof validate` (a real process) and by the executor's check; an unknown
// one is refused at its file:line:col with the registered names as the fix, by validate, plan and
// the launcher choice alike.
#include "core/exec/launch/registered_names.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <functional>

#include "core/base/text.hpp"
#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/exec/usecases/runbook_plan.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::what_of;
using testing::write_file;

// "a or b" for two names, "a, b, c" otherwise: as the runbook's closed choices list theirs.
std::string listed(const std::vector<std::string>& names) {
  return names.size() == 2 ? names[0] + " or " + names[1] : join(names, ", ");
}

class RegisteredNames : public ::testing::Test {
 protected:
  TempDir m_dir;

  // A runbook of 4 lines plus `more` (its first line is line 5).
  fs::path runbook(const std::string& more) {
    const fs::path p = m_dir / "rb.yaml";
    write_file(p, "schema_version: 1\nname: rb\nworkload:\n  command: [\"true\"]\n" + more);
    return p;
  }
  // `kprof validate` as a user runs it: exit code, stdout, stderr.
  int validate(const fs::path& rb, std::string& out, std::string& err) {
    const std::string cmd = "'" + (fs::path(KPROF_BIN_DIR) / "kprof").string() + "' validate '" +
                            rb.string() + "' >'" + (m_dir / "out").string() + "' 2>'" +
                            (m_dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    out = read_text(m_dir / "out");
    err = read_text(m_dir / "err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Each of `names` written after `key` ("launcher:\n  type: ") is kept by the runbook as `held`
  // reads it, passes the check, and `kprof validate` exits 0 printing it after `shown`.
  void expect_accepted(const std::vector<std::string>& names, const std::string& key,
                       const std::string& shown,
                       const std::function<std::string(const runbook::Runbook&)>& held) {
    ASSERT_FALSE(names.empty());
    for (const auto& name : names) {
      const auto rb_path = runbook(key + name + "\n");
      const runbook::Runbook rb = runbook::load_runbook(rb_path);
      EXPECT_EQ(held(rb), name);
      EXPECT_TRUE(unregistered_names(rb).empty()) << name;
      std::string out, err;
      EXPECT_EQ(validate(rb_path, out, err), 0) << name << ": " << err;
      EXPECT_NE(out.find(shown + name + " "), std::string::npos) << out;
    }
  }
};

TEST_F(RegisteredNames, EveryRegisteredLauncherIsAcceptedByValidate) {
  expect_accepted(pass_launcher_names(), "launcher:\n  type: ", "\n  type: ",
                  [](const runbook::Runbook& rb) { return rb.launcher.type.value; });
}

TEST_F(RegisteredNames, EveryRegisteredBackendIsAcceptedByValidate) {
  expect_accepted(profiler_backend_names(), "profiler:\n  backend: ", "\n  backend: ",
                  [](const runbook::Runbook& rb) { return rb.profiler.backend.value; });
}

TEST_F(RegisteredNames, AnUnknownLauncherIsRefusedWithTheRegisteredOnes) {
  const auto rb_path = runbook("launcher:\n  type: lsf\n");
  const runbook::Runbook rb = runbook::load_runbook(rb_path);  // core/runbook keeps it
  const std::string where = rb_path.string();
  const std::string expected = where + ":6:9: launcher.type: unknown value 'lsf' (use " +
                               listed(pass_launcher_names()) + ")";
  // The refusal tests/runbook/launcher_test.cpp asserted while the runbook held an enum.
  EXPECT_EQ(expected.substr(m_dir.path().string().size() + 1),
            "rb.yaml:6:9: launcher.type: unknown value 'lsf' (use local or slurm)");
  const auto problems = unregistered_names(rb);
  ASSERT_EQ(problems.size(), 1u);
  ASSERT_TRUE(problems[0].pos);
  EXPECT_EQ(problems[0].pos->line, 6);
  EXPECT_EQ(problems[0].pos->col, 9);
  EXPECT_EQ(problems[0].source_line, "  type: lsf");
  EXPECT_EQ(what_of([&] { check_registered_names(rb); }), expected);
  // The launcher choice of run and resume refuses it the same way (for a runbook that skipped
  // the check), and a near miss is named.
  EXPECT_EQ(what_of([&] { make_launcher(rb, {}); }), expected);
  const runbook::Runbook near = runbook::load_runbook(runbook("launcher:\n  type: slrum\n"));
  EXPECT_EQ(what_of([&] { check_registered_names(near); }),
            where + ":6:9: launcher.type: unknown value 'slrum' (did you mean 'slurm'? use " +
                listed(pass_launcher_names()) + ")");

  std::string out, err;
  EXPECT_EQ(validate(runbook("launcher:\n  type: lsf\n"), out, err), 2);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "kprof: " + expected + "\n");
}

TEST_F(RegisteredNames, AnUnknownBackendIsRefusedWithTheRegisteredOnes) {
  const auto rb_path = runbook("profiler:\n  backend: ncu\nlauncher:\n  type: lsf\n");
  const runbook::Runbook rb = runbook::load_runbook(rb_path);
  const std::string where = rb_path.string();
  const std::string backend = where + ":6:12: profiler.backend: unknown value 'ncu' (use " +
                              listed(profiler_backend_names()) + ")";
  EXPECT_EQ(backend.substr(where.size()),
            ":6:12: profiler.backend: unknown value 'ncu' (use rocprofv3)");
  // Both names at once, in file order.
  EXPECT_EQ(what_of([&] { check_registered_names(rb); }),
            backend + "\n" + where + ":8:9: launcher.type: unknown value 'lsf' (use " +
                listed(pass_launcher_names()) + ")");
  EXPECT_EQ(what_of([&] { make_profiler_backend(rb, {}); }), backend);
  // `kprof plan` refuses it before it asks the profiler anything.
  RunbookPlanRequest request;
  request.runbook = rb_path;
  EXPECT_EQ(what_of([&] { plan_runbook(request); }).substr(0, backend.size()), backend);

  std::string out, err;
  EXPECT_EQ(validate(rb_path, out, err), 2);
  EXPECT_EQ(err.substr(0, 7 + backend.size()), "kprof: " + backend);
}

}  // namespace
}  // namespace kprof::exec
