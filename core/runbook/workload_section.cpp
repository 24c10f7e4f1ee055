// The runbook's workload:, profiler: and target: sections.
#include <algorithm>

#include "core/base/paths.hpp"
#include "core/base/text.hpp"
#include "core/runbook/checks.hpp"
#include "core/runbook/owned_options.hpp"
#include "core/runbook/parser.hpp"

namespace kprof::runbook::detail {

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
  // The bound is launcher.gpus_per_task's: one node's GPUs.
  read_int(*m, "ranks", w.ranks, 1, 64);
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
  // A backend's name as written: core/exec's registry checks it (registered_names.hpp).
  if (const Entry* c = m->find("backend"))
    if (auto s = m_r.name(c->value, c->value_pos, "profiler.backend", "a backend name",
                          "remove the key to use rocprofv3"))
      set(p.backend, *s, *c);
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

}  // namespace kprof::runbook::detail
