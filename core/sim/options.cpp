#include "core/sim/options.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "core/base/text.hpp"

namespace kprof::sim {

namespace {

// Every option spelling of rocprofv3 7.0 that the double accepts. Options it does not simulate
// (API tracing, summaries, perfetto, ...) are accepted and have no effect: their domains stay
// empty, so — exactly like a workload without such activity — no file is written for them.
enum class Arity { flag, boolean, one, star, plus };

struct Spec {
  std::vector<std::string> names;  // "-d", "--output-directory"
  Arity arity;
  std::string dest;
  std::vector<std::string> choices = {};
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> k_specs = {
      {{"-h", "--help"}, Arity::flag, "help"},
      {{"-v", "--version"}, Arity::flag, "version"},
      {{"-i", "--input"}, Arity::one, "input"},
      {{"-o", "--output-file"}, Arity::one, "output_file"},
      {{"-d", "--output-directory"}, Arity::one, "output_directory"},
      {{"-f", "--output-format"}, Arity::plus, "output_format"},
      {{"--output-config"}, Arity::boolean, "output_config"},
      {{"--log-level"},
       Arity::one,
       "log_level",
       {"fatal", "error", "warning", "info", "trace", "env", "config"}},
      {{"-E", "--extra-counters"}, Arity::one, "extra_counters"},
      {{"--kernel-trace"}, Arity::boolean, "kernel_trace"},
      {{"--stats"}, Arity::boolean, "stats"},
      {{"-S", "--summary"}, Arity::boolean, "summary"},
      {{"-D", "--summary-per-domain"}, Arity::boolean, "summary_per_domain"},
      {{"--summary-groups"}, Arity::plus, "summary_groups"},
      {{"--summary-output-file"}, Arity::one, "summary_output_file"},
      {{"-u", "--summary-units"}, Arity::one, "summary_units", {"sec", "msec", "usec", "nsec"}},
      {{"--pmc"}, Arity::star, "pmc"},
      {{"-M", "--mangled-kernels"}, Arity::boolean, "mangled_kernels"},
      {{"-T", "--truncate-kernels"}, Arity::boolean, "truncate_kernels"},
      {{"--kernel-rename"}, Arity::boolean, "kernel_rename"},
      {{"--kernel-include-regex"}, Arity::one, "kernel_include_regex"},
      {{"--kernel-exclude-regex"}, Arity::one, "kernel_exclude_regex"},
      {{"--kernel-iteration-range"}, Arity::plus, "kernel_iteration_range"},
      {{"--selected-regions"}, Arity::boolean, "selected_regions"},
      {{"-L", "--list-avail"}, Arity::boolean, "list_avail"},
      {{"-A", "--agent-index"},
       Arity::one,
       "agent_index",
       {"absolute", "relative", "type-relative"}},
      {{"-P", "--collection-period"}, Arity::plus, "collection_period"},
      {{"--collection-period-unit"},
       Arity::one,
       "collection_period_unit",
       {"hour", "min", "sec", "msec", "usec", "nsec"}},
      {{"--minimum-output-data"}, Arity::one, "minimum_output_data"},
      {{"--disable-signal-handlers"}, Arity::boolean, "disable_signal_handlers"},
      {{"--preload"}, Arity::plus, "preload"},
      {{"--rocm-root"}, Arity::one, "rocm_root"},
      {{"--sdk-soversion"}, Arity::one, "sdk_soversion"},
      {{"--sdk-version"}, Arity::one, "sdk_version"},
      {{"-r", "--runtime-trace"}, Arity::boolean, "runtime_trace"},
      {{"-s", "--sys-trace"}, Arity::boolean, "sys_trace"},
      {{"--hip-trace"}, Arity::boolean, "hip_trace"},
      {{"--hip-runtime-trace"}, Arity::boolean, "hip_runtime_trace"},
      {{"--hip-compiler-trace"}, Arity::boolean, "hip_compiler_trace"},
      {{"--hsa-trace"}, Arity::boolean, "hsa_trace"},
      {{"--hsa-core-trace"}, Arity::boolean, "hsa_core_trace"},
      {{"--hsa-amd-trace"}, Arity::boolean, "hsa_amd_trace"},
      {{"--hsa-image-trace"}, Arity::boolean, "hsa_image_trace"},
      {{"--hsa-finalizer-trace"}, Arity::boolean, "hsa_finalizer_trace"},
      {{"--marker-trace"}, Arity::boolean, "marker_trace"},
      {{"--memory-copy-trace"}, Arity::boolean, "memory_copy_trace"},
      {{"--memory-allocation-trace"}, Arity::boolean, "memory_allocation_trace"},
      {{"--scratch-memory-trace"}, Arity::boolean, "scratch_memory_trace"},
      {{"--rccl-trace"}, Arity::boolean, "rccl_trace"},
      {{"--rocdecode-trace"}, Arity::boolean, "rocdecode_trace"},
      {{"--rocjpeg-trace"}, Arity::boolean, "rocjpeg_trace"},
      {{"--kokkos-trace"}, Arity::boolean, "kokkos_trace"},
      {{"--group-by-queue"}, Arity::boolean, "group_by_queue"},
      // Kernel replay, a beta newer than every release the double imitates except "develop"
      // (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/
      // using-kernel-replay-rocprofv3.rst); run_tool refuses them for other versions as argparse
      // refuses unknown options.
      {{"--replay-mode"}, Arity::one, "replay_mode", {"kernel", "application"}},
      {{"--kernel-replay-beta-enabled"}, Arity::boolean, "kernel_replay_beta_enabled"},
  };
  return k_specs;
}

const Spec* find_spec(const std::string& name) {
  for (const auto& s : specs())
    for (const auto& n : s.names)
      if (n == name) return &s;
  return nullptr;
}

std::string spec_label(const Spec& s) { return join(s.names, "/"); }

[[noreturn]] void argparse_error(const std::string& what) {
  throw CliFailure(2, usage_line() + "\nrocprofv3: error: " + what + "\n");
}

bool looks_like_option(const std::string& a) {
  // argparse treats "-5" like a negative number only if the parser has such options; ours has none.
  return a.size() > 1 && a[0] == '-';
}

void note_key(JobOptions& job, const std::string& key) {
  if (std::find(job.explicit_keys.begin(), job.explicit_keys.end(), key) == job.explicit_keys.end())
    job.explicit_keys.push_back(key);
}

void apply(Options& o, const Spec& s, const std::vector<std::string>& values,
           std::optional<bool> flag_value) {
  JobOptions& j = o.cli;
  const std::string& d = s.dest;
  const auto one = [&] { return values.empty() ? std::string() : values.front(); };
  const bool on = flag_value.value_or(true);
  if (!s.choices.empty()) {
    for (const auto& v : values)
      if (std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end()) {
        std::vector<std::string> q;
        for (const auto& c : s.choices) q.push_back("'" + c + "'");
        argparse_error("argument " + spec_label(s) + ": invalid choice: '" + v + "' (choose from " +
                       join(q, ", ") + ")");
      }
  }
  if (d == "help")
    o.help = true;
  else if (d == "version")
    o.version = true;
  else if (d == "input")
    o.input_file = one();
  else if (d == "output_file")
    j.output_file = one();
  else if (d == "output_directory")
    j.output_directory = one();
  else if (d == "output_format") {
    j.output_format.clear();
    for (const auto& v : values) j.output_format.push_back(to_lower(v));
    for (const auto& v : j.output_format)
      if (v != "csv" && v != "json" && v != "pftrace" && v != "otf2" && v != "rocpd")
        argparse_error("argument -f/--output-format: invalid choice: '" + v +
                       "' (choose from 'csv', 'json', 'pftrace', 'otf2', 'rocpd')");
  } else if (d == "kernel_trace")
    j.kernel_trace = on;
  else if (d == "stats")
    j.stats = on;
  else if (d == "pmc") {
    j.pmc_given = true;
    j.pmc_flags.push_back(split_counters(values));
    std::vector<std::string> merged = j.pmc;
    merged.insert(merged.end(), values.begin(), values.end());
    j.pmc = split_counters(merged);
  } else if (d == "kernel_include_regex")
    j.include_regex = one();
  else if (d == "kernel_exclude_regex")
    j.exclude_regex = one();
  else if (d == "kernel_iteration_range")
    j.iteration_range = values;
  else if (d == "selected_regions")
    j.selected_regions = on;
  else if (d == "marker_trace")
    j.marker_trace = on;
  else if (d == "truncate_kernels")
    j.truncate_kernels = on;
  else if (d == "agent_index")
    j.agent_index = one();
  else if (d == "list_avail")
    o.list_avail = on;
  else if (d == "replay_mode")
    j.replay_mode = one();
  else if (d == "kernel_replay_beta_enabled")
    j.kernel_replay_beta = on;
  else if (d == "sys_trace" || d == "runtime_trace") {
    // Aggregates include kernel tracing (rocprofv3.py: --sys-trace / --runtime-trace).
    if (on) j.kernel_trace = true;
  }
  note_key(j, d);
}

}  // namespace

std::string usage_line() {
  return "usage: rocprofv3 [options] -- <application> [application options]";
}

bool is_kernel_replay_option(const std::string& dest) {
  return dest == "replay_mode" || dest == "kernel_replay_beta_enabled";
}

std::string help_text(bool kernel_replay) {
  std::string out = usage_line() +
                    "\n\nrocprofv3-sim: a test double of rocprofv3 (ROCm 7.0 CLI subset);"
                    " every figure it writes is simulated.\n\noptions:\n";
  for (const auto& s : specs())
    if (kernel_replay || !is_kernel_replay_option(s.dest)) out += "  " + join(s.names, ", ") + "\n";
  return out;
}

std::vector<std::string> split_counters(const std::vector<std::string>& raw) {
  std::set<std::string> out;
  for (const auto& r : raw) {
    std::string cur;
    for (char c : r) {
      // The tool turns these into spaces (counter parsing in rocprofiler-sdk-tool/config.cpp).
      static const std::string k_seps = "!@#$%&(),*+-./;<>?{}^`~| \t\n";
      if (k_seps.find(c) != std::string::npos) {
        if (!cur.empty()) out.insert(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.insert(cur);
  }
  return {out.begin(), out.end()};
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  std::vector<std::string> mine;
  bool split = false;
  for (const auto& a : args) {
    if (!split && a == "--") {
      split = true;
      continue;
    }
    (split ? o.app : mine).push_back(a);
  }
  std::vector<std::string> extras;
  for (size_t i = 0; i < mine.size(); ++i) {
    std::string a = mine[i];
    std::optional<std::string> attached;
    if (a.rfind("--", 0) == 0) {
      const auto eq = a.find('=');
      if (eq != std::string::npos) {
        attached = a.substr(eq + 1);
        a = a.substr(0, eq);
      }
    } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' && !find_spec(a)) {
      attached = a.substr(2);
      a = a.substr(0, 2);
    }
    if (a == "-p")
      throw CliFailure(1,
                       "Fatal error: The -p shorthand option for --collection-period is now an "
                       "upper-case -P (-p is reserved for a future attach option)\n");
    const Spec* s = looks_like_option(a) ? find_spec(a) : nullptr;
    if (!s) {
      extras.push_back(mine[i]);
      continue;
    }
    std::vector<std::string> values;
    std::optional<bool> flag_value;
    const auto take_following = [&](bool at_most_one) {
      while (i + 1 < mine.size() && !looks_like_option(mine[i + 1])) {
        values.push_back(mine[++i]);
        if (at_most_one) break;
      }
    };
    switch (s->arity) {
      case Arity::flag:
        if (attached)
          argparse_error("argument " + spec_label(*s) + ": ignored explicit argument '" +
                         *attached + "'");
        break;
      case Arity::boolean:
        if (attached) {
          flag_value = truth_value(*attached);
        } else {
          take_following(true);
          if (!values.empty()) flag_value = truth_value(values.front());
        }
        break;
      case Arity::one:
        if (attached)
          values.push_back(*attached);
        else
          take_following(true);
        if (values.empty())
          argparse_error("argument " + spec_label(*s) + ": expected one argument");
        break;
      case Arity::star:
      case Arity::plus:
        if (attached) values.push_back(*attached);
        take_following(false);
        if (s->arity == Arity::plus && values.empty())
          argparse_error("argument " + spec_label(*s) + ": expected at least one argument");
        break;
    }
    apply(o, *s, values, flag_value);
  }
  if (!extras.empty()) argparse_error("unrecognized arguments: " + join(extras, " "));
  // Defaults of -o/-d come from the environment when set (rocprofv3.py).
  if (!o.cli.output_file)
    if (const char* v = std::getenv("ROCPROF_OUTPUT_FILE_NAME"); v && *v) o.cli.output_file = v;
  if (!o.cli.output_directory)
    if (const char* v = std::getenv("ROCPROF_OUTPUT_PATH"); v && *v) o.cli.output_directory = v;
  return o;
}

// A bad value escapes rocprofv3.py as an uncaught ValueError (traceback, exit 1).
bool truth_value(const std::string& v) {
  const std::string l = to_lower(v);
  for (const char* t : {"y", "yes", "t", "true", "on", "1"})
    if (l == t) return true;
  for (const char* f : {"n", "no", "f", "false", "off", "0"})
    if (l == f) return false;
  throw CliFailure(1,
                   "Traceback (most recent call last):\n  File \"rocprofv3\", line 1, in <module>\n"
                   "ValueError: invalid truth value " +
                       v + " (type=str)\n");
}

}  // namespace kprof::sim
