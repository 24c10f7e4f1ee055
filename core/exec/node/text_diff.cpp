#include "core/exec/node/text_diff.hpp"

#include <vector>

#include "core/base/text.hpp"

namespace kprof::exec {

std::string line_diff(const std::string& old_text, const std::string& new_text) {
  if (old_text == new_text) return {};
  const std::vector<std::string> a = split(old_text, '\n');
  const std::vector<std::string> b = split(new_text, '\n');
  const size_t n = a.size(), m = b.size();
  // lcs[i][j] = LCS length of a[i..] and b[j..].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::string out;
  size_t i = 0, j = 0;
  bool in_hunk = false;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ++i, ++j;
      in_hunk = false;
      continue;
    }
    if (!in_hunk) {
      out += "@@ line " + std::to_string(i + 1) + " @@\n";
      in_hunk = true;
    }
    if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out += "-" + a[i++] + "\n";
    } else {
      out += "+" + b[j++] + "\n";
    }
  }
  return out;
}

}  // namespace kprof::exec
