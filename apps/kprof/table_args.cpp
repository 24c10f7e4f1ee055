#include "apps/kprof/table_args.hpp"

#include <unistd.h>

#include "core/base/table.hpp"

namespace kprof::app {

void add_table_options(po::options_description& opts, TableFlags& flags) {
  opts.add_options()("format", po::value(&flags.format), "table | csv | jsonl | json")(
      "wide", po::bool_switch(&flags.wide),
      "full cells (kernel names) and no width limit in tables")(
      "width", po::value(&flags.width),
      "table width in columns, 0 = no limit (default: the terminal's)");
}

analysis::Format table_format(const TableFlags& flags) {
  return analysis::parse_format(flags.format);
}

analysis::PrintOptions print_options(const TableFlags& flags) {
  analysis::PrintOptions o;
  o.layout.wide = flags.wide;
  o.layout.width = flags.wide         ? 0
                   : flags.width >= 0 ? static_cast<size_t>(flags.width)
                                      : terminal_width(STDOUT_FILENO);
  return o;
}

}  // namespace kprof::app
