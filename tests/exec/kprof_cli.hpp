// Runs the built kprof as a user would, for the exec tests: exit code, signal and what it printed.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec::testing {

struct KprofOut {
  int code = -1;
  int signal = 0;
  std::string text;      // stdout and stderr together
  std::string describe;  // how it ended, in words
};

// Runs `kprof ARGS` with its output in DIR/kprof.out. The timeout ends a kprof that blocks (on a
// FIFO, say) so that the test fails instead of hanging.
inline KprofOut run_kprof(const std::filesystem::path& dir, const std::vector<std::string>& args,
                          std::map<std::string, std::string> env = {}) {
  LaunchSpec s;
  s.argv = {std::string(KPROF_BIN_DIR) + "/kprof"};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.log_path = dir / "kprof.out";
  s.env = std::move(env);
  s.log_tail_bytes = 1 << 20;
  s.timeout = std::chrono::minutes(2);
  std::filesystem::remove(s.log_path);
  const auto r = run_process(s);
  return {r.exit_code, r.signal, read_text(s.log_path), r.describe()};
}

}  // namespace kprof::exec::testing
