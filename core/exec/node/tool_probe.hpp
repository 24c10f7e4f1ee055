// Runs a short-lived tool of the node (`rocprofv3 --version`, `rocminfo`, `python3 -c ...`) and
// keeps what it printed: the probes of the profiler backend and of `kprof doctor`. Never a
// workload.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::exec {

// What the tool printed (stdout and stderr), how it ended, or why it could not run.
struct ToolOutput {
  bool ran = false;   // it started
  bool ok = false;    // it ended with status 0
  std::string ended;  // RunResult::describe(), or the error that kept it from running
  std::string text;
};

// Runs `argv` with `env` on top of kprof's environment; the output goes through a temporary file
// that is removed afterwards. The timeout allows for a python launcher on a busy node.
ToolOutput run_tool(const std::vector<std::string>& argv, const store::EnvDelta& env = {},
                    std::chrono::seconds timeout = std::chrono::seconds(60));

// Where `name` is found on the PATH of `env` (kprof's own PATH when `env` sets none); `name` with
// a '/' is taken as it is when it exists.
std::optional<std::filesystem::path> find_tool(const std::string& name,
                                               const store::EnvDelta& env = {});

}  // namespace kprof::exec
