#include "core/sim/format.hpp"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

namespace kprof::sim {

namespace {

std::string printf_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string format_counter_value(double v) {
  return v >= 1.0 ? printf_double("%.6f", v) : printf_double("%.8e", v);
}

std::string format_stats_double(double v) {
  return v > 0.01 ? printf_double("%.6f", v) : printf_double("%.8e", v);
}

std::string format_percentage(double v) {
  if (v >= 1.0) return printf_double("%.2f", v);
  if (v > 0.01) return printf_double("%.4f", v);
  return printf_double("%.3e", v);
}

std::string csv_quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

std::string glog_prefix(char severity, uint64_t tid, std::string_view file_line) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%c%04d%02d%02d %02d:%02d:%02d.%06lld %llu ", severity,
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(micros), static_cast<unsigned long long>(tid));
  return std::string(buf) + std::string(file_line) + "] ";
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string expand_placeholders(std::string_view pattern, pid_t pid, pid_t ppid) {
  auto env_or = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%F", &tm);
  char time_s[32];
  std::strftime(time_s, sizeof time_s, "%F_%H.%M", &tm);
  const std::pair<std::string, std::string> keys[] = {
      {"hostname", hostname()},
      {"pid", std::to_string(pid)},
      {"ppid", std::to_string(ppid)},
      {"cwd", std::filesystem::current_path().string()},
      {"rank", env_or("SLURM_PROCID", "0")},
      {"job", env_or("SLURM_JOB_ID", "0")},
      {"nid", env_or("SLURM_PROCID", "0")},
      {"launch_date", date},
      {"launch_time", time_s},
  };
  const std::pair<char, std::string> shorts[] = {{'h', hostname()},
                                                 {'p', std::to_string(pid)},
                                                 {'r', env_or("SLURM_PROCID", "0")},
                                                 {'j', env_or("SLURM_JOB_ID", "0")}};
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    bool done = false;
    if (pattern[i] == '%' || pattern[i] == '{') {
      const char close = pattern[i] == '%' ? '%' : '}';
      for (const auto& [k, v] : keys) {
        if (pattern.substr(i + 1, k.size()) == k && i + 1 + k.size() < pattern.size() &&
            pattern[i + 1 + k.size()] == close) {
          out += v;
          i += k.size() + 2;
          done = true;
          break;
        }
      }
      if (!done && pattern[i] == '%' && i + 1 < pattern.size()) {
        // Short forms are a single letter not followed by more letters (%h, %p, ...).
        const bool single = i + 2 >= pattern.size() || !std::isalpha(pattern[i + 2]);
        for (const auto& [c, v] : shorts) {
          if (pattern[i + 1] == c && single) {
            out += v;
            i += 2;
            done = true;
            break;
          }
        }
      }
    }
    if (!done) out += pattern[i++];
  }
  return out;
}

}  // namespace kprof::sim
