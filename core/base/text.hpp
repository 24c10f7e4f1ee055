// Small string helpers shared by every subsystem: suggestions for misspelt names, splitting,
// trimming.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// Levenshtein distance, case-sensitive.
size_t edit_distance(std::string_view a, std::string_view b);

// Up to `n` candidates closest to `name` (case-insensitive edit distance, ties by name), nearest
// first. Candidates further than max(3, |name|/2) edits are left out unless `always` is set.
std::vector<std::string> nearest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, size_t n = 3,
                                       bool always = false);

// "did you mean 'x'?" / "did you mean 'x', 'y' or 'z'?" or "" when there is no candidate.
std::string did_you_mean(const std::vector<std::string>& suggestions);

std::string_view trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string to_lower(std::string_view s);
bool starts_with_icase(std::string_view s, std::string_view prefix);
bool iequals(std::string_view a, std::string_view b);

// `s` as a JSON string literal (quotes included; control characters escaped, UTF-8 kept, an
// invalid UTF-8 byte replaced by U+FFFD). Also a valid YAML double-quoted scalar.
std::string json_quote(std::string_view s);

// The offset of the first byte of `s` that does not start a well-formed UTF-8 sequence (RFC 3629,
// section 4: no overlong forms, no surrogates, nothing above U+10FFFF), or npos when all of `s` is
// valid UTF-8. SQLite stores TEXT as given and leaves the check to its callers
// (https://sqlite.org/invalidutf.html), and readers such as Python's sqlite3 then fail on the row.
size_t invalid_utf8_at(std::string_view s);

// One word a POSIX shell reads back unchanged: as it is when it holds only characters no shell
// treats specially, else in single quotes (each ' written as '\''), per the Shell Command Language,
// "Quoting": https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_02_02
std::string shell_quote(std::string_view word);
// argv as one line a POSIX shell splits back into the same argv: each word shell_quote()d.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace kprof
