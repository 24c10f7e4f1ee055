// The fixture of the executor's unit tests (executor_unit_test.cpp, executor_resume_unit_test.cpp):
// a small runbook, the executor's two seams as fakes (tests/exec/fakes.hpp), and fake attempts that
// write the profiler's CSV files themselves, so ingest, kernel selection and the database are the
// real ones.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/run_lock.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/usecases/executor.hpp"
#include "core/runbook/runbook.hpp"
#include "tests/exec/fakes.hpp"
#include "tests/exec/runbook_yaml.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec::unit {

using namespace std::chrono_literals;
using store::PassKind;
using store::PassState;
using testing::FakeAttempt;
using testing::FakeBackend;
using testing::FakeLauncher;
using testing::TempDir;
using testing::write_file;

// Three kernels: big (3 launches, 30 µs each), mid (2 × 20 µs), small (1 × 1 µs). The top 2 by
// total duration are big and mid.
inline void write_trace(const LaunchSpec& s) {
  std::string csv =
      "Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
      "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,Workgroup_Size_X,"
      "Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n";
  const char* names[] = {"big", "mid", "big", "mid", "big", "small"};
  const int durations_us[] = {30, 20, 30, 20, 30, 1};
  int64_t t = 1000000;
  for (int i = 0; i < 6; ++i) {
    csv += "Agent 1,1,7," + std::to_string(i + 1) + "," + std::to_string(i + 1) + "," + names[i] +
           "," + std::to_string(i + 1) + "," + std::to_string(t) + "," +
           std::to_string(t + durations_us[i] * 1000) + ",0,0,64,1,1,1024,1,1\n";
    t += 100000;
  }
  write_file(s.output_dir / "node" / "4242_kernel_trace.csv", csv);
}

// One row per (dispatch, counter) of this pass's counters, for big and mid.
inline void write_counters(const LaunchSpec& s) {
  std::string csv =
      "Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,"
      "Workgroup_Size,LDS_Block_Size,Scratch_Size,Counter_Name,Counter_Value\n";
  const std::string counters = s.argv.at(2);  // FakeBackend: fakeprof counters A,B FILTER DIR
  const char* names[] = {"big", "mid", "big", "mid", "big"};
  for (int i = 0; i < 5; ++i) {
    std::stringstream ss(counters);
    for (std::string c; std::getline(ss, c, ',');) {
      csv += std::to_string(i + 1) + "," + std::to_string(i + 1) + ",Agent 1,1,7,1024," +
             std::to_string(i + 1) + "," + names[i] + ",64,0,0," + c + "," +
             std::to_string(100 * (i + 1)) + "\n";
    }
  }
  write_file(s.output_dir / "node" / "4242_counter_collection.csv", csv);
}

inline bool is_trace(const LaunchSpec& s) { return s.argv.at(1) == "trace"; }

// A profiler that always succeeds.
inline FakeAttempt works(const LaunchSpec& s) {
  FakeAttempt a;
  a.write = is_trace(s) ? write_trace : write_counters;
  return a;
}

struct Fixture {
  TempDir dir;
  runbook::Runbook rb;
  ExecOptions options;
  std::ostringstream out;

  explicit Fixture(const std::string& retry = "  attempts: 2\n  backoff: 0s\n") {
    testing::RunbookYaml y;
    y.command = "[\"./app\", \"--tokens\", \"8\"]";
    y.timeout = "90s";
    y.counters = "GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES";
    y.top_two_from_trace = true;
    y.retry = retry;
    y.database = "small.db";
    write_file(dir / "small.yaml", testing::runbook_yaml(y));
    rb = runbook::load_runbook(dir / "small.yaml");
    options.out = &out;
    options.tty = false;
    options.quiet = true;
    clear_interrupt();
  }
  ~Fixture() { clear_interrupt(); }

  ExecSeams seams(FakeLauncher& launcher) const {
    ExecSeams s;
    s.launcher = &launcher;
    s.backend = [](const runbook::Runbook&, const BackendChoice&) {
      return std::make_unique<FakeBackend>();
    };
    return s;
  }
  std::filesystem::path db() const { return dir / "small.db"; }
  std::vector<store::PassInfo> passes() const {
    store::CaptureDb db(this->db(), store::OpenMode::read_only);
    return db.list_passes(db.find_last_run()->id);
  }
};

}  // namespace kprof::exec::unit
