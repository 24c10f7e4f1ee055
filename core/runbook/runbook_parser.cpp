// The runbook schema v1: which keys exist, their types, defaults and cross-checks. Every problem
// is collected (not only the first) and thrown together as one Error(input).
#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/base/input_file.hpp"
#include "core/base/paths.hpp"
#include "core/base/sha256.hpp"
#include "core/base/text.hpp"
#include "core/runbook/checks.hpp"
#include "core/runbook/launcher_section.hpp"
#include "core/runbook/owned_options.hpp"
#include "core/runbook/runbook.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook {
namespace {

namespace fs = std::filesystem;
using detail::Entry;
using detail::join_path;
using detail::Map;
using detail::Reader;

const std::vector<std::string> k_top_keys = {
    "schema_version", "name",     "description", "workload", "profiler", "target", "passes",
    "retry",          "database", "captures",    "analysis", "launcher", "sim"};
const std::vector<std::string> k_workload_keys = {"command", "shell",   "env",
                                                  "cwd",     "timeout", "repeat_option"};
const std::vector<std::string> k_profiler_keys = {
    "path", "output_format", "selected_regions", "truncate_kernels", "extra_args", "agent_index"};
const std::vector<std::string> k_target_keys = {"arch"};
const std::vector<std::string> k_passes_keys = {"trace", "counters"};
const std::vector<std::string> k_trace_keys = {"enabled", "stats", "markers"};
const std::vector<std::string> k_counters_keys = {
    "metric_sets", "counters", "pins", "kernels", "iteration_range", "replay", "min_samples"};
const std::vector<std::string> k_kernels_keys = {"include_regex", "exclude_regex", "from_trace"};
const std::vector<std::string> k_from_trace_keys = {"top", "by"};
const std::vector<std::string> k_retry_keys = {"attempts", "backoff"};
const std::vector<std::string> k_analysis_keys = {"layers", "output_tokens", "families"};
const std::vector<std::string> k_family_keys = {"match", "family"};
const std::vector<std::string> k_sim_keys = {"model", "seed"};

const std::vector<std::string> k_output_formats = {"csv", "rocpd"};
const std::vector<std::string> k_agent_indexes = {"absolute", "relative", "type-relative"};
const std::vector<std::string> k_rank_by = {"total_duration", "calls"};
const std::vector<std::string> k_replays = {"auto", "application", "rotate", "kernel"};

template <class T>
void set(Located<T>& out, T value, const Entry& e) {
  out.value = std::move(value);
  out.pos = e.value_pos;
  out.from_file = true;
}

LocatedStrings located_strings(const std::vector<Reader::Item>& items, const Entry& e) {
  LocatedStrings out;
  out.pos = e.value_pos;
  out.from_file = true;
  for (const auto& i : items) out.value.push_back(LocatedString{i.value, i.pos, true});
  return out;
}

class Parser {
 public:
  Parser(Reader& reader, fs::path dir, const LoadOptions& options)
      : m_r(reader), m_dir(std::move(dir)), m_options(options) {}

  void parse(const YAML::Node& root, Runbook& rb);

 private:
  void defaults(Runbook& rb);
  void workload(const Entry& e, Workload& w);
  void command(const Entry& e, bool shell, Workload& w);
  void env(const Entry& e, Workload& w);
  void profiler(const Entry& e, Profiler& p);
  void target(const Entry& e, Target& t);
  void passes(const Entry& e, Passes& p);
  void trace(const Entry& e, TracePass& t);
  void counters(const Entry& e, CountersPass& c);
  void kernels(const Entry& e, KernelSelection& k);
  void retry(const Entry& e, Retry& r);
  void analysis(const Entry& e, Analysis& a);
  void sim(const Entry& e, Sim& s);
  void cross_checks(const Runbook& rb, const Map& top);

  std::optional<Map> map(const Entry& e, const std::string& path,
                         const std::vector<std::string>& keys) {
    return m_r.map(e.value, e.value_pos, path, keys);
  }
  void read_bool(const Map& m, std::string_view key, Located<bool>& out);
  void read_string(const Map& m, std::string_view key, LocatedString& out);
  void read_int(const Map& m, std::string_view key, Located<int>& out, int min, int max);
  void read_optional_int(const Map& m, std::string_view key, Located<std::optional<int>>& out,
                         int min, int max);
  void read_regex(const Map& m, std::string_view key, Located<std::optional<std::string>>& out);
  // A list of distinct, non-empty names without separators (metric sets, counters).
  std::optional<LocatedStrings> read_names(const Entry& e, const std::string& path,
                                           std::string_view what);
  // Absolute and normalised; relative paths start at the runbook's folder.
  std::optional<fs::path> read_path(const Entry& e, const std::string& path);

  Reader& m_r;
  fs::path m_dir;
  const LoadOptions& m_options;
};

void Parser::read_bool(const Map& m, std::string_view key, Located<bool>& out) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.boolean(e->value, e->value_pos, join_path(m.path, key))) set(out, *v, *e);
}

void Parser::read_string(const Map& m, std::string_view key, LocatedString& out) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.string(e->value, e->value_pos, join_path(m.path, key))) set(out, *v, *e);
}

void Parser::read_int(const Map& m, std::string_view key, Located<int>& out, int min, int max) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.integer(e->value, e->value_pos, join_path(m.path, key), min, max))
      set(out, static_cast<int>(*v), *e);
}

void Parser::read_optional_int(const Map& m, std::string_view key, Located<std::optional<int>>& out,
                               int min, int max) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.integer(e->value, e->value_pos, join_path(m.path, key), min, max))
      set(out, std::optional<int>(static_cast<int>(*v)), *e);
}

void Parser::read_regex(const Map& m, std::string_view key,
                        Located<std::optional<std::string>>& out) {
  const Entry* e = m.find(key);
  if (!e) return;
  const std::string path = join_path(m.path, key);
  auto v = m_r.string(e->value, e->value_pos, path);
  if (!v) return;
  if (auto problem = detail::regex_problem(*v)) {
    m_r.error(e->value_pos, path + ": invalid regular expression: " + *problem,
              "rocprofv3 uses ECMAScript std::regex syntax; escape literal characters with '\\'");
    return;
  }
  set(out, std::optional<std::string>(*v), *e);
}

std::optional<LocatedStrings> Parser::read_names(const Entry& e, const std::string& path,
                                                 std::string_view what) {
  auto items = m_r.strings(e.value, e.value_pos, path);
  if (!items) return std::nullopt;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const auto& item = (*items)[i];
    const std::string ipath = path + "[" + std::to_string(i) + "]";
    if (item.value.empty()) {
      m_r.error(item.pos, ipath + ": empty " + std::string(what) + " name", "remove the item");
      good = false;
      continue;
    }
    if (item.value.find_first_of(", \t") != std::string::npos) {
      m_r.error(item.pos, ipath + ": '" + item.value + "' holds several names",
                "write one " + std::string(what) + " per list item");
      good = false;
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      if ((*items)[j].value == item.value) {
        m_r.error(item.pos, ipath + ": '" + item.value + "' is listed twice",
                  "first at line " + std::to_string((*items)[j].pos.line) + "; keep one");
        good = false;
        break;
      }
    }
  }
  if (!good) return std::nullopt;
  return located_strings(*items, e);
}

std::optional<fs::path> Parser::read_path(const Entry& e, const std::string& path) {
  auto v = m_r.string(e.value, e.value_pos, path);
  if (!v) return std::nullopt;
  if (v->empty()) {
    m_r.error(e.value_pos, path + ": empty path", "write a path, relative to the runbook's folder");
    return std::nullopt;
  }
  if ((*v)[0] == '~') {
    m_r.error(e.value_pos, path + ": '~' is not expanded in runbooks",
              "write an absolute path or one relative to the runbook's folder");
    return std::nullopt;
  }
  fs::path p(*v);
  if (p.is_relative()) p = m_dir / p;
  p = p.lexically_normal();
  // "sub/deeper/.." normalises to "sub/"; keep one spelling per folder.
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();
  return p;
}

void Parser::defaults(Runbook& rb) {
  const SourcePos at = m_r.file_pos();
  auto def = [&](auto& loc, auto value) {
    loc.value = std::move(value);
    loc.pos = at;
    loc.from_file = false;
  };
  def(rb.schema_version, 0);
  def(rb.name, std::string());
  def(rb.description, std::string());
  def(rb.workload.command, std::vector<LocatedString>{});
  def(rb.workload.shell, false);
  def(rb.workload.env, std::vector<EnvVar>{});
  def(rb.workload.cwd, m_dir);
  def(rb.workload.timeout, std::optional<std::chrono::milliseconds>{});
  def(rb.workload.repeat_option, std::optional<std::string>{});
  def(rb.profiler.path, std::string("rocprofv3"));
  def(rb.profiler.output_format, OutputFormat::csv);
  def(rb.profiler.selected_regions, false);
  def(rb.profiler.truncate_kernels, false);
  def(rb.profiler.extra_args, std::vector<LocatedString>{});
  def(rb.profiler.agent_index, std::optional<AgentIndex>{});
  def(rb.target.arch, std::string("gfx942"));
  def(rb.passes.trace.enabled, true);
  def(rb.passes.trace.stats, true);
  def(rb.passes.trace.markers, false);
  def(rb.passes.counters.enabled, false);
  def(rb.passes.counters.metric_sets, std::vector<LocatedString>{});
  def(rb.passes.counters.counters, std::vector<LocatedString>{});
  def(rb.passes.counters.pins, std::vector<LocatedStrings>{});
  def(rb.passes.counters.kernels.include_regex, std::optional<std::string>{});
  def(rb.passes.counters.kernels.exclude_regex, std::optional<std::string>{});
  def(rb.passes.counters.iteration_range, std::optional<std::string>{});
  def(rb.passes.counters.replay, Replay::automatic);
  def(rb.passes.counters.min_samples, 30);
  def(rb.retry.attempts, 2);
  def(rb.retry.backoff, std::chrono::milliseconds(5000));
  def(rb.database, fs::path());
  def(rb.captures, fs::path());
  def(rb.analysis.layers, std::optional<int>{});
  def(rb.analysis.output_tokens, std::optional<int>{});
  def(rb.analysis.families, std::vector<FamilyRule>{});
  def(rb.launcher.type, LauncherKind::local);
  def(rb.launcher.partition, std::string());
  def(rb.launcher.time, std::string());
  def(rb.launcher.gpus_per_task, 1);
  def(rb.launcher.sbatch_args, std::vector<LocatedString>{});
  def(rb.sim.model, std::string());
  def(rb.sim.seed, std::uint64_t{1});
}

void Parser::parse(const YAML::Node& root, Runbook& rb) {
  defaults(rb);
  const SourcePos root_pos = m_r.pos_of(root.Mark());
  auto top = m_r.map(root, root_pos, "", k_top_keys);
  if (!top) return;

  if (const Entry* e = top->find("schema_version")) {
    if (auto v =
            m_r.integer(e->value, e->value_pos, "schema_version", -1'000'000'000, 1'000'000'000)) {
      if (*v != k_schema_version)
        m_r.error(e->value_pos,
                  "schema_version: this kprof reads schema 1, not " + std::to_string(*v),
                  *v > k_schema_version ? "use a newer kprof, or rewrite the runbook for schema 1"
                                        : "write schema_version: 1 (runbooks/README.md)");
      else
        set(rb.schema_version, static_cast<int>(*v), *e);
    }
  } else {
    m_r.missing(*top, "schema_version", "add 'schema_version: 1' as the first line");
  }

  if (const Entry* e = top->find("name")) {
    if (auto v = m_r.string(e->value, e->value_pos, "name")) {
      if (!detail::is_valid_name(*v))
        m_r.error(e->value_pos, "name: '" + *v + "' is not a valid name",
                  "use letters, digits, '.', '_' and '-', starting with a letter or digit");
      else
        set(rb.name, *v, *e);
    }
  } else {
    m_r.missing(*top, "name", "add e.g. 'name: qwen3-decode'; it names runs and the database");
  }
  read_string(*top, "description", rb.description);

  if (const Entry* e = top->find("workload"))
    workload(*e, rb.workload);
  else
    m_r.missing(*top, "workload", "add a workload map with command: [program, args...]");
  if (const Entry* e = top->find("profiler")) profiler(*e, rb.profiler);
  if (const Entry* e = top->find("target")) target(*e, rb.target);
  if (const Entry* e = top->find("passes")) passes(*e, rb.passes);
  if (const Entry* e = top->find("retry")) retry(*e, rb.retry);

  const std::string stem = rb.name.from_file ? rb.name.value : "kprof";
  rb.database.value = (m_dir / (stem + ".db")).lexically_normal();
  rb.captures.value = (m_dir / (stem + "-captures")).lexically_normal();
  if (const Entry* e = top->find("database"))
    if (auto p = read_path(*e, "database")) set(rb.database, *p, *e);
  if (const Entry* e = top->find("captures"))
    if (auto p = read_path(*e, "captures")) set(rb.captures, *p, *e);

  if (const Entry* e = top->find("analysis")) analysis(*e, rb.analysis);
  if (const Entry* e = top->find("launcher")) parse_launcher(m_r, *e, rb.launcher);
  if (const Entry* e = top->find("sim")) sim(*e, rb.sim);
  cross_checks(rb, *top);
}

void Parser::workload(const Entry& e, Workload& w) {
  auto m = map(e, "workload", k_workload_keys);
  if (!m) return;
  read_bool(*m, "shell", w.shell);
  if (const Entry* c = m->find("command"))
    command(*c, w.shell.value, w);
  else
    m_r.missing(*m, "command", "add command: [program, args...]");
  if (const Entry* c = m->find("env")) env(*c, w);
  if (const Entry* c = m->find("cwd")) {
    if (auto p = read_path(*c, "workload.cwd")) {
      std::error_code ec;
      if (!fs::is_directory(*p, ec))
        m_r.error(c->value_pos, "workload.cwd: '" + p->string() + "' is not a directory",
                  "create it or fix the path (relative paths start at the runbook's folder)");
      else
        set(w.cwd, *p, *c);
    }
  }
  if (const Entry* c = m->find("timeout")) {
    if (c->value.IsNull()) {
      set(w.timeout, std::optional<std::chrono::milliseconds>{}, *c);
    } else if (auto d = m_r.duration(c->value, c->value_pos, "workload.timeout",
                                     std::chrono::hours(24 * 7), "7d")) {
      if (d->count() <= 0)
        m_r.error(c->value_pos, "workload.timeout: must be longer than 0",
                  "remove timeout for no limit");
      else
        set(w.timeout, std::optional<std::chrono::milliseconds>(*d), *c);
    }
  }
  if (const Entry* c = m->find("repeat_option")) {
    if (auto s = m_r.string(c->value, c->value_pos, "workload.repeat_option")) {
      if (s->size() < 2 || (*s)[0] != '-' || s->find_first_of(" \t=") != std::string::npos)
        m_r.error(c->value_pos, "workload.repeat_option: '" + *s + "' is not an option name",
                  "write the option the workload takes before the repeat count, e.g. --repeat");
      else
        set(w.repeat_option, std::optional<std::string>(*s), *c);
    }
  }
}

void Parser::command(const Entry& e, bool shell, Workload& w) {
  const std::string path = "workload.command";
  if (e.value.IsScalar()) {
    if (!shell) {
      m_r.error(e.value_pos, path + ": expected a list, got " + Reader::describe(e.value),
                "write [program, arg, ...], or set shell: true to run one line with /bin/sh -c");
      return;
    }
    if (e.value.Scalar().empty()) {
      m_r.error(e.value_pos, path + ": empty command",
                "write the command line /bin/sh -c should run");
      return;
    }
    Located<std::vector<LocatedString>> out;
    set(out, std::vector<LocatedString>{LocatedString{e.value.Scalar(), e.value_pos, true}}, e);
    w.command = std::move(out);
    return;
  }
  auto items = m_r.strings(e.value, e.value_pos, path);
  if (!items) return;
  if (items->empty()) {
    m_r.error(e.value_pos, path + ": empty command",
              "list the program and its arguments, e.g. [python3, app.py]");
    return;
  }
  if ((*items)[0].value.empty()) {
    m_r.error((*items)[0].pos, path + "[0]: empty program name", "name the program to run first");
    return;
  }
  if (shell && items->size() > 1) {
    m_r.error(e.value_pos, path + ": with shell: true, command is one string",
              "join the arguments into one command line, or set shell: false");
    return;
  }
  w.command = located_strings(*items, e);
}

void Parser::env(const Entry& e, Workload& w) {
  auto m = m_r.open_map(e.value, e.value_pos, "workload.env");
  if (!m) return;
  std::vector<EnvVar> vars;
  bool good = true;
  for (const Entry& v : m->entries) {
    const std::string path = "workload.env." + v.key;
    if (!detail::is_env_name(v.key)) {
      m_r.error(v.key_pos, "workload.env: '" + v.key + "' is not a variable name",
                "use letters, digits and '_', not starting with a digit");
      good = false;
      continue;
    }
    if (v.value.IsNull()) {
      m_r.error(v.value_pos, path + ": expected a string, got nothing",
                "write " + v.key + ": \"\" for an empty value");
      good = false;
      continue;
    }
    auto s = m_r.string(v.value, v.value_pos, path);
    if (!s) {
      good = false;
      continue;
    }
    vars.push_back(
        EnvVar{LocatedString{v.key, v.key_pos, true}, LocatedString{*s, v.value_pos, true}});
  }
  if (good) set(w.env, std::move(vars), e);
}

void Parser::profiler(const Entry& e, Profiler& p) {
  auto m = map(e, "profiler", k_profiler_keys);
  if (!m) return;
  if (const Entry* c = m->find("path")) {
    if (auto s = m_r.string(c->value, c->value_pos, "profiler.path")) {
      if (s->empty()) {
        m_r.error(c->value_pos, "profiler.path: empty path",
                  "remove the key to use rocprofv3 from PATH");
      } else if (s->find('/') == std::string::npos) {
        set(p.path, *s, *c);  // a program name, looked up on PATH when the pass runs
      } else if (auto abs = read_path(*c, "profiler.path")) {
        std::error_code ec;
        if (!fs::is_regular_file(*abs, ec))
          m_r.error(
              c->value_pos, "profiler.path: no such file '" + abs->string() + "'",
              "fix the path (relative paths start at the runbook's folder) or write rocprofv3");
        else
          set(p.path, abs->string(), *c);
      }
    }
  }
  if (const Entry* c = m->find("output_format"))
    if (auto i = m_r.choice(c->value, c->value_pos, "profiler.output_format", k_output_formats))
      set(p.output_format, static_cast<OutputFormat>(*i), *c);
  read_bool(*m, "selected_regions", p.selected_regions);
  read_bool(*m, "truncate_kernels", p.truncate_kernels);
  if (const Entry* c = m->find("extra_args")) {
    if (auto items = m_r.strings(c->value, c->value_pos, "profiler.extra_args")) {
      bool good = true;
      for (size_t i = 0; i < items->size(); ++i) {
        const auto& arg = (*items)[i].value;
        const std::string_view opt = std::string_view(arg).substr(0, arg.find('='));
        for (const auto& owned : rocprofv3_owned_options()) {
          if (opt == owned.option) {
            m_r.error((*items)[i].pos,
                      "profiler.extra_args[" + std::to_string(i) + "]: '" + std::string(opt) +
                          "' is set by kprof",
                      "use " + std::string(owned.instead) + " instead");
            good = false;
          }
        }
      }
      if (good) p.extra_args = located_strings(*items, *c);
    }
  }
  if (const Entry* c = m->find("agent_index"))
    if (auto i = m_r.choice(c->value, c->value_pos, "profiler.agent_index", k_agent_indexes))
      set(p.agent_index, std::optional<AgentIndex>(static_cast<AgentIndex>(*i)), *c);
}

void Parser::target(const Entry& e, Target& t) {
  auto m = map(e, "target", k_target_keys);
  if (!m) return;
  const Entry* c = m->find("arch");
  if (!c) return;
  auto s = m_r.string(c->value, c->value_pos, "target.arch");
  if (!s) return;
  fs::path hw_dir;
  if (m_options.hw_dir) {
    hw_dir = *m_options.hw_dir;
  } else {
    // Without an installed configs/ the arch can only be checked later, by the planner.
    try {
      hw_dir = config_dir() / "hw";
    } catch (const Error&) {
    }
  }
  std::error_code ec;
  if (!hw_dir.empty() && fs::is_directory(hw_dir, ec)) {
    std::vector<std::string> known;
    for (const auto& f : fs::directory_iterator(hw_dir, ec))
      if (f.path().extension() == ".yaml") known.push_back(f.path().stem().string());
    std::sort(known.begin(), known.end());
    if (std::find(known.begin(), known.end(), *s) == known.end()) {
      std::string hint = did_you_mean(nearest_names(*s, known, 1));
      if (!hint.empty()) hint += " ";
      hint += "known targets: " + (known.empty() ? std::string("none") : join(known, ", ")) +
              " in " + hw_dir.string();
      m_r.error(c->value_pos, "target.arch: no hardware description for '" + *s + "'", hint);
      return;
    }
  }
  set(t.arch, *s, *c);
}

void Parser::passes(const Entry& e, Passes& p) {
  auto m = map(e, "passes", k_passes_keys);
  if (!m) return;
  if (const Entry* c = m->find("trace")) trace(*c, p.trace);
  if (const Entry* c = m->find("counters")) counters(*c, p.counters);
}

void Parser::trace(const Entry& e, TracePass& t) {
  auto m = map(e, "passes.trace", k_trace_keys);
  if (!m) return;
  read_bool(*m, "enabled", t.enabled);
  read_bool(*m, "stats", t.stats);
  read_bool(*m, "markers", t.markers);
}

void Parser::counters(const Entry& e, CountersPass& c) {
  auto m = map(e, "passes.counters", k_counters_keys);
  if (!m) return;
  set(c.enabled, true, e);
  if (const Entry* x = m->find("metric_sets"))
    if (auto v = read_names(*x, "passes.counters.metric_sets", "metric set"))
      c.metric_sets = std::move(*v);
  if (const Entry* x = m->find("counters"))
    if (auto v = read_names(*x, "passes.counters.counters", "counter")) c.counters = std::move(*v);
  if (const Entry* x = m->find("pins")) {
    const std::string path = "passes.counters.pins";
    if (auto lists = m_r.list(x->value, x->value_pos, path)) {
      std::vector<LocatedStrings> pins;
      bool good = true;
      for (size_t i = 0; i < lists->size(); ++i) {
        const YAML::Node& n = (*lists)[i];
        const std::string ipath = path + "[" + std::to_string(i) + "]";
        const SourcePos ip = n.IsNull() ? x->value_pos : m_r.pos_of(n.Mark());
        if (!n.IsSequence()) {
          m_r.error(ip, ipath + ": expected a list of counters, got " + Reader::describe(n),
                    "write each pin as [COUNTER_A, COUNTER_B]");
          good = false;
          continue;
        }
        auto names = read_names(Entry{std::to_string(i), ip, ip, n}, ipath, "counter");
        if (!names) {
          good = false;
          continue;
        }
        if (names->value.size() < 2) {
          m_r.error(ip, ipath + ": a pin needs at least two counters",
                    "a pin keeps counters in one pass; list two or more, or remove it");
          good = false;
          continue;
        }
        pins.push_back(std::move(*names));
      }
      if (good) set(c.pins, std::move(pins), *x);
    }
  }
  if (const Entry* x = m->find("kernels")) kernels(*x, c.kernels);
  if (const Entry* x = m->find("iteration_range")) {
    const std::string path = "passes.counters.iteration_range";
    if (auto s = m_r.string(x->value, x->value_pos, path)) {
      if (auto problem = detail::iteration_range_problem(*s))
        m_r.error(x->value_pos, path + ": " + *problem,
                  "write e.g. \"[1-2],[5]\": 1-based iterations, A-B inclusive");
      else
        set(c.iteration_range, std::optional<std::string>(*s), *x);
    }
  }
  if (const Entry* x = m->find("replay")) {
    if (auto i = m_r.choice(x->value, x->value_pos, "passes.counters.replay", k_replays)) {
      if (static_cast<Replay>(*i) == Replay::kernel)
        // rocprofv3's kernel replay (`--kernel-replay-beta-enabled`, re-running each dispatch
        // once per group with device memory restored between) is absent from rocprofiler-sdk
        // 1.0.0 / ROCm 7.0 (ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3.py
        // has no replay option) and documented later as a beta: single process, HIP graph
        // launches not replayed (projects/rocprofiler-sdk/source/docs/how-to/
        // using-kernel-replay-rocprofv3.rst). kprof has no way yet to tell a tool that has it
        // from one that ignores the flag, so it does not offer it.
        m_r.error(x->value_pos,
                  "passes.counters.replay: 'kernel' is not supported: rocprofv3's kernel replay "
                  "is a beta that ROCm 7.0's rocprofv3 lacks, and it replays neither HIP graph "
                  "launches nor a workload spread over processes (vLLM's EngineCore)",
                  "write replay: rotate (every group in one run) or replay: application");
      else
        set(c.replay, static_cast<Replay>(*i), *x);
    }
  }
  if (const Entry* x = m->find("min_samples"))
    if (auto v = m_r.integer(x->value, x->value_pos, "passes.counters.min_samples", 1, 100000))
      set(c.min_samples, static_cast<int>(*v), *x);
  if (!m->find("metric_sets") && !m->find("counters") && !m->find("pins") && !m->has_unknown)
    m_r.error(e.value_pos, "passes.counters: names no metric_sets and no counters",
              "add metric_sets: [roofline] or counters: [...], or remove passes.counters");
}

void Parser::kernels(const Entry& e, KernelSelection& k) {
  auto m = map(e, "passes.counters.kernels", k_kernels_keys);
  if (!m) return;
  read_regex(*m, "include_regex", k.include_regex);
  read_regex(*m, "exclude_regex", k.exclude_regex);
  const Entry* x = m->find("from_trace");
  if (!x) return;
  auto ft = map(*x, "passes.counters.kernels.from_trace", k_from_trace_keys);
  if (!ft) return;
  FromTrace out;
  out.pos = x->value_pos;
  out.top = Located<int>{0, x->value_pos, false};
  out.by = Located<RankBy>{RankBy::total_duration, m_r.file_pos(), false};
  bool good = true;
  if (const Entry* t = ft->find("top")) {
    if (auto v =
            m_r.integer(t->value, t->value_pos, "passes.counters.kernels.from_trace.top", 1, 10000))
      set(out.top, static_cast<int>(*v), *t);
    else
      good = false;
  } else {
    m_r.missing(*ft, "top", "add e.g. top: 10 (how many kernels to keep)");
    good = false;
  }
  if (const Entry* b = ft->find("by")) {
    if (auto i =
            m_r.choice(b->value, b->value_pos, "passes.counters.kernels.from_trace.by", k_rank_by))
      set(out.by, static_cast<RankBy>(*i), *b);
    else
      good = false;
  }
  if (good) k.from_trace = out;
}

void Parser::retry(const Entry& e, Retry& r) {
  auto m = map(e, "retry", k_retry_keys);
  if (!m) return;
  read_int(*m, "attempts", r.attempts, 1, 100);
  if (const Entry* c = m->find("backoff"))
    if (auto d = m_r.duration(c->value, c->value_pos, "retry.backoff", std::chrono::hours(1), "1h"))
      set(r.backoff, *d, *c);
}

void Parser::analysis(const Entry& e, Analysis& a) {
  auto m = map(e, "analysis", k_analysis_keys);
  if (!m) return;
  read_optional_int(*m, "layers", a.layers, 1, 10000);
  read_optional_int(*m, "output_tokens", a.output_tokens, 1, 10'000'000);
  const Entry* f = m->find("families");
  if (!f) return;
  auto items = m_r.list(f->value, f->value_pos, "analysis.families");
  if (!items) return;
  std::vector<FamilyRule> rules;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const YAML::Node& n = (*items)[i];
    const std::string path = "analysis.families[" + std::to_string(i) + "]";
    const SourcePos ip = n.IsNull() ? f->value_pos : m_r.pos_of(n.Mark());
    auto rm = m_r.map(n, ip, path, k_family_keys);
    if (!rm) {
      good = false;
      continue;
    }
    FamilyRule rule;
    const Entry* match = rm->find("match");
    const Entry* name = rm->find("family");
    if (!match) m_r.missing(*rm, "match", "add match: <regex searched in kernel names>");
    if (!name) m_r.missing(*rm, "family", "add family: <family name>");
    if (!match || !name) {
      good = false;
      continue;
    }
    auto re = m_r.string(match->value, match->value_pos, path + ".match");
    auto nm = m_r.string(name->value, name->value_pos, path + ".family");
    if (!re || !nm) {
      good = false;
      continue;
    }
    if (auto problem = detail::regex_problem(*re)) {
      m_r.error(match->value_pos, path + ".match: invalid regular expression: " + *problem,
                "ECMAScript std::regex syntax; escape literal characters with '\\'");
      good = false;
      continue;
    }
    if (nm->empty()) {
      m_r.error(name->value_pos, path + ".family: empty family name", "name the family, e.g. moe");
      good = false;
      continue;
    }
    set(rule.match, *re, *match);
    set(rule.family, *nm, *name);
    rules.push_back(std::move(rule));
  }
  if (good) set(a.families, std::move(rules), *f);
}

void Parser::sim(const Entry& e, Sim& s) {
  auto m = map(e, "sim", k_sim_keys);
  if (!m) return;
  s.present = true;
  if (const Entry* c = m->find("model")) {
    if (auto v = m_r.string(c->value, c->value_pos, "sim.model")) {
      const bool is_path = v->find('/') != std::string::npos ||
                           (v->size() > 5 && v->compare(v->size() - 5, 5, ".yaml") == 0);
      if (v->empty()) {
        m_r.error(c->value_pos, "sim.model: empty model",
                  "name a model in configs/sim or a .yaml path");
      } else if (!is_path) {
        set(s.model, *v, *c);  // a name in configs/sim, resolved by the test double
      } else if (auto p = read_path(*c, "sim.model")) {
        std::error_code ec;
        if (!fs::is_regular_file(*p, ec))
          m_r.error(
              c->value_pos, "sim.model: no such file '" + p->string() + "'",
              "fix the path (relative paths start at the runbook's folder) or name a model in "
              "configs/sim");
        else
          set(s.model, p->string(), *c);
      }
    }
  } else {
    m_r.missing(*m, "model", "add model: <name in configs/sim>");
  }
  if (const Entry* c = m->find("seed"))
    if (auto v = m_r.uint64(c->value, c->value_pos, "sim.seed")) set(s.seed, *v, *c);
}

void Parser::cross_checks(const Runbook& rb, const Map& top) {
  const auto& k = rb.passes.counters.kernels;
  if (k.from_trace && rb.passes.trace.enabled.from_file && !rb.passes.trace.enabled.value)
    m_r.error(k.from_trace->pos, "passes.counters.kernels.from_trace: needs the trace pass",
              "set passes.trace.enabled: true, or select kernels with include_regex");
  const CountersPass& c = rb.passes.counters;
  if (c.replay.from_file && c.replay.value == Replay::rotate) {
    // The interval and the repeats are chosen on the trace's own dispatch sequence
    // (core/plan/rotation.hpp).
    if (!rb.passes.trace.enabled.value)
      m_r.error(c.replay.pos, "passes.counters.replay: rotate needs the trace pass",
                "set passes.trace.enabled: true, or write replay: application");
    // rocprofv3 advances the rotation counter only for dispatches inside the iteration range
    // (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp,
    // is_targeted_kernel): the trace does not show which those are.
    if (c.iteration_range.value)
      m_r.error(c.iteration_range.pos,
                "passes.counters.iteration_range: cannot be combined with replay: rotate",
                "remove iteration_range, or write replay: application");
  }
  if (c.min_samples.from_file && c.replay.from_file && c.replay.value == Replay::application)
    m_r.error(c.min_samples.pos,
              "passes.counters.min_samples: used only when counter groups rotate",
              "remove min_samples, or write replay: rotate (or auto)");
  const Entry* passes = top.find("passes");
  if (!rb.passes.trace.enabled.value && !rb.passes.counters.enabled.value &&
      rb.passes.trace.enabled.from_file)
    m_r.error(passes ? passes->value_pos : top.pos, "passes: the runbook profiles nothing",
              "enable passes.trace or add passes.counters");
}

// Runbooks are a few KB; the cap stops a wrong path (a log, a symlink to /dev/zero) from being
// read without end.
constexpr std::uint64_t k_max_runbook_bytes = 1 << 20;

std::string read_bytes(const fs::path& file) {
  return read_input_file(file, "runbook", k_max_runbook_bytes);
}

}  // namespace

std::string_view to_string(OutputFormat v) { return k_output_formats[static_cast<size_t>(v)]; }
std::string_view to_string(AgentIndex v) { return k_agent_indexes[static_cast<size_t>(v)]; }
std::string_view to_string(RankBy v) { return k_rank_by[static_cast<size_t>(v)]; }
std::string_view to_string(LauncherKind v) { return v == LauncherKind::slurm ? "slurm" : "local"; }
std::string_view to_string(Replay v) { return k_replays[static_cast<size_t>(v)]; }

Runbook parse_runbook(std::string_view text, const fs::path& file, const LoadOptions& options) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  if (ec) abs = file;
  abs = abs.lexically_normal();

  Runbook rb;
  rb.source = abs;
  rb.dir = abs.parent_path();
  rb.text = std::string(text);
  rb.sha256 = sha256_hex(text);

  Reader reader(rb.text, file.string());
  Parser parser(reader, rb.dir, options);
  if (auto root = reader.parse()) parser.parse(*root, rb);
  if (!reader.ok()) {
    // Checks run section by section; the user reads the file top to bottom.
    auto diagnostics = reader.take();
    std::stable_sort(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                       const int la = a.pos ? a.pos->line : 0;
                       const int lb = b.pos ? b.pos->line : 0;
                       if (la != lb) return la < lb;
                       return (a.pos ? a.pos->col : 0) < (b.pos ? b.pos->col : 0);
                     });
    if (reader.suppressed() > 0) {
      diagnostics.push_back(
          Diagnostic{reader.file_pos(),
                     std::to_string(reader.suppressed()) + " more errors not shown",
                     "fix the ones above first; only the first " +
                         std::to_string(Reader::k_max_diagnostics) + " are listed",
                     {}});
    }
    throw Error(ErrorKind::input, std::move(diagnostics));
  }
  return rb;
}

void use_database(Runbook& rb, const fs::path& db) {
  std::error_code ec;
  fs::path abs = fs::absolute(db, ec);
  if (ec) abs = db;
  rb.database.value = abs.lexically_normal();
  if (!rb.captures.from_file)
    rb.captures.value =
        (rb.database.value.parent_path() / (rb.database.value.stem().string() + "-captures"))
            .lexically_normal();
}

Runbook load_runbook(const fs::path& file, const LoadOptions& options) {
  std::error_code ec;
  if (fs::is_directory(file, ec))
    throw Error::input("'" + file.string() + "' is a folder, not a runbook", "name a .yaml file");
  if (!fs::exists(file, ec))
    throw Error::input("no such runbook '" + file.string() + "'", "check the path");
  return parse_runbook(read_bytes(file), file, options);
}

Diagnostic diagnostic(const Runbook& rb, const SourcePos& pos, std::string what, std::string hint) {
  detail::Reader reader(rb.text, pos.file);
  return Diagnostic{pos, std::move(what), std::move(hint), reader.source_line(pos.line)};
}

}  // namespace kprof::runbook
