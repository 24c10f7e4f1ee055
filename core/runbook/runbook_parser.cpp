// The runbook schema v1: which keys exist, their types, defaults and cross-checks. Every problem
// is collected (not only the first) and thrown together as one Error(input). The sections are read
// in *_section.cpp (parser.hpp).
#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/base/input_file.hpp"
#include "core/base/paths.hpp"
#include "core/base/sha256.hpp"
#include "core/base/text.hpp"
#include "core/runbook/checks.hpp"
#include "core/runbook/launcher_section.hpp"
#include "core/runbook/parser.hpp"
#include "core/runbook/runbook.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook {

namespace detail {

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
  def(rb.workload.ranks, 1);
  def(rb.profiler.backend, std::string("rocprofv3"));
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
  def(rb.launcher.type, std::string("local"));
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
    if (auto v = m_r.name(e->value, e->value_pos, "name", "a valid name",
                          "use letters, digits, '.', '_' and '-', starting with a letter or digit"))
      set(rb.name, *v, *e);
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
  rb.database.value = (m_out_dir / (stem + ".db")).lexically_normal();
  if (const Entry* e = top->find("database"))
    if (auto p = read_path(*e, "database", m_out_dir)) set(rb.database, *p, *e);
  // Captures belong to one database: beside it, named after it, so two runbooks sharing a
  // `name:` but not a `database:` never share pass folders.
  rb.captures.value =
      (rb.database.value.parent_path() / (rb.database.value.stem().string() + "-captures"))
          .lexically_normal();
  if (const Entry* e = top->find("captures"))
    if (auto p = read_path(*e, "captures", m_out_dir)) set(rb.captures, *p, *e);

  if (const Entry* e = top->find("analysis")) analysis(*e, rb.analysis);
  if (const Entry* e = top->find("launcher")) parse_launcher(m_r, *e, rb.launcher);
  if (const Entry* e = top->find("sim")) sim(*e, rb.sim);
  cross_checks(rb, *top);
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
  if (c.min_samples.from_file && c.replay.from_file &&
      (c.replay.value == Replay::application || c.replay.value == Replay::kernel))
    m_r.error(c.min_samples.pos,
              "passes.counters.min_samples: used only when counter groups rotate",
              "remove min_samples, or write replay: rotate (or auto)");
  const Entry* passes = top.find("passes");
  if (!rb.passes.trace.enabled.value && !rb.passes.counters.enabled.value &&
      rb.passes.trace.enabled.from_file)
    m_r.error(passes ? passes->value_pos : top.pos, "passes: the runbook profiles nothing",
              "enable passes.trace or add passes.counters");
}

}  // namespace detail

namespace {

using namespace detail;

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

  // An installed runbook (under share/kprof) is read-only material: what it writes goes where
  // the user runs it, never into the installation.
  const auto installed = options.install_dir ? options.install_dir : installed_data_dir();
  const fs::path out_dir =
      installed && path_is_under(abs, *installed) ? fs::current_path(ec) : rb.dir;

  Reader reader(rb.text, file.string());
  Parser parser(reader, rb.dir, out_dir.empty() ? rb.dir : out_dir, options);
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

Diagnostic unknown_value(const Runbook& rb, const LocatedString& name, std::string_view key,
                         const std::vector<std::string>& names) {
  // Spelt as the runbook's other closed choices are (yaml_values.cpp, choice).
  const std::string choices = names.size() == 2 ? names[0] + " or " + names[1] : join(names, ", ");
  const std::string meant = did_you_mean(nearest_names(name.value, names, 1));
  return diagnostic(rb, name.pos, std::string(key) + ": unknown value '" + name.value + "'",
                    (meant.empty() ? "" : meant + " ") + "use " + choices);
}

}  // namespace kprof::runbook
