// Durations as users write them in runbooks and flags: "90s", "30m", "1h30m", "250ms", or a bare
// number of seconds.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

// nullopt when `text` is not a duration, or one too long for milliseconds in 63 bits (about 292
// million years: `1000000000000h` used to wrap around to a negative value); the caller owns the
// positioned error message.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// The same in milliseconds as a double, which never overflows: callers that cap a duration
// ("at most 7d") tell "too long" from "not a duration" with it.
std::optional<double> parse_duration_ms(std::string_view text);
// "1h02m03s", "4.2s", "850ms": short, for progress lines and status tables.
std::string format_duration(std::chrono::milliseconds d);

}  // namespace kprof
