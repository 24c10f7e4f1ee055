// Outputs never replace inputs: `kprof report -o` and `kprof export --perfetto` refuse an output
// path that is the capture database (by another spelling, through a hard link, its -wal file), a
// symbolic link, a device, a FIFO or a folder, with exit 2 and the reason, and leave the database
// byte for byte as it was; a temporary file a killed kprof left beside the output is removed by the
// next write. Real kprof runs on a real database of the rocprofv3 test double.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>

#include "core/base/output_file.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

using Out = testing::KprofOut;

Out kprof(const TempDir& dir, const std::vector<std::string>& args,
          std::map<std::string, std::string> env = {}) {
  return testing::run_kprof(dir.path(), args, std::move(env));
}

// Temporary files of kprof's output writer in `dir`.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (name.find(".kprof-tmp-") != std::string::npos) out.push_back(name);
  }
  return out;
}

class OutputSafety : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    write_script(*s_dir / "work.sh", "exit 0\n");
    write_file(*s_dir / "rb.yaml",
               "schema_version: 1\nname: small\nworkload:\n  command: [\"" +
                   (*s_dir / "work.sh").string() +
                   "\"]\ntarget:\n  arch: gfx942\npasses:\n  trace:\n    enabled: true\n"
                   "database: q.db\nsim:\n  model: doc-vector-ops\n  seed: 7\n");
    const auto r = kprof(*s_dir, {"run", (*s_dir / "rb.yaml").string(), "--simulate", "--quiet",
                                  "--db", (*s_dir / "master.db").string()});
    ASSERT_EQ(r.code, 0) << r.text;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  void SetUp() override {
    fs::create_directories(dir / "dbs");
    fs::copy_file(*s_dir / "master.db", db());
    before = read_text(db());
  }
  fs::path db() const { return dir / "dbs" / "q.db"; }

  // Both writing commands with `out` as their output: exit 2 naming `reason`, the database as it
  // was.
  void expect_refused(const fs::path& out, const std::string& reason) {
    for (const std::vector<std::string>& c :
         {std::vector<std::string>{"report", db().string(), "-o", out.string()},
          std::vector<std::string>{"export", db().string(), "--perfetto", out.string()}}) {
      const Out r = kprof(dir, c);
      EXPECT_EQ(r.code, 2) << c[0] << " -> " << out << ": " << r.text;
      EXPECT_NE(r.text.find(reason), std::string::npos) << c[0] << ": " << r.text;
      EXPECT_EQ(read_text(db()), before) << c[0] << " -> " << out << " changed the database";
    }
    EXPECT_TRUE(temporaries(dir / "dbs").empty());
  }

  static TempDir* s_dir;
  TempDir dir;
  std::string before;
};
TempDir* OutputSafety::s_dir = nullptr;

TEST_F(OutputSafety, TheDatabaseByAnySpellingOrHardLinkIsNeverAnOutput) {
  expect_refused(db(), "is the input " + db().string());
  expect_refused(dir / "dbs" / ".." / "dbs" / "." / "q.db", "(the same file)");
  fs::create_hard_link(db(), dir / "linked.db");
  expect_refused(dir / "linked.db", "(the same file)");
  // Its write-ahead log and journal, existing or not: SQLite would read them back as its own.
  expect_refused(dir / "dbs" / "q.db-wal", "SQLite's -wal file");
  expect_refused(dir / "dbs" / "q.db-journal", "SQLite's -journal file");
  EXPECT_FALSE(fs::exists(dir / "dbs" / "q.db-journal"));
}

TEST_F(OutputSafety, ASymbolicLinkIsRefusedAndWhatItNamesIsUntouched) {
  write_file(dir / "precious.txt", "keep me\n");
  fs::create_symlink(dir / "precious.txt", dir / "dbs" / "trace.json");
  expect_refused(dir / "dbs" / "trace.json", "is a symbolic link");
  EXPECT_EQ(read_text(dir / "precious.txt"), "keep me\n");
  EXPECT_TRUE(fs::is_symlink(dir / "dbs" / "trace.json"));
  // A dangling link: writing through it would create the file it names.
  fs::create_symlink(dir / "not-yet", dir / "dbs" / "dangling.html");
  expect_refused(dir / "dbs" / "dangling.html", "is a symbolic link");
  EXPECT_FALSE(fs::exists(dir / "not-yet"));
}

TEST_F(OutputSafety, DevicesFifosAndFoldersAreRefused) {
  // A device node of the test's own (a copy of /dev/null's numbers), never a system one: a kprof
  // that wrongly renamed over it must not be able to replace the machine's /dev/null (as root
  // rename(2) would).
  if (::mknod((dir / "dbs" / "null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0)
    expect_refused(dir / "dbs" / "null", "is a character device, not a regular file");
  else
    std::cout << "no character device case: mknod needs privileges here\n";
  ASSERT_EQ(::mkfifo((dir / "dbs" / "pipe").c_str(), 0600), 0);
  expect_refused(dir / "dbs" / "pipe", "is a FIFO, not a regular file");
  fs::create_directories(dir / "dbs" / "folder");
  expect_refused(dir / "dbs" / "folder", "is a folder, not a regular file");
}

TEST_F(OutputSafety, ARegularFileIsReplacedWholeAndNoTemporaryStays) {
  write_file(dir / "dbs" / "r.html", "old");
  Out r = kprof(dir, {"report", db().string(), "-o", (dir / "dbs" / "r.html").string()});
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(read_text(dir / "dbs" / "r.html").rfind("<!DOCTYPE html>", 0), 0u);
  r = kprof(dir, {"export", db().string(), "--perfetto", (dir / "dbs" / "t.json").string()});
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(read_text(dir / "dbs" / "t.json").front(), '{');
  EXPECT_TRUE(temporaries(dir / "dbs").empty());
}

TEST_F(OutputSafety, ATemporaryFileOfAKilledExportIsRemovedByTheNextOne) {
  const auto out = dir / "dbs" / "t.json";
  const Out killed = kprof(dir, {"export", db().string(), "--perfetto", out.string()},
                           {{"KPROF_CRASH_AT", "output.written"}});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.text;
  const auto left = temporaries(dir / "dbs");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].rfind("t.json.kprof-tmp-", 0), 0u) << left[0];
  EXPECT_FALSE(fs::exists(out));
  // A file of that shape whose process still runs (this test) is left alone.
  const std::string live = "t.json.kprof-tmp-" + std::to_string(::getpid()) + "-0123456789abcdef";
  write_file(dir / "dbs" / live, "in progress");
  const Out again = kprof(dir, {"export", db().string(), "--perfetto", out.string()});
  ASSERT_EQ(again.code, 0) << again.text;
  EXPECT_EQ(temporaries(dir / "dbs"), std::vector<std::string>{live});
  EXPECT_EQ(read_text(out).front(), '{');
}

}  // namespace
}  // namespace kprof::exec
