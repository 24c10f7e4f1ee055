// Test harness for the rocprofv3 double: runs the real rocprofv3-sim executable as a subprocess in
// a fresh temp dir, and reads its CSV output with a small reader of rocprofv3's dialect (strings in
// double quotes, no escaping, so commas inside quotes belong to the field).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kprof::sim::testing {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kprof-sim-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct RunResult {
  int status = 0;
  bool exited() const { return WIFEXITED(status); }
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
  int signal() const { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }
  std::string out, err;
};

inline fs::path sim_binary() { return fs::path(KPROF_BIN_DIR) / "rocprofv3-sim"; }
inline fs::path configs() { return fs::path(KPROF_SOURCE_DIR) / "configs"; }

// Starts rocprofv3-sim with `args` in `cwd`, environment = ours + `env`. Returns the pid; stdout
// and stderr go to files under cwd.
inline pid_t start_sim(const fs::path& cwd, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    const std::string out = (cwd / ".stdout").string(), err = (cwd / ".stderr").string();
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
    std::vector<char*> argv;
    const std::string bin = sim_binary().string();
    argv.push_back(const_cast<char*>(bin.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

inline RunResult finish_sim(const fs::path& cwd, pid_t pid) {
  RunResult r;
  while (waitpid(pid, &r.status, 0) < 0) {
  }
  r.out = read_file(cwd / ".stdout");
  r.err = read_file(cwd / ".stderr");
  return r;
}

inline RunResult run_sim(const fs::path& cwd, const std::vector<std::string>& args,
                         std::map<std::string, std::string> env = {}) {
  if (!env.count("ROCPROF_SIM_MODEL"))
    env["ROCPROF_SIM_MODEL"] = (configs() / "sim" / "doc-vector-ops.yaml").string();
  return finish_sim(cwd, start_sim(cwd, args, env));
}

// Polls until `path` contains `needle` (for synchronizing with a running process, not timing it).
inline void wait_for_text(const fs::path& path, const std::string& needle) {
  while (read_file(path).find(needle) == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

// One CSV field with whether it was quoted.
struct Field {
  std::string text;
  bool quoted = false;
};

inline std::vector<Field> split_row(const std::string& line) {
  std::vector<Field> out;
  Field cur;
  bool in_quotes = false;
  for (char c : line) {
    if (in_quotes) {
      if (c == '"')
        in_quotes = false;
      else
        cur.text += c;
    } else if (c == '"') {
      in_quotes = true;
      cur.quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur = {};
    } else {
      cur.text += c;
    }
  }
  out.push_back(cur);
  return out;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<Field>> rows;
  size_t col(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    return SIZE_MAX;
  }
  const std::string& at(size_t row, const std::string& name) const {
    return rows[row][col(name)].text;
  }
};

inline Csv read_csv(const fs::path& p) {
  Csv c;
  std::istringstream in(read_file(p));
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    auto f = split_row(line);
    if (first) {
      for (auto& x : f) c.header.push_back(x.text);
      first = false;
    } else {
      c.rows.push_back(std::move(f));
    }
  }
  return c;
}

// A row's "style": per field Q (quoted string), I (integer), D (fixed 6 decimals), E (scientific).
inline std::string row_style(const std::vector<Field>& row) {
  std::string s;
  for (const auto& f : row) {
    if (f.quoted) {
      s += 'Q';
    } else if (!f.text.empty() && f.text.find_first_not_of("-0123456789") == std::string::npos) {
      s += 'I';
    } else if (f.text.find('e') != std::string::npos) {
      s += 'E';
    } else {
      const auto dot = f.text.find('.');
      s += dot != std::string::npos ? static_cast<char>('0' + (f.text.size() - dot - 1)) : '?';
    }
  }
  return s;
}

// All files under `dir` (recursively), relative, sorted.
inline std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.')
      out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// A runbook shipped in runbooks/ (`stem`.yaml), written to `dir`/`name` unchanged except where its
// files go: the workload still runs from runbooks/ (its cwd), the database and captures land in
// `dir` (<name's stem>.db, <name's stem>-captures). `edit` rewrites the text further.
inline fs::path shipped_runbook_in(const fs::path& dir, const std::string& stem,
                                   const std::string& name,
                                   const std::function<void(std::string&)>& edit = {}) {
  const fs::path source(KPROF_SOURCE_DIR);
  std::string text = read_file(source / "runbooks" / (stem + ".yaml"));
  const auto put = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  const std::string out = fs::path(name).stem().string();
  put("\nworkload:\n", "\nworkload:\n  cwd: " + (source / "runbooks").string() + "\n");
  put("database: " + stem + ".db\n", "database: " + (dir / (out + ".db")).string() +
                                         "\ncaptures: " + (dir / (out + "-captures")).string() +
                                         "\n");
  if (edit) edit(text);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace kprof::sim::testing
