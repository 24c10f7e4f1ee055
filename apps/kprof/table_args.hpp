// The flags that shape a table on stdout, shared by `kprof query` and `kprof compare`: --format,
// --wide, --width.
#pragma once

#include <cstdint>
#include <string>

#include "apps/kprof/command.hpp"
#include "core/analysis/views/table.hpp"

namespace kprof::app {

struct TableFlags {
  std::string format = "table";
  bool wide = false;
  int64_t width = -1;  // -1: the terminal's
};

void add_table_options(po::options_description& opts, TableFlags& flags);
// Throws Error(input) for an unknown --format.
analysis::Format table_format(const TableFlags& flags);
// --wide: no width limit; else --width, else the terminal's width (none when not a terminal).
analysis::PrintOptions print_options(const TableFlags& flags);

}  // namespace kprof::app
