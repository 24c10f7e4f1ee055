// Durations as users write them in runbooks and flags: "90s", "30m", "1h30m", "250ms", or a bare
// number of seconds.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

// nullopt when `text` is not a duration; the caller owns the positioned error message.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// "1h02m03s", "4.2s", "850ms": short, for progress lines and status tables.
std::string format_duration(std::chrono::milliseconds d);

}  // namespace kprof
