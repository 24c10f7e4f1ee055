// Number and agent-id parsing for rocprofv3 CSV fields, without allocation (std::from_chars).
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace kprof::ingest {

inline bool parse_i64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+')
    ++b;  // from_chars rejects a leading '+'; no rocprofv3 writer emits one, others may
  auto [ptr, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && ptr == e;
}

inline bool parse_f64(std::string_view s, double& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && ptr == e;
}

// How an agent is named in Agent_Id / Source_Agent_Id columns (rocprofiler-sdk
// source/lib/output/csv.hpp and the ROCm 6.4 user sample in ROCm/rocprofiler-sdk#57):
// "Agent N" (7.0+, N per --agent-index, relative = logical node id by default), a bare integer
// (ROCm <= 6.4), or "GPU N"/"CPU N" (--agent-index type-relative).
enum class AgentForm { agent, bare, gpu, cpu };

inline bool parse_agent(std::string_view s, int64_t& n, AgentForm& form) {
  auto strip = [&](std::string_view prefix, AgentForm f) {
    if (s.size() > prefix.size() && s.substr(0, prefix.size()) == prefix) {
      form = f;
      return parse_i64(s.substr(prefix.size()), n);
    }
    return false;
  };
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') {
    form = AgentForm::bare;
    return parse_i64(s, n);
  }
  return strip("Agent ", AgentForm::agent) || strip("GPU ", AgentForm::gpu) ||
         strip("CPU ", AgentForm::cpu);
}

}  // namespace kprof::ingest
