// rocprofv3's input files (-i): the `jobs` list, each job merged over the command line's settings
// (rocprofv3.py), with the launcher's refusals and conflicts.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "core/base/text.hpp"
#include "core/sim/options.hpp"
#include "core/sim/version.hpp"

namespace kprof::sim {

namespace {

std::string node_text(const YAML::Node& n) {
  if (n.IsSequence()) {
    std::vector<std::string> parts;
    for (const auto& e : n) parts.push_back(node_text(e));
    return "[" + join(parts, ", ") + "]";
  }
  return n.IsScalar() ? n.as<std::string>() : std::string();
}

}  // namespace

namespace {

// ROCm 6.2's input file: {"metrics": [{"pmc": [...]}, ...]}, one pass per entry; a file without
// `metrics` ends in the KeyError the launcher prints (ROCm/rocprofiler-sdk tag rocm-6.2.0
// source/bin/rocprofv3.py, parse_json/parse_yaml: fatal_error(f"{e}")).
std::vector<JobOptions> load_metrics(const YAML::Node& root, const JobOptions& cli) {
  if (!root["metrics"] || !root["metrics"].IsSequence())
    throw CliFailure(1, "Fatal error: 'metrics'\n");
  std::vector<JobOptions> jobs;
  for (const auto& m : root["metrics"]) {
    JobOptions j = cli;
    std::vector<std::string> raw;
    if (m["pmc"] && m["pmc"].IsSequence())
      for (const auto& c : m["pmc"]) raw.push_back(c.as<std::string>());
    j.pmc = split_counters(raw);
    j.pmc_given = true;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

// Before ROCm 7.0 the launcher turns every job into a dotdict, which makes a dict of each list
// value's items: a list of counter lists (pmc_groups) fails there, in dict()'s own words.
void refuse_nested_lists(const YAML::Node& root, bool json) {
  for (const auto& jn : root["jobs"])
    for (const auto& kv : jn) {
      const YAML::Node& v = kv.second;
      if (!v.IsSequence() || v.size() == 0 || !v[0].IsSequence() || v[0].size() == 0) continue;
      const std::string what = "dictionary update sequence element #0 has length " +
                               std::to_string(v[0][0].as<std::string>().size()) + "; 2 is required";
      throw CliFailure(1, json ? "Fatal error: " + what + "\n"
                               : "Traceback (most recent call last):\n  File \"rocprofv3\", line "
                                 "1, in <module>\nValueError: " +
                                     what + "\n");
    }
}

}  // namespace

namespace {

// The file's extension, refused unless rocprofv3 reads it; the file must exist.
std::string checked_extension(const std::string& path) {
  const std::string ext = to_lower(std::filesystem::path(path).extension().string());
  if (ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".txt")
    throw CliFailure(1, "Fatal error: Input file '" + path +
                            "' does not have a recognized extension (.txt, .json, .yaml, .yml)\n");
  if (!std::filesystem::exists(path))
    throw CliFailure(1, "Fatal error: Input file '" + path + "' does not exist\n");
  if (ext == ".txt")
    throw CliFailure(
        1, "Fatal error: rocprofv3-sim does not simulate .txt input files; use .yaml or .json\n");
  return ext;
}

YAML::Node parse_input_file(const std::string& path) {
  try {
    return YAML::LoadFile(path);  // JSON is a subset of YAML
  } catch (const YAML::Exception& e) {
    throw CliFailure(1,
                     "Fatal error: could not parse input file '" + path + "': " + e.what() + "\n");
  }
}

// One job of the `jobs` list merged over the command line's settings `cli`: a key the command
// line set explicitly to another value is a conflict.
class JobReader {
 public:
  JobReader(const YAML::Node& jn, const JobOptions& cli) : m_jn(jn), m_cli(cli) {}

  JobOptions read() const {
    JobOptions j = m_cli;
    read_pmc(j);
    if (has("pmc_groups")) read_pmc_groups(j);
    boolean("kernel_trace", j.kernel_trace);
    boolean("stats", j.stats);
    boolean("selected_regions", j.selected_regions);
    boolean("marker_trace", j.marker_trace);
    boolean("truncate_kernels", j.truncate_kernels);
    text("kernel_include_regex", j.include_regex);
    text("kernel_exclude_regex", j.exclude_regex);
    text("output_file", j.output_file);
    text("output_directory", j.output_directory);
    if (has("kernel_iteration_range")) {
      j.iteration_range.clear();
      if (m_jn["kernel_iteration_range"].IsSequence())
        for (const auto& r : m_jn["kernel_iteration_range"])
          j.iteration_range.push_back(r.as<std::string>());
      else
        j.iteration_range.push_back(m_jn["kernel_iteration_range"].as<std::string>());
    }
    if (has("output_format")) {
      j.output_format.clear();
      if (m_jn["output_format"].IsSequence())
        for (const auto& f : m_jn["output_format"])
          j.output_format.push_back(to_lower(f.as<std::string>()));
      else
        j.output_format.push_back(to_lower(m_jn["output_format"].as<std::string>()));
    }
    if (has("agent_index")) j.agent_index = m_jn["agent_index"].as<std::string>();
    if (has("sys_trace") && truth_value(m_jn["sys_trace"].as<std::string>())) j.kernel_trace = true;
    return j;
  }

 private:
  bool has(const std::string& k) const { return static_cast<bool>(m_jn[k]); }

  void conflict(const std::string& k, const std::string& cli_v, const std::string& file_v) const {
    const bool set_on_cli = std::find(m_cli.explicit_keys.begin(), m_cli.explicit_keys.end(), k) !=
                            m_cli.explicit_keys.end();
    if (set_on_cli && cli_v != file_v)
      throw CliFailure(
          1,
          "Traceback (most recent call last):\n  File \"rocprofv3\", line 1, in <module>\n"
          "RuntimeError: conflicting value for " +
              k + " : " + cli_v + " vs " + file_v + "\n");
  }

  void boolean(const std::string& k, bool& field) const {
    if (!has(k)) return;
    const bool v = truth_value(m_jn[k].as<std::string>());
    conflict(k, field ? "True" : "False", v ? "True" : "False");
    field = v;
  }

  void text(const std::string& k, std::optional<std::string>& field) const {
    if (!has(k)) return;
    const std::string v = m_jn[k].as<std::string>();
    conflict(k, field.value_or(""), v);
    field = v;
  }

  void read_pmc(JobOptions& j) const {
    if (!has("pmc")) return;
    if (m_cli.pmc_given) conflict("pmc", join(m_cli.pmc, " "), node_text(m_jn["pmc"]));
    std::vector<std::string> raw;
    if (m_jn["pmc"].IsSequence()) {
      for (const auto& c : m_jn["pmc"]) raw.push_back(c.as<std::string>());
    } else {
      // A plain string is iterated character by character by the launcher (rocprofv3.py).
      for (char c : m_jn["pmc"].as<std::string>()) raw.emplace_back(1, c);
    }
    j.pmc = split_counters(raw);
    j.pmc_given = true;
  }

  void read_pmc_groups(JobOptions& j) const {
    // rocprofv3.py refuses both (ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/
    // rocprofv3.py, release/rocm-rel-7.0: "Cannot specify both --pmc and (input file)
    // pmc_groups").
    if (j.pmc_given)
      throw CliFailure(1, "Fatal error: Cannot specify both --pmc and (input file) pmc_groups\n");
    if (!m_jn["pmc_groups"].IsSequence())
      throw CliFailure(1, "Fatal error: pmc_groups must be a list of counter lists\n");
    for (const auto& g : m_jn["pmc_groups"]) {
      std::vector<std::string> raw;
      if (g.IsSequence())
        for (const auto& c : g) raw.push_back(c.as<std::string>());
      else
        raw.push_back(g.as<std::string>());
      j.pmc_groups.push_back(split_counters(raw));
    }
    if (has("pmc_group_interval")) {
      long long v = 0;
      try {
        v = m_jn["pmc_group_interval"].as<long long>();
      } catch (const YAML::Exception&) {
        v = 0;
      }
      // The tool divides by it (tool.cpp, get_device_counting_service); rocprofiler-sdk's own
      // tests require a positive integer (tests/rocprofv3/counter-collection, conftest.py).
      if (v < 1)
        throw CliFailure(1, "Fatal error: pmc_group_interval must be a positive integer\n");
      j.pmc_group_interval = static_cast<uint64_t>(v);
    }
  }

  const YAML::Node& m_jn;
  const JobOptions& m_cli;
};

}  // namespace

std::vector<JobOptions> load_jobs(const std::string& path, const JobOptions& cli,
                                  const SimVersion& version) {
  const std::string ext = checked_extension(path);
  YAML::Node root = parse_input_file(path);
  if (version.metrics_input()) return load_metrics(root, cli);
  if (!root["jobs"] || !root["jobs"].IsSequence())
    throw CliFailure(1, "Fatal error: input file '" + path + "' has no 'jobs' list\n");
  if (!version.has_pmc_groups()) refuse_nested_lists(root, ext == ".json");
  std::vector<JobOptions> jobs;
  for (const auto& jn : root["jobs"]) jobs.push_back(JobReader(jn, cli).read());
  return jobs;
}

}  // namespace kprof::sim
