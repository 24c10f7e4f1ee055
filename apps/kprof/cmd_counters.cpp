// `kprof counters [--arch A] [PATTERN]`: the target's counters with block, kind, expression and
// description. `kprof counters --explain NAME`: the hardware events a counter costs per pass.
// The use cases and the --explain text are core/hw/counter_catalog.hpp; this file parses flags.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/table.hpp"
#include "core/hw/counter_catalog.hpp"

namespace {

using namespace kprof;

int cmd_counters(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("arch", po::value<std::string>()->default_value("gfx942"),
                     "target architecture")("explain", po::value<std::string>(),
                                            "show the hardware events and slots of one counter")(
      "pattern", po::value<std::string>(),
      "substring or glob (* ?) of counter names, case-insensitive");
  po::positional_options_description pos;
  pos.add("pattern", 1);
  auto vm =
      app::parse_args("counters", "[--arch gfx942] [PATTERN] | --explain NAME", args, opts, pos,
                      "examples:\n  kprof counters TCC_EA0\n  kprof counters "
                      "'SQ_INSTS_VALU_*_F16'\n  kprof counters --explain FETCH_SIZE");
  if (!vm) return 0;
  const hw::Target t = hw::Target::load_arch((*vm)["arch"].as<std::string>());
  if (vm->count("explain")) {
    std::cout << hw::cost_text(hw::explain_counter(t, (*vm)["explain"].as<std::string>()));
    return 0;
  }
  const auto rows =
      hw::list_counters(t, vm->count("pattern") ? (*vm)["pattern"].as<std::string>() : "");
  Table table;
  table.columns = {"counter", "block", "kind", "event_or_expression", "description"};
  for (const auto& r : rows)
    table.rows.push_back({r.name, r.blocks, std::string(hw::to_string(r.kind)),
                          r.event_or_expression, r.description});
  render_text(std::cout, table, TextLayout{terminal_width(STDOUT_FILENO), false});
  std::cerr << rows.size() << " of " << t.counter_names().size() << " " << t.arch()
            << " counters\n";
  return 0;
}

}  // namespace

KPROF_COMMAND("counters", "list a target's hardware counters, or explain what one costs",
              cmd_counters);
