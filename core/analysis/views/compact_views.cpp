#include "core/analysis/views/compact_views.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/base/text.hpp"

namespace kprof::analysis {

namespace {

std::optional<size_t> column(const Table& t, std::string_view name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  if (it == t.columns.end()) return std::nullopt;
  return static_cast<size_t>(it - t.columns.begin());
}

double number(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return 0;
}

// The % of the peak that bounds the row: of the FLOP peak when compute-bound, else of HBM.
Cell pct_of_bound(const Table& t, const std::vector<Cell>& row) {
  const auto bound = column(t, "bound");
  const auto flops = column(t, "pct_peak_flops");
  const auto hbm = column(t, "pct_peak_hbm");
  if (!bound || !flops || !hbm) return {};
  const auto* b = std::get_if<std::string>(&row[*bound]);
  if (!b) return {};
  return b->starts_with("compute") ? row[*flops] : row[*hbm];
}

}  // namespace

bool compact_counter_view(std::string_view view, Table& t) {
  std::vector<std::string> keep;
  if (view == "roofline")
    keep = {"family",        "phase", "launches", "tflops", "tbps",
            "flop_per_byte", "bound", "pct_peak", "suspect"};
  else if (view == "metrics")
    keep = {"variant", "family", "phase", "launches", "flop_per_byte", "tflops", "tbps", "suspect"};
  else
    return false;
  const auto with = column(t, "with_counters");
  if (!with) return false;
  Table out = t;
  out.columns = keep;
  out.rows.clear();
  out.brief.clear();
  size_t without = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    if (number(row[*with]) <= 0) {
      ++without;
      continue;
    }
    std::vector<Cell> cells;
    for (const auto& name : keep) {
      if (name == "pct_peak") {
        cells.push_back(pct_of_bound(t, row));
        continue;
      }
      const auto c = column(t, name);
      cells.push_back(c ? row[*c] : Cell());
    }
    out.rows.push_back(std::move(cells));
    for (const auto& [name, briefs] : t.brief)
      if (r < briefs.size()) out.brief[name].push_back(briefs[r]);
  }
  // A suspect column is shown only when some row has a figure above a physical peak.
  const auto sus = column(out, "suspect");
  if (sus && std::all_of(out.rows.begin(), out.rows.end(), [&](const std::vector<Cell>& r) {
        return std::holds_alternative<std::monostate>(r[*sus]);
      })) {
    out.columns.erase(out.columns.begin() + static_cast<ptrdiff_t>(*sus));
    for (auto& r : out.rows) r.erase(r.begin() + static_cast<ptrdiff_t>(*sus));
  }
  std::vector<std::string> hidden;
  for (const auto& c : t.columns)
    if (std::find(keep.begin(), keep.end(), c) == keep.end()) hidden.push_back(c);
  std::string note = std::find(keep.begin(), keep.end(), "pct_peak") != keep.end()
                         ? "pct_peak: % of the peak that bounds the row (FLOP/s when "
                           "compute-bound, HBM bytes/s when memory-bound). Not shown: "
                         : "Not shown: ";
  if (without) note += std::to_string(without) + " rows without counters, and ";
  note += "the columns " + join(hidden, ", ") + "; --all shows every row and column";
  out.notes.insert(out.notes.begin(), note);
  t = std::move(out);
  return true;
}

}  // namespace kprof::analysis
