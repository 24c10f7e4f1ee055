#include "core/exec/node/tool_probe.hpp"

#include <unistd.h>

#include <cstdlib>
#include <random>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

ToolOutput run_tool(const std::vector<std::string>& argv, const store::EnvDelta& env,
                    std::chrono::seconds timeout) {
  std::random_device rd;
  const fs::path log = fs::temp_directory_path() / ("kprof-probe-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(rd()) + ".log");
  LaunchSpec s;
  s.argv = argv;
  for (const auto& [k, v] : env) s.env[k] = v;
  s.log_path = log;
  s.timeout = timeout;
  s.kill_grace = std::chrono::seconds(2);
  s.log_tail_bytes = 4096;
  ToolOutput p;
  try {
    const RunResult r = run_process(s);
    p.ran = true;
    p.ok = r.ok();
    p.ended = r.describe();
    p.text = file_tail(log, 4 << 20);  // rocprofv3's help is tens of KB, --list-avail about 1 MB
  } catch (const Error& e) {
    p.ended = e.what();
  }
  std::error_code ec;
  fs::remove(log, ec);
  return p;
}

std::optional<fs::path> find_tool(const std::string& name, const store::EnvDelta& env) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return fs::path(name);
    return std::nullopt;
  }
  const char* own = std::getenv("PATH");
  std::string path = own ? own : "";
  for (const auto& [k, v] : env)
    if (k == "PATH") path = v;
  for (const auto& dir : split(path, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace kprof::exec
