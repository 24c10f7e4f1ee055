#include "apps/kprof/command.hpp"

#include <unistd.h>
#include <algorithm>

#include <iostream>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"

namespace kprof::app {
namespace {
std::vector<Command>& table() {
  static std::vector<Command> t;
  return t;
}
}  // namespace

const std::vector<Command>& commands() {
  auto& t = table();
  std::sort(t.begin(), t.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  return t;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : table())
    if (c.name == name) return &c;
  return nullptr;
}

RegisterCommand::RegisterCommand(std::string name, std::string summary, int (*run)(const Args&)) {
  table().push_back(Command{std::move(name), std::move(summary), run});
}

namespace {

HelpFormat g_format = HelpFormat::text;

struct HelpItem {
  std::string name;  // "--format FMT" or "DB"
  std::string text;  // description, "(default: x)" appended
};

// "arg (=gfx942)" -> ("ARG", "gfx942"): Boost's own text of a value's name and default.
std::pair<std::string, std::string> value_and_default(const po::option_description& o,
                                                      const std::string& long_name) {
  const auto sem = o.semantic();
  if (!sem || sem->max_tokens() == 0) return {"", ""};
  std::string n = sem->name();
  std::string def;
  if (auto at = n.find(" (="); at != std::string::npos) {
    def = n.substr(at + 3, n.size() - at - 4);
    n = n.substr(0, at);
  }
  if (n == "arg") {
    n.clear();
    for (char c : long_name) n += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  }
  if (sem->is_composing() || sem->max_tokens() > 1) n += "...";
  return {n, def};
}

std::string roff(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\')
      o += "\\e";
    else if (c == '-')
      o += "\\-";
    else
      o += c;
  }
  if (!o.empty() && (o[0] == '.' || o[0] == '\'')) o = "\\&" + o;
  return o;
}

std::string upper(std::string s) {
  for (auto& c : s) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return s;
}

void print_help(std::ostream& os, const std::string& name, const std::string& usage,
                const po::options_description& options,
                const po::positional_options_description& positional, const std::string& epilog) {
  std::vector<std::string> positional_keys;
  for (unsigned i = 0; i < 16; ++i) {
    const std::string& key = positional.name_for_position(i);
    if (key.empty()) break;
    if (std::find(positional_keys.begin(), positional_keys.end(), key) == positional_keys.end())
      positional_keys.push_back(key);
    if (positional.max_total_count() <= i + 1) break;
  }
  std::vector<HelpItem> arguments, flags;
  for (const auto& opt : options.options()) {
    const std::string key = opt->long_name();
    const bool is_positional =
        std::find(positional_keys.begin(), positional_keys.end(), key) != positional_keys.end();
    auto [value, def] = value_and_default(*opt, key);
    std::string text = opt->description();
    if (!def.empty()) text += " (default: " + def + ")";
    if (is_positional) {
      std::string shown = upper(key);
      if (shown.size() > 4 && shown.substr(shown.size() - 4) == "_ARG")
        shown.resize(shown.size() - 4);  // "family-arg" stands for FAMILY
      arguments.push_back({shown, text});
      continue;
    }
    const std::string short_name =
        opt->canonical_display_name(po::command_line_style::allow_dash_for_short);
    std::string shown = "--" + key;
    if (short_name.size() == 2 && short_name[0] == '-') shown = short_name + ", " + shown;
    if (!value.empty()) shown += " " + value;
    flags.push_back({shown, text});
  }
  flags.push_back({"-h, --help", "show this help"});
  std::vector<std::string> forms;
  for (const auto& line : split(usage, '\n')) {
    std::string rest = line;
    for (size_t at; (at = rest.find("  |  ")) != std::string::npos; rest = rest.substr(at + 5))
      forms.push_back(rest.substr(0, at));
    forms.push_back(rest);
  }
  for (auto& f : forms) {
    f = std::string(trim(f));
    if (f.rfind("kprof " + name, 0) == 0) f = std::string(trim(f.substr(6 + name.size())));
  }
  const Command* cmd = find_command(name);
  const std::string summary = cmd ? cmd->summary : "";
  if (g_format == HelpFormat::words) {
    for (const auto& f : flags)
      for (const auto& w : split(f.name, ' '))
        if (w.rfind("-", 0) == 0) os << (w.back() == ',' ? w.substr(0, w.size() - 1) : w) << "\n";
    return;
  }
  if (g_format == HelpFormat::man) {
    os << ".TH KPROF-" << upper(name) << " 1 \"\" \"kprof " << KPROF_VERSION << "\" \"kprof\"\n"
       << ".SH NAME\nkprof\\-" << roff(name) << " \\- " << roff(summary) << "\n.SH SYNOPSIS\n";
    for (const auto& f : forms) os << ".B kprof " << roff(name) << "\n" << roff(f) << "\n.br\n";
    if (!arguments.empty()) {
      os << ".SH ARGUMENTS\n";
      for (const auto& a : arguments)
        os << ".TP\n.B " << roff(a.name) << "\n" << roff(a.text) << "\n";
    }
    os << ".SH OPTIONS\n";
    for (const auto& f : flags) os << ".TP\n.B " << roff(f.name) << "\n" << roff(f.text) << "\n";
    if (!epilog.empty()) {
      os << ".SH EXAMPLES\n.nf\n";
      for (const auto& line : split(epilog, '\n')) os << roff(line) << "\n";
      os << ".fi\n";
    }
    os << ".SH SEE ALSO\n.BR kprof (1)\n";
    return;
  }
  const size_t width =
      std::min<size_t>(terminal_width(STDOUT_FILENO) ? terminal_width(STDOUT_FILENO) : 100, 100);
  for (size_t i = 0; i < forms.size(); ++i)
    os << (i ? "       kprof " : "usage: kprof ") << name << (forms[i].empty() ? "" : " ")
       << forms[i] << "\n";
  if (!summary.empty()) os << "\n" << summary << "\n";
  auto section = [&](const std::string& title, const std::vector<HelpItem>& items) {
    if (items.empty()) return;
    size_t w = 0;
    for (const auto& i : items) w = std::max(w, i.name.size());
    w = std::min<size_t>(w, 28);
    os << "\n" << title << ":\n";
    for (const auto& i : items) {
      os << "  " << i.name;
      if (i.name.size() > w)
        os << "\n" << std::string(w + 4, ' ');
      else
        os << std::string(w - i.name.size() + 2, ' ');
      os << wrap_text(i.text, width, w + 4) << "\n";
    }
  };
  section("arguments", arguments);
  section("options", flags);
  if (!epilog.empty()) os << "\n" << epilog << (epilog.back() == '\n' ? "" : "\n");
}

// "did you mean '--gpus'?" for a misspelt option ("--gpu-list", "--simualte=1"), from the
// command's own long options; empty when none is near.
std::string nearest_option(const std::string& given, const po::options_description& options) {
  std::string bare = given.substr(0, given.find('='));
  bare.erase(0, bare.find_first_not_of('-'));
  if (bare.empty()) return {};
  std::vector<std::string> names = {"help"};
  for (const auto& o : options.options())
    if (!o->long_name().empty()) names.push_back(o->long_name());
  auto near = nearest_names(bare, names, 1, false);
  for (auto& n : near) n = "--" + n;
  return did_you_mean(near);
}

}  // namespace

void set_help_format(HelpFormat f) { g_format = f; }

void print_main_help(std::ostream& os) {
  const std::string about =
      "kprof runs rocprofv3 through a kernel-trace pass and the fewest hardware-counter passes, "
      "keeps every capture in one SQLite database, resumes interrupted runs, and explains the "
      "trace.";
  const std::string examples =
      "examples:\n"
      "  kprof run --simulate --metric-set roofline --kernels fused_moe -- true\n"
      "      profile an application with no runbook (here on the rocprofv3 test double)\n"
      "  kprof plan runbooks/qwen3-30b-a3b-sim.yaml\n"
      "      the counter passes a runbook needs and each pass's rocprofv3 command\n"
      "  kprof query out/q.db top --limit 10\n"
      "      the ten kernels with the most GPU time\n";
  if (g_format == HelpFormat::man) {
    os << ".TH KPROF 1 \"\" \"kprof " << KPROF_VERSION << "\" \"kprof\"\n"
       << ".SH NAME\nkprof \\- profiling orchestrator for rocprofv3\n.SH SYNOPSIS\n.B kprof\n"
       << "COMMAND [OPTIONS]\n.SH DESCRIPTION\n"
       << roff(about) << "\n.SH COMMANDS\n";
    for (const auto& c : commands())
      os << ".TP\n.BR kprof\\-" << roff(c.name) << " (1)\n" << roff(c.summary) << "\n";
    os << ".SH ENVIRONMENT\n.TP\n.B KPROF_CONFIG_DIR\n"
       << roff(
              "the configs folder (hw/, metrics/, families/, sim/); default: "
              "<prefix>/share/kprof/configs beside the bin/ folder kprof runs from")
       << "\n.SH EXAMPLES\n.nf\n";
    for (const auto& line : split(examples, '\n')) os << roff(line) << "\n";
    os << ".fi\n";
    return;
  }
  os << "usage: kprof <command> [options]\n\n" << wrap_text(about, 100) << "\n\ncommands:\n";
  for (const auto& c : commands())
    os << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
       << c.summary << "\n";
  os << "\n"
     << examples << "\n'kprof <command> --help' shows a command's arguments, options and "
     << "examples.\nKPROF_CONFIG_DIR overrides where kprof finds its configs.\n";
}

std::optional<po::variables_map> parse_args(const std::string& name, const std::string& usage,
                                            const Args& args, po::options_description options,
                                            const po::positional_options_description& positional,
                                            const std::string& epilog) {
  const std::string hint = "see 'kprof " + name + " --help'";
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      print_help(std::cout, name, usage, options, positional, epilog);
      return std::nullopt;
    }
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw Error::input("too many arguments", hint);
  } catch (const po::unknown_option& e) {
    const std::string near = nearest_option(e.get_option_name(), options);
    throw Error::input(e.what(), near.empty() ? hint : near + " " + hint);
  } catch (const po::error& e) {
    throw Error::input(e.what(), hint);
  }
  return vm;
}

}  // namespace kprof::app
