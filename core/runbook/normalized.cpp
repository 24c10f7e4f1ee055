#include "core/runbook/normalized.hpp"

#include <cctype>
#include <charconv>
#include <sstream>

#include "core/base/duration.hpp"
#include "core/base/text.hpp"

namespace kprof::runbook {
namespace {

// Values are written so that a YAML reader gets the same string back: anything YAML would read as
// a bool, a number or null, or that holds YAML punctuation, is double-quoted.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* const k_reserved[] = {"true", "false", "null", "yes", "no",
                                           "on",   "off",   "~",    "y",   "n"};
  for (const char* r : k_reserved)
    if (iequals(s, r)) return true;
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc() && end == s.data() + s.size()) return true;
  // "-x" and "--flag" are plain scalars; "-" alone and "---" are not.
  if (s == "-" || s.rfind("---", 0) == 0 || s.front() == '.' || s.front() == '*' ||
      s.front() == '&' || s.front() == '!')
    return true;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    const bool safe = std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == '/' || c == '+' ||
                      c == '=' || c == '@' || c == '%' || u >= 0x80;
    if (!safe) return true;
  }
  return false;
}

std::string scalar(const std::string& s) { return needs_quotes(s) ? json_quote(s) : s; }

std::string flow(const std::vector<LocatedString>& items) {
  std::vector<std::string> parts;
  for (const auto& i : items) parts.push_back(scalar(i.value));
  return "[" + join(parts, ", ") + "]";
}

std::string where(const SourcePos& pos, bool from_file) {
  if (!from_file || pos.line == 0) return "default";
  return std::to_string(pos.line) + ":" + std::to_string(pos.col);
}

class Printer {
 public:
  // `note` follows "default" for defaults whose effective value needs a word ("no limit").
  template <class T>
  void line(int depth, std::string_view key, const std::string& value, const Located<T>& loc,
            std::string_view note = {}) {
    std::string text =
        std::string(static_cast<size_t>(depth) * 2, ' ') + std::string(key) + ": " + value;
    std::string comment = where(loc.pos, loc.from_file);
    if (!loc.from_file && !note.empty()) comment += ": " + std::string(note);
    emit(text, comment);
  }
  void section(int depth, std::string_view key) {
    m_out << std::string(static_cast<size_t>(depth) * 2, ' ') << key << ":\n";
  }
  void raw(int depth, const std::string& text, const std::string& comment) {
    emit(std::string(static_cast<size_t>(depth) * 2, ' ') + text, comment);
  }
  void comment(const std::string& text) { m_out << "# " << text << "\n"; }
  std::string str() const { return m_out.str(); }

 private:
  void emit(std::string text, const std::string& comment) {
    constexpr size_t k_comment_col = 48;
    text += text.size() < k_comment_col ? std::string(k_comment_col - text.size(), ' ')
                                        : std::string("  ");
    m_out << text << "# " << comment << "\n";
  }
  std::ostringstream m_out;
};

std::string b(bool v) { return v ? "true" : "false"; }

template <class T>
std::string opt_int(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "~";
}

std::string opt_str(const std::optional<std::string>& v) { return v ? scalar(*v) : "~"; }

void print_workload(Printer& p, const Workload& w) {
  p.section(0, "workload");
  p.line(1, "command", w.shell.value ? scalar(w.command.value.at(0).value) : flow(w.command.value),
         w.command);
  p.line(1, "shell", b(w.shell.value), w.shell);
  if (w.env.value.empty()) {
    p.line(1, "env", "{}", w.env, "nothing added");
  } else {
    p.raw(1, "env:", where(w.env.pos, w.env.from_file));
    for (const auto& v : w.env.value)
      p.raw(2, scalar(v.name.value) + ": " + scalar(v.value.value), where(v.value.pos, true));
  }
  p.line(1, "cwd", scalar(w.cwd.value.string()), w.cwd, "the runbook's folder");
  p.line(1, "timeout", w.timeout.value ? format_duration(*w.timeout.value) : "~", w.timeout,
         "no limit");
  p.line(1, "repeat_option", opt_str(w.repeat_option.value), w.repeat_option,
         "the request is not repeated");
  p.line(1, "ranks", std::to_string(w.ranks.value), w.ranks, "one process drives the GPU");
}

void print_profiler(Printer& p, const Profiler& pr) {
  p.section(0, "profiler");
  p.line(1, "backend", scalar(pr.backend.value), pr.backend);
  p.line(1, "path", scalar(pr.path.value), pr.path, "found on PATH");
  // Unwritten, the profiler's own default applies (core/exec/profiler/rocprofv3_backend.hpp).
  p.line(1, "output_format",
         pr.output_format.from_file ? std::string(to_string(pr.output_format.value)) : "~",
         pr.output_format, "rocprofv3's (rocpd from ROCm 7.0, csv before)");
  p.line(1, "selected_regions", b(pr.selected_regions.value), pr.selected_regions);
  p.line(1, "truncate_kernels", b(pr.truncate_kernels.value), pr.truncate_kernels);
  p.line(1, "extra_args", flow(pr.extra_args.value), pr.extra_args);
  p.line(1, "agent_index",
         pr.agent_index.value ? std::string(to_string(*pr.agent_index.value)) : "~", pr.agent_index,
         "rocprofv3's (relative)");
}

// The counter passes' settings, under `passes.counters` (enabled).
void print_counters(Printer& p, const CountersPass& c) {
  p.raw(1, "counters:", where(c.enabled.pos, true));
  p.line(2, "metric_sets", flow(c.metric_sets.value), c.metric_sets);
  p.line(2, "counters", flow(c.counters.value), c.counters);
  std::vector<std::string> pins;
  for (const auto& pin : c.pins.value) pins.push_back(flow(pin.value));
  p.line(2, "pins", "[" + join(pins, ", ") + "]", c.pins);
  p.section(2, "kernels");
  p.line(3, "include_regex", opt_str(c.kernels.include_regex.value), c.kernels.include_regex,
         "every kernel");
  p.line(3, "exclude_regex", opt_str(c.kernels.exclude_regex.value), c.kernels.exclude_regex,
         "none excluded");
  if (const auto& ft = c.kernels.from_trace) {
    p.raw(3, "from_trace:", where(ft->pos, true));
    p.line(4, "top", std::to_string(ft->top.value), ft->top);
    p.line(4, "by", std::string(to_string(ft->by.value)), ft->by);
  } else {
    p.raw(3, "from_trace: ~", "default: not used");
  }
  p.line(2, "iteration_range", opt_str(c.iteration_range.value), c.iteration_range,
         "every iteration");
  p.line(2, "replay", std::string(to_string(c.replay.value)), c.replay);
  p.line(2, "min_samples", std::to_string(c.min_samples.value), c.min_samples);
}

void print_analysis(Printer& p, const Analysis& a) {
  p.section(0, "analysis");
  p.line(1, "layers", opt_int(a.layers.value), a.layers, "not given");
  p.line(1, "output_tokens", opt_int(a.output_tokens.value), a.output_tokens, "not given");
  if (a.families.value.empty()) {
    p.line(1, "families", "[]", a.families, "no rules");
  } else {
    p.raw(1, "families:", where(a.families.pos, a.families.from_file));
    for (const auto& f : a.families.value)
      p.raw(2, "- {match: " + scalar(f.match.value) + ", family: " + scalar(f.family.value) + "}",
            where(f.match.pos, true));
  }
}

void print_launcher(Printer& p, const Launcher& l) {
  p.section(0, "launcher");
  p.line(1, "type", scalar(l.type.value), l.type);
  if (l.type.value == "slurm") {
    p.line(1, "partition", scalar(l.partition.value), l.partition);
    p.line(1, "time", scalar(l.time.value), l.time);
    p.line(1, "gpus_per_task", std::to_string(l.gpus_per_task.value), l.gpus_per_task);
    std::vector<std::string> args;
    for (const auto& arg : l.sbatch_args.value) args.push_back(scalar(arg.value));
    p.line(1, "sbatch_args", "[" + join(args, ", ") + "]", l.sbatch_args);
  }
}

}  // namespace

std::string format_normalized(const Runbook& rb) {
  Printer p;
  p.comment(rb.source.string() + " is valid (runbook schema " + std::to_string(k_schema_version) +
            ")");
  p.comment("sha256 " + rb.sha256);
  p.comment("each value is followed by where the runbook sets it (line:col) or 'default'");
  p.line(0, "schema_version", std::to_string(rb.schema_version.value), rb.schema_version);
  p.line(0, "name", scalar(rb.name.value), rb.name);
  p.line(0, "description", scalar(rb.description.value), rb.description);
  print_workload(p, rb.workload);
  print_profiler(p, rb.profiler);

  p.section(0, "target");
  p.line(1, "arch", scalar(rb.target.arch.value), rb.target.arch);

  const TracePass& t = rb.passes.trace;
  const CountersPass& c = rb.passes.counters;
  p.section(0, "passes");
  p.section(1, "trace");
  p.line(2, "enabled", b(t.enabled.value), t.enabled);
  p.line(2, "stats", b(t.stats.value), t.stats);
  p.line(2, "markers", b(t.markers.value), t.markers);
  if (!c.enabled.value)
    p.line(1, "counters", "~", c.enabled, "no counter passes");
  else
    print_counters(p, c);

  p.section(0, "retry");
  p.line(1, "attempts", std::to_string(rb.retry.attempts.value), rb.retry.attempts);
  p.line(1, "backoff", format_duration(rb.retry.backoff.value), rb.retry.backoff);
  p.line(0, "database", scalar(rb.database.value.string()), rb.database);
  p.line(0, "captures", scalar(rb.captures.value.string()), rb.captures);
  print_analysis(p, rb.analysis);
  if (rb.launcher.present) print_launcher(p, rb.launcher);
  if (!rb.sim.present) {
    p.raw(0, "sim: ~", "default: no test-double settings");
  } else {
    p.section(0, "sim");
    p.line(1, "model", scalar(rb.sim.model.value), rb.sim.model);
    p.line(1, "seed", std::to_string(rb.sim.seed.value), rb.sim.seed);
  }
  return p.str();
}

}  // namespace kprof::runbook
