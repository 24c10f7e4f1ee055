// `kprof counters [--arch A] [PATTERN]`: the target's counters with block, kind, expression and
// description. `kprof counters --explain NAME`: the hardware events a counter costs per pass.
// The use cases are core/hw/counter_catalog.hpp; this file parses flags and lays them out.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/hw/counter_catalog.hpp"

namespace {

using namespace kprof;

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

void print_cost(const hw::CounterCost& c) {
  std::cout << c.name << " (" << hw::to_string(c.kind) << ", " << c.arch << ")\n";
  if (c.base) {
    std::cout << "  block: " << c.base->block << ", event " << c.base->event_id
              << "\n  description: " << c.base->description << "\n";
  } else if (c.derived) {
    std::cout << "  expression: " << c.derived->expression
              << "\n  description: " << c.derived->description << "\n";
  } else {
    std::cout << "  one channel of " << c.events.at(0).event.counter
              << "; costs that counter's slot\n";
  }
  std::cout << "  hardware events (" << c.events.size() << "):\n";
  for (const auto& e : c.events) {
    std::cout << "    " << pad(e.event.str(), 36) << e.block << " event " << e.event_id
              << (e.accumulated ? " (accumulated; needs the plain counter beside it)" : "") << "\n";
  }
  std::string slots;
  for (const auto& s : c.slots)
    slots += (slots.empty() ? "" : "  ") + s.block + " " + std::to_string(s.used) + "/" +
             std::to_string(s.limit);
  std::cout << "  slots in one pass: " << (slots.empty() ? "none (constants only)" : slots) << "\n";
  if (!c.over_blocks.empty())
    std::cout << "  does NOT fit one pass (over: " << join(c.over_blocks, ", ")
              << "); request its base counters instead\n";
}

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
    print_cost(hw::explain_counter(t, (*vm)["explain"].as<std::string>()));
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
