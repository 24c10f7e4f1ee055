// The terminal form of the counter views by default: `roofline` and `metrics` show the rows that
// have counters and the few figures a reader acts on (FLOP/s, bytes/s, intensity, bound, % of
// the bounding peak); `kprof query ... --all` (and every machine format) keeps every row and
// column. The views themselves are unchanged: the report and the machine formats read them whole.
#pragma once

#include <string_view>

#include "core/base/table.hpp"

namespace kprof::analysis {

// Narrows `t`, a `roofline` or `metrics` table, in place and says in a note what it left out and
// that --all shows it. Other views are left as they are. Returns whether it changed the table.
bool compact_counter_view(std::string_view view, Table& t);

}  // namespace kprof::analysis
