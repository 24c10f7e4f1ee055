#include "core/base/duration.hpp"

#include <cctype>
#include <cstdio>

namespace kprof {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const auto ms = parse_duration_ms(text);
  // 2^62 ms: far beyond any use, and rounding the double can never reach the int64 limit.
  if (!ms || !(*ms < 4.6e18)) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(*ms + 0.5));
}

std::optional<double> parse_duration_ms(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total_ms = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (i == start) return std::nullopt;
    double value = 0;
    try {
      size_t used = 0;
      value = std::stod(std::string(text.substr(start, i - start)), &used);
      if (used != i - start) return std::nullopt;
    } catch (...) {
      return std::nullopt;
    }
    size_t ustart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(ustart, i - ustart);
    double scale;
    if (unit.empty()) {
      if (any || i != text.size()) return std::nullopt;  // a bare number means seconds, alone only
      scale = 1000;
    } else if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1000;
    else if (unit == "m" || unit == "min")
      scale = 60e3;
    else if (unit == "h")
      scale = 3600e3;
    else if (unit == "d")
      scale = 86400e3;
    else
      return std::nullopt;
    total_ms += value * scale;
    any = true;
  }
  return total_ms;
}

std::string format_duration(std::chrono::milliseconds d) {
  long long ms = d.count();
  char buf[64];
  if (ms < 1000)
    std::snprintf(buf, sizeof buf, "%lldms", ms);
  else if (ms < 60'000)
    std::snprintf(buf, sizeof buf, "%.1fs", ms / 1000.0);
  else if (ms < 3'600'000)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", ms / 60'000, ms / 1000 % 60);
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm%02llds", ms / 3'600'000, ms / 60'000 % 60,
                  ms / 1000 % 60);
  return buf;
}

}  // namespace kprof
