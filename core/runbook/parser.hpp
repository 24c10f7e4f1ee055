// Internal to core/runbook: the runbook schema v1 parser, split by section over
// runbook_parser.cpp (top level, defaults, cross-checks), parser_values.cpp (typed readers),
// workload_section.cpp (workload, profiler, target), passes_section.cpp (passes, retry) and
// analysis_section.cpp (analysis, sim).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/runbook/runbook.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook::detail {

namespace fs = std::filesystem;

inline const std::vector<std::string> k_top_keys = {
    "schema_version", "name",     "description", "workload", "profiler", "target", "passes",
    "retry",          "database", "captures",    "analysis", "launcher", "sim"};
inline const std::vector<std::string> k_workload_keys = {"command", "shell",         "env",  "cwd",
                                                         "timeout", "repeat_option", "ranks"};
inline const std::vector<std::string> k_profiler_keys = {
    "backend",          "path",       "output_format", "selected_regions",
    "truncate_kernels", "extra_args", "agent_index"};
inline const std::vector<std::string> k_target_keys = {"arch"};
inline const std::vector<std::string> k_passes_keys = {"trace", "counters"};
inline const std::vector<std::string> k_trace_keys = {"enabled", "stats", "markers"};
inline const std::vector<std::string> k_counters_keys = {
    "metric_sets", "counters", "pins", "kernels", "iteration_range", "replay", "min_samples"};
inline const std::vector<std::string> k_kernels_keys = {"include_regex", "exclude_regex",
                                                        "from_trace"};
inline const std::vector<std::string> k_from_trace_keys = {"top", "by"};
inline const std::vector<std::string> k_retry_keys = {"attempts", "backoff"};
inline const std::vector<std::string> k_analysis_keys = {"layers", "output_tokens", "families"};
inline const std::vector<std::string> k_family_keys = {"match", "family"};
inline const std::vector<std::string> k_sim_keys = {"model", "seed"};

inline const std::vector<std::string> k_output_formats = {"csv", "rocpd"};
inline const std::vector<std::string> k_agent_indexes = {"absolute", "relative", "type-relative"};
inline const std::vector<std::string> k_rank_by = {"total_duration", "calls"};
inline const std::vector<std::string> k_replays = {"auto", "application", "rotate", "kernel"};

template <class T>
void set(Located<T>& out, T value, const Entry& e) {
  out.value = std::move(value);
  out.pos = e.value_pos;
  out.from_file = true;
}

LocatedStrings located_strings(const std::vector<Reader::Item>& items, const Entry& e);

class Parser {
 public:
  // `out_dir`: the base of the database and captures paths (the runbook's folder, or the
  // working directory for a runbook of the installation).
  Parser(Reader& reader, fs::path dir, fs::path out_dir, const LoadOptions& options)
      : m_r(reader), m_dir(std::move(dir)), m_out_dir(std::move(out_dir)), m_options(options) {}

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
  // Absolute and normalised; relative paths start at `base` (default: the runbook's folder).
  std::optional<fs::path> read_path(const Entry& e, const std::string& path,
                                    const fs::path& base = {});

  Reader& m_r;
  fs::path m_dir;
  fs::path m_out_dir;
  const LoadOptions& m_options;
};

}  // namespace kprof::runbook::detail
