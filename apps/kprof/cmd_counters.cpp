// `kprof counters [--arch A] [PATTERN]`: the target's counters with block, kind, expression and
// description. `kprof counters --explain NAME`: the hardware events a counter costs per pass.
#include <unistd.h>

#include <iostream>
#include <set>

#include "apps/kprof/command.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/hw/target.hpp"

namespace {

using namespace kprof;

// Case-insensitive; '*' and '?' are wildcards, otherwise a substring match.
bool matches(std::string_view pattern, std::string_view name) {
  const std::string p = to_lower(pattern), n = to_lower(name);
  if (p.find_first_of("*?") == std::string::npos) return n.find(p) != std::string::npos;
  // Iterative glob with backtracking to the last '*'.
  size_t i = 0, j = 0, star = std::string::npos, mark = 0;
  while (j < n.size()) {
    if (i < p.size() && (p[i] == '?' || p[i] == n[j])) {
      ++i;
      ++j;
    } else if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
    } else if (star != std::string::npos) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

std::string blocks_of(const hw::Target& t, const std::vector<hw::Event>& events) {
  std::set<std::string> b;
  for (const auto& e : events) b.insert(t.block_of(e)->name);
  return b.empty() ? "-" : join(std::vector<std::string>(b.begin(), b.end()), "+");
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

int explain(const hw::Target& t, const std::string& name) {
  const std::string kind = hw::to_string(t.kind_of(name));
  const auto events = t.events_of(name);  // unknown name: error with the three nearest
  std::cout << name << " (" << kind << ", " << t.arch() << ")\n";
  if (const auto* b = t.base(name)) {
    std::cout << "  block: " << b->block << ", event " << b->event_id
              << "\n  description: " << b->description << "\n";
  } else if (const auto* d = t.derived(name)) {
    std::cout << "  expression: " << d->expression << "\n  description: " << d->description << "\n";
  } else {
    std::cout << "  one channel of " << events[0].counter << "; costs that counter's slot\n";
  }
  std::cout << "  hardware events (" << events.size() << "):\n";
  for (const auto& e : events) {
    const auto* b = t.base(e.counter);
    std::cout << "    " << pad(e.str(), 36) << b->block << " event " << b->event_id
              << (e.flag.empty() ? "" : " (accumulated; needs the plain counter beside it)")
              << "\n";
  }
  hw::Occupancy occ = t.occupancy({name});
  std::string slots;
  for (const auto& b : t.blocks()) {
    auto it = occ.used.find(b.name);
    if (it == occ.used.end()) continue;
    slots += (slots.empty() ? "" : "  ") + b.name + " " + std::to_string(it->second) + "/" +
             std::to_string(b.counters_per_pass);
  }
  std::cout << "  slots in one pass: " << (slots.empty() ? "none (constants only)" : slots) << "\n";
  if (!occ.fits())
    std::cout << "  does NOT fit one pass (over: " << join(occ.over_blocks, ", ")
              << "); request its base counters instead\n";
  return 0;
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
  if (vm->count("explain")) return explain(t, (*vm)["explain"].as<std::string>());
  const std::string pattern = vm->count("pattern") ? (*vm)["pattern"].as<std::string>() : "";
  size_t shown = 0;
  Table table;
  table.columns = {"counter", "block", "kind", "event_or_expression", "description"};
  for (const auto& name : t.counter_names()) {
    if (!pattern.empty() && !matches(pattern, name)) continue;
    ++shown;
    if (const auto* b = t.base(name)) {
      table.rows.push_back({name, b->block, std::string("base"),
                            "event " + std::to_string(b->event_id), b->description});
    } else {
      const auto* d = t.derived(name);
      table.rows.push_back({name, blocks_of(t, t.events_of(name)), std::string("derived"),
                            d->expression, d->description});
    }
  }
  if (shown) render_text(std::cout, table, TextLayout{terminal_width(STDOUT_FILENO), false});
  if (shown == 0) {
    throw Error::input("no " + t.arch() + " counter matches '" + pattern + "'",
                       did_you_mean(t.nearest(pattern)));
  }
  std::cerr << shown << " of " << t.counter_names().size() << " " << t.arch() << " counters\n";
  return 0;
}

}  // namespace

KPROF_COMMAND("counters", "list a target's hardware counters, or explain what one costs",
              cmd_counters);
