#include "core/base/table.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>

#include "core/base/terminal_text.hpp"
#include "core/base/text.hpp"

namespace kprof {
namespace {

constexpr size_t k_min_text = 8;  // a text column narrower than this is unreadable

// Byte offset of the first `cols` display columns of `s`.
size_t prefix_bytes(std::string_view s, size_t cols) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (seen == cols) return i;
    ++seen;
  }
  return s.size();
}

// Lines of at most `width` columns. sep ' ': words, re-joined by one space; sep '_': pieces
// ending in '_', re-joined as they were. A piece longer than a line is split.
std::vector<std::string> wrap_at(std::string_view text, size_t width, char sep) {
  if (width == 0 || display_width(text) <= width) return {std::string(text)};
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < text.size();) {
    size_t end = text.find(sep, i);
    if (sep == ' ') {
      end = end == std::string_view::npos ? text.size() : end;
      if (end > i) pieces.push_back(text.substr(i, end - i));
      i = end + 1;
    } else {
      end = end == std::string_view::npos ? text.size() : end + 1;
      pieces.push_back(text.substr(i, end - i));
      i = end;
    }
  }
  std::vector<std::string> lines;
  std::string line;
  for (std::string_view p : pieces) {
    const bool space = sep == ' ' && !line.empty();
    if (!line.empty() && display_width(line) + space + display_width(p) > width) {
      lines.push_back(line);
      line.clear();
    } else if (space) {
      line += ' ';
    }
    while (display_width(line) + display_width(p) > width) {
      const size_t cut = std::max<size_t>(prefix_bytes(p, width - display_width(line)), 1);
      line += p.substr(0, cut);
      p.remove_prefix(cut);
      lines.push_back(line);
      line.clear();
    }
    line += p;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// One precision per floating-point column: suffixed (k M G T P) when any value reaches 1e6, else
// the decimals that give the smallest value four significant digits (at most 3, so 0.9998 and
// 25.72 line up as 0.9998 is rare in a column of percentages; CSV and JSON keep every digit).
struct DoubleFormat {
  bool suffixed = false;
  int decimals = 0;
};

DoubleFormat format_of(const std::vector<std::vector<Cell>>& rows, size_t col) {
  DoubleFormat f;
  bool any = false;
  for (const auto& r : rows) {
    const double* d = col < r.size() ? std::get_if<double>(&r[col]) : nullptr;
    if (!d || !std::isfinite(*d)) continue;
    any = true;
    const double a = std::fabs(*d);
    if (a >= 1e6) f.suffixed = true;
    if (a >= 1e-3)
      f.decimals =
          std::max(f.decimals, std::clamp(3 - static_cast<int>(std::floor(std::log10(a))), 0, 3));
  }
  if (!any) f.decimals = 0;
  return f;
}

std::string format_double(double v, const DoubleFormat& f) {
  char buf[64];
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  const double a = std::fabs(v);
  if (v != 0 && a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1e", v);
    return buf;
  }
  if (f.suffixed) {
    if (v == 0) return "0";
    static const char* k_suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    int e = a >= 1 ? std::min(static_cast<int>(std::floor(std::log10(a))) / 3, 6) : 0;
    double s = v / std::pow(1000.0, e);
    if (std::fabs(s) >= 999.95 && e < 6) {  // 999.96k rounds to 1000.0k: use the next suffix
      ++e;
      s /= 1000;
    }
    const int digits = std::fabs(s) >= 100 ? 1 : std::fabs(s) >= 10 ? 2 : 3;
    std::snprintf(buf, sizeof buf, "%.*f%s", digits, s, k_suffix[e]);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", f.decimals, v);
  return buf;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

size_t terminal_width(int fd) {
  if (!isatty(fd)) return 0;
  if (const char* c = std::getenv("COLUMNS"); c && std::atoi(c) > 0) return std::atoi(c);
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string note_line(std::string_view text, int fd) {
  std::string line = "kprof: ";
  line += text;
  const size_t width = terminal_width(fd);
  if (width == 0 || display_width(line) <= width) return line;
  return wrap_text(line, width, 7);
}

std::string cell_text(const Cell& c) {
  if (std::holds_alternative<std::monostate>(c)) return "-";
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", *d);
    return buf;
  }
  return std::get<std::string>(c);
}

std::string wrap_text(std::string_view text, size_t width, size_t indent) {
  // A text indented itself (a nested note) keeps its indent on every line it wraps into.
  if (const size_t lead = std::min(text.find_first_not_of(' '), text.size()); lead > 0) {
    const std::string pad(lead, ' ');
    std::string out = pad;
    for (char c : wrap_text(text.substr(lead), width > lead ? width - lead : 0, indent))
      out += c == '\n' ? "\n" + pad : std::string(1, c);
    return out;
  }
  std::string out;
  const auto lines = wrap_at(text, width > indent ? width - indent : 0, ' ');
  // The first line may use the indent's room too; keep it simple and wrap all at the same width.
  for (size_t i = 0; i < lines.size(); ++i)
    out += (i ? "\n" + std::string(indent, ' ') : "") + lines[i];
  return out;
}

namespace {

struct Column {
  size_t natural = 0;  // widest header or value
  size_t least = 0;    // headers wrapped at '_', text wrapped at spaces, no word split
  size_t squeeze = 0;  // text split inside words down to k_min_text
  bool numeric = true;
  bool right = true;  // padded on the left: numbers, and text columns in Table::right_aligned
};

// Widths for the columns `idx`, each between its `floor` and natural width, capped by one common
// width as large as fits in `limit` (so the widest columns give way first). nullopt: even the
// floors do not fit.
std::optional<std::vector<size_t>> water_fill(const std::vector<Column>& cols,
                                              const std::vector<size_t>& idx, size_t Column::*floor,
                                              size_t limit, size_t gap) {
  auto width_at = [&](size_t cap) {
    size_t total = gap * (idx.size() - 1);
    for (size_t c : idx) total += std::max(cols[c].*floor, std::min(cols[c].natural, cap));
    return total;
  };
  if (width_at(0) > limit) return std::nullopt;
  size_t lo = 0, hi = 0;
  for (size_t c : idx) hi = std::max(hi, cols[c].natural);
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (width_at(mid) <= limit)
      lo = mid;
    else
      hi = mid - 1;
  }
  std::vector<size_t> w;
  for (size_t c : idx) w.push_back(std::max(cols[c].*floor, std::min(cols[c].natural, lo)));
  return w;
}

void emit_block(std::ostream& os, const Table& t, const std::vector<std::vector<std::string>>& text,
                const std::vector<Column>& cols, const std::vector<size_t>& idx,
                const std::vector<size_t>& width, size_t gap) {
  auto emit = [&](auto cell_of, bool header) {
    std::vector<std::vector<std::string>> parts(idx.size());
    size_t height = 1;
    for (size_t k = 0; k < idx.size(); ++k) {
      parts[k] = wrap_at(cell_of(idx[k]), width[k], header ? '_' : ' ');
      height = std::max(height, parts[k].size());
    }
    for (size_t line = 0; line < height; ++line) {
      std::string out;
      for (size_t k = 0; k < idx.size(); ++k) {
        const std::string s = line < parts[k].size() ? parts[k][line] : "";
        const std::string pad(width[k] - std::min(width[k], display_width(s)), ' ');
        if (k) out += std::string(gap, ' ');
        out += cols[idx[k]].right ? pad + s : s + pad;
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      os << out << "\n";
    }
  };
  emit([&](size_t c) { return t.columns[c]; }, true);
  for (const auto& row : text) emit([&](size_t c) { return row[c]; }, false);
}

// 1. Cell texts. A column is numeric (right-aligned) unless it holds a string.
std::vector<std::vector<std::string>> cell_texts(const Table& t, const TextLayout& layout,
                                                 std::vector<Column>& cols) {
  const size_t n = t.columns.size();
  std::vector<std::vector<std::string>> text(t.rows.size(), std::vector<std::string>(n, "-"));
  for (size_t c = 0; c < n; ++c) {
    const DoubleFormat format = format_of(t.rows, c);
    const auto brief = layout.wide ? t.brief.end() : t.brief.find(t.columns[c]);
    const bool aligned_right = std::find(t.right_aligned.begin(), t.right_aligned.end(),
                                         t.columns[c]) != t.right_aligned.end();
    for (size_t r = 0; r < t.rows.size(); ++r) {
      if (c >= t.rows[r].size()) continue;
      const Cell& cell = t.rows[r][c];
      if (std::holds_alternative<std::string>(cell)) cols[c].numeric = false;
      if (std::holds_alternative<std::string>(cell) && !aligned_right) cols[c].right = false;
      const double* d = std::get_if<double>(&cell);
      text[r][c] = d ? format_double(*d, format) : terminal_safe(cell_text(cell));
      if (brief != t.brief.end() && r < brief->second.size() && !brief->second[r].empty())
        text[r][c] = terminal_safe(brief->second[r]);
    }
  }
  return text;
}

// 2. Widths: natural, least (headers wrap at '_', text at spaces), squeeze (words split).
void measure_columns(const Table& t, const std::vector<std::vector<std::string>>& text,
                     std::vector<Column>& cols) {
  const size_t n = t.columns.size();
  for (size_t c = 0; c < n; ++c) {
    const auto pieces = split(t.columns[c], '_');
    size_t header_min = 0;  // a header breaks only after a '_'
    for (size_t k = 0; k < pieces.size(); ++k)
      header_min = std::max(header_min, display_width(pieces[k]) + (k + 1 < pieces.size()));
    size_t values = 0, word = 0;
    for (const auto& row : text) {
      values = std::max(values, display_width(row[c]));
      for (const auto& w : split(row[c], ' ')) word = std::max(word, display_width(w));
    }
    Column& col = cols[c];
    col.natural = std::max(values, display_width(t.columns[c]));
    col.least = std::min(col.natural, std::max(header_min, col.numeric ? values : word));
    col.squeeze = col.numeric ? col.least : std::min(col.least, std::max(header_min, k_min_text));
  }
}

// 4. Too many columns: blocks of columns, each repeating the columns that name the row (the
// leading ones up to the last text column among the first three: family, phase; variant,
// family, phase), as pandas folds a wide frame. False (nothing written) when a block cannot fit.
bool emit_folded(std::ostream& os, const Table& t,
                 const std::vector<std::vector<std::string>>& text, const std::vector<Column>& cols,
                 size_t limit) {
  const size_t n = t.columns.size();
  std::vector<size_t> keys;
  for (size_t c = 0; c < std::min<size_t>(n, 3); ++c)
    if (!cols[c].numeric) keys.resize(c + 1);
  for (size_t c = 0; c < keys.size(); ++c) keys[c] = c;
  if (keys.size() >= n) return false;
  std::vector<std::vector<size_t>> blocks(1);
  bool ok = true;
  for (size_t c = keys.size(); c < n && ok; ++c) {
    auto trial = keys;
    trial.insert(trial.end(), blocks.back().begin(), blocks.back().end());
    trial.push_back(c);
    if (water_fill(cols, trial, &Column::least, limit, 2)) {
      blocks.back().push_back(c);
    } else if (!blocks.back().empty()) {
      blocks.push_back({c});
      auto alone = keys;
      alone.push_back(c);
      ok = water_fill(cols, alone, &Column::least, limit, 2).has_value();
    } else {
      ok = false;
    }
  }
  if (ok) {
    for (size_t b = 0; b < blocks.size(); ++b) {
      auto idx = keys;
      idx.insert(idx.end(), blocks[b].begin(), blocks[b].end());
      if (b) os << "\n";
      emit_block(os, t, text, cols, idx, *water_fill(cols, idx, &Column::least, limit, 2), 2);
    }
    return true;
  }
  return false;
}

// 6. Cannot fit as columns: one block of "column value" lines per row (the value under its
// column's name when even that does not fit on one line).
void emit_records(std::ostream& os, const Table& t,
                  const std::vector<std::vector<std::string>>& text, size_t limit) {
  const size_t n = t.columns.size();
  size_t label = 0;
  for (const auto& c : t.columns) label = std::max(label, display_width(c));
  const bool side_by_side = label + 4 + k_min_text <= limit;
  for (size_t r = 0; r < text.size(); ++r) {
    os << (r ? "\n" : "") << "[" << r + 1 << "]\n";
    for (size_t c = 0; c < n; ++c) {
      if (side_by_side) {
        os << "  " << t.columns[c] << std::string(label - display_width(t.columns[c]) + 2, ' ')
           << wrap_text(text[r][c], limit, label + 4) << "\n";
      } else {
        for (const auto& part : wrap_at(t.columns[c], limit > 2 ? limit - 2 : 1, '_'))
          os << "  " << part << "\n";
        os << "    " << wrap_text(text[r][c], limit, 4) << "\n";
      }
    }
  }
}

}  // namespace

void render_text(std::ostream& os, const Table& t, const TextLayout& layout) {
  const size_t n = t.columns.size();
  if (n == 0) return;
  // Kernel names and `--sql` results are data anyone may have written: an escape sequence in one
  // would drive the reader's terminal. Headers (rarely unsafe) through a copy, cells below.
  if (std::any_of(t.columns.begin(), t.columns.end(),
                  [](const std::string& c) { return terminal_safe(c) != c; })) {
    Table safe = t;
    for (auto& c : safe.columns) c = terminal_safe(c);
    render_text(os, safe, layout);
    return;
  }
  std::vector<Column> cols(n);
  const auto text = cell_texts(t, layout, cols);
  measure_columns(t, text, cols);
  std::vector<size_t> all(n);
  for (size_t c = 0; c < n; ++c) all[c] = c;
  const size_t limit = layout.width;
  if (!limit) {
    std::vector<size_t> w;
    for (const auto& c : cols) w.push_back(c.natural);
    emit_block(os, t, text, cols, all, w, 2);
    return;
  }
  // 3. All columns side by side, headers and text wrapped where needed.
  if (auto w = water_fill(cols, all, &Column::least, limit, 2)) {
    emit_block(os, t, text, cols, all, *w, 2);
    return;
  }
  if (emit_folded(os, t, text, cols, limit)) return;
  // 5. Words split inside, one space between columns.
  if (auto w = water_fill(cols, all, &Column::squeeze, limit, 1)) {
    emit_block(os, t, text, cols, all, *w, 1);
    return;
  }
  emit_records(os, t, text, limit);
}

}  // namespace kprof
