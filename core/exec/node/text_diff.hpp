// A line diff of two texts (the runbook as recorded in the database vs as it is now), printed when
// `kprof resume` refuses a changed runbook.
#pragma once

#include <string>

namespace kprof::exec {

// Unified-style lines: "-old line", "+new line", with line numbers of the old/new text,
// e.g. "@@ 12 @@\n-  top: 10\n+  top: 20\n". Empty when the texts are equal. Longest common
// subsequence over lines; runbooks are small.
std::string line_diff(const std::string& old_text, const std::string& new_text);

}  // namespace kprof::exec
