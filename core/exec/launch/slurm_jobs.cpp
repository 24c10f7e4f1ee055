#include "core/exec/launch/slurm_jobs.hpp"

#include <charconv>

#include "core/base/text.hpp"

namespace kprof::exec {

namespace {

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "E:S" → exit code and signal.
void parse_exit(const std::string& text, SlurmTaskStatus& t) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return;
  t.exit_code = static_cast<int>(to_int(text.substr(0, colon)).value_or(0));
  t.signal = static_cast<int>(to_int(text.substr(colon + 1)).value_or(0));
}

// `Key=Value Key=Value ...` of one scontrol line; a word without '=' continues the value before.
std::map<std::string, std::string> fields(const std::string& line) {
  std::map<std::string, std::string> out;
  std::string last;
  for (const auto& word : split(line, ' ')) {
    if (word.empty()) continue;
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) {
      if (!last.empty()) out[last] += " " + word;
      continue;
    }
    last = word.substr(0, eq);
    out[last] = word.substr(eq + 1);
  }
  return out;
}

}  // namespace

SlurmPhase slurm_phase(const std::string& state) {
  // "CANCELLED by 0" in sacct.
  const std::string s = state.substr(0, state.find(' '));
  if (s == "RUNNING" || s == "COMPLETING" || s == "STAGE_OUT" || s == "SIGNALING")
    return SlurmPhase::running;
  if (s == "COMPLETED") return SlurmPhase::completed;
  if (s == "FAILED" || s == "OUT_OF_MEMORY" || s == "BOOT_FAIL" || s == "DEADLINE" ||
      s == "SPECIAL_EXIT")
    return SlurmPhase::failed;
  if (s == "TIMEOUT") return SlurmPhase::timeout;
  if (s == "CANCELLED") return SlurmPhase::cancelled;
  if (s == "NODE_FAIL" || s == "PREEMPTED" || s == "REVOKED") return SlurmPhase::lost;
  return SlurmPhase::waiting;
}

bool slurm_phase_ended(SlurmPhase p) {
  return p != SlurmPhase::waiting && p != SlurmPhase::running;
}

std::vector<int64_t> parse_array_ranges(const std::string& text) {
  std::string body = text;
  if (!body.empty() && body.front() == '[') body = body.substr(1);
  if (const auto pct = body.find('%'); pct != std::string::npos) body.resize(pct);
  if (!body.empty() && body.back() == ']') body.pop_back();
  std::vector<int64_t> out;
  for (const auto& part : split(body, ',')) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) {
      if (auto v = to_int(part)) out.push_back(*v);
      continue;
    }
    // "1-9:2": a step (sbatch --array accepts it; scontrol prints what was submitted).
    std::string rest = part.substr(dash + 1);
    int64_t step = 1;
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
      step = to_int(rest.substr(colon + 1)).value_or(1);
      rest.resize(colon);
    }
    const auto a = to_int(part.substr(0, dash));
    const auto b = to_int(rest);
    if (!a || !b || step < 1 || *b - *a > 1'000'000) continue;
    for (int64_t v = *a; v <= *b; v += step) out.push_back(v);
  }
  return out;
}

std::map<int64_t, SlurmTaskStatus> parse_scontrol_jobs(const std::string& text, int64_t job_id) {
  std::map<int64_t, SlurmTaskStatus> out;
  for (const auto& line : split(text, '\n')) {
    const auto f = fields(line);
    const auto array = f.find("ArrayJobId");
    const auto tasks = f.find("ArrayTaskId");
    if (array == f.end() || tasks == f.end() || to_int(array->second) != job_id) continue;
    SlurmTaskStatus t;
    t.state = f.count("JobState") ? f.at("JobState") : "";
    t.phase = slurm_phase(t.state);
    t.reason = f.count("Reason") ? f.at("Reason") : "";
    if (t.reason == "None") t.reason.clear();
    if (f.count("ExitCode")) parse_exit(f.at("ExitCode"), t);
    t.restarts = static_cast<int>(to_int(f.count("Restarts") ? f.at("Restarts") : "").value_or(0));
    t.node = f.count("NodeList") ? f.at("NodeList") : "";
    if (t.node == "(null)") t.node.clear();
    for (int64_t id : parse_array_ranges(tasks->second)) {
      t.task = id;
      out[id] = t;
    }
  }
  return out;
}

std::map<int64_t, SlurmTaskStatus> parse_sacct(const std::string& text, int64_t job_id) {
  std::map<int64_t, SlurmTaskStatus> out;
  const std::string prefix = std::to_string(job_id) + "_";
  for (const auto& line : split(text, '\n')) {
    const auto cols = split(line, '|');
    if (cols.size() < 3 || cols[0].rfind(prefix, 0) != 0) continue;
    SlurmTaskStatus t;
    t.state = std::string(trim(cols[1]));
    t.phase = slurm_phase(t.state);
    parse_exit(cols[2], t);
    for (int64_t id : parse_array_ranges(cols[0].substr(prefix.size()))) {
      t.task = id;
      out[id] = t;
    }
  }
  return out;
}

std::optional<int64_t> parse_sbatch_job_id(const std::string& text) {
  std::string s(trim(text));
  s = s.substr(0, s.find(';'));
  return to_int(s);
}

}  // namespace kprof::exec
