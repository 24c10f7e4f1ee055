#include "core/sim/options.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "core/base/text.hpp"
#include "core/sim/version.hpp"

namespace kprof::sim {

namespace {

// The options come from the imitated release's table (configs/rocprofv3/<release>.json, read from
// upstream's rocprofv3.py): every spelling it has is accepted, and any other is refused as
// argparse refuses it. Options the double does not simulate (API tracing, summaries, perfetto,
// ...) are accepted and have no effect: their domains stay empty, so — exactly like a workload
// without such activity — no file is written for them.
using Spec = RocprofOption;
using Nargs = RocprofOption::Nargs;

const Spec* find_spec(const RocprofRelease& release, const std::string& name) {
  return release.find(name);
}

std::string spec_label(const Spec& s) { return s.label(); }

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
  std::vector<std::string> given = values;
  if (d == "output_format")  // the launcher lower-cases the formats before argparse checks them
    for (auto& v : given) v = to_lower(v);
  for (const auto& v : given)
    if (!s.has_choice(v)) {
      std::vector<std::string> q;
      for (const auto& c : s.choices) q.push_back("'" + c + "'");
      argparse_error("argument " + spec_label(s) + ": invalid choice: '" + v + "' (choose from " +
                     join(q, ", ") + ")");
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
    j.output_format = given;
  } else if (d == "kernel_trace")
    j.kernel_trace = on;
  else if (d == "stats")
    j.stats = on;
  else if (d == "pmc") {
    j.pmc_given = true;
    // A plain store keeps the last --pmc only; from 1.3.0 each --pmc is appended (a pass each).
    if (s.kind != "_AppendAction") j.pmc.clear(), j.pmc_flags.clear();
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
  else if (d == "list_metrics")
    o.list_metrics = on;
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

std::string help_text(const RocprofRelease& release) {
  std::string out = usage_line() + "\n\nrocprofv3-sim: a test double of rocprofv3 " + release.name +
                    " (" + release.source + "); every figure it writes is simulated.\n\noptions:\n";
  for (const auto& s : release.options) out += "  " + join(s.names, ", ") + "\n";
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

Options parse_options(const std::vector<std::string>& args, const RocprofRelease& release) {
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
    } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' && !find_spec(release, a)) {
      attached = a.substr(2);
      a = a.substr(0, 2);
    }
    // ROCm 7.0's launcher refuses the old short spelling of --collection-period (its -P).
    if (a == "-p" && release.has("-P") && !release.has("--attach"))
      throw CliFailure(1,
                       "Fatal error: The -p shorthand option for --collection-period is now an "
                       "upper-case -P (-p is reserved for a future attach option)\n");
    const Spec* s = looks_like_option(a) ? find_spec(release, a) : nullptr;
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
    switch (s->nargs) {
      case Nargs::zero:
        if (attached)
          argparse_error("argument " + spec_label(*s) + ": ignored explicit argument '" +
                         *attached + "'");
        break;
      case Nargs::optional:
        if (attached) {
          values.push_back(*attached);
        } else {
          take_following(true);
        }
        // rocprofv3's BOOL options (booleanArgAction) read the value with strtobool.
        if (s->kind == "booleanArgAction" && !values.empty())
          flag_value = truth_value(values.front());
        break;
      case Nargs::one:
      case Nargs::exactly:
        if (attached)
          values.push_back(*attached);
        else
          take_following(true);
        if (values.empty())
          argparse_error("argument " + spec_label(*s) + ": expected one argument");
        break;
      case Nargs::star:
      case Nargs::plus:
        if (attached) values.push_back(*attached);
        take_following(false);
        if (s->nargs == Nargs::plus && values.empty())
          argparse_error("argument " + spec_label(*s) + ": expected at least one argument");
        break;
    }
    apply(o, *s, values, flag_value);
  }
  if (!extras.empty() && release.reads_input_before_argument_errors && o.input_file)
    o.deferred_error =
        usage_line() + "\nrocprofv3: error: unrecognized arguments: " + join(extras, " ") + "\n";
  else if (!extras.empty())
    argparse_error("unrecognized arguments: " + join(extras, " "));
  // Defaults of -o/-d come from the environment when set (rocprofv3.py).
  if (!o.cli.output_file)
    if (const char* v = std::getenv("ROCPROF_OUTPUT_FILE_NAME"); v && *v) o.cli.output_file = v;
  if (!o.cli.output_directory)
    if (const char* v = std::getenv("ROCPROF_OUTPUT_PATH"); v && *v) o.cli.output_directory = v;
  return o;
}

Options parse_options(const std::vector<std::string>& args) {
  return parse_options(args, SimVersion{}.table());
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

namespace kprof::sim {

std::map<std::string, std::string> launcher_env(const JobOptions& j, bool rocpd_default) {
  std::map<std::string, std::string> env;
  const auto given = [&](const char* key) {
    return std::find(j.explicit_keys.begin(), j.explicit_keys.end(), key) != j.explicit_keys.end();
  };
  const auto flag = [&](const char* name, bool on) {
    if (on) env[name] = "1";
  };
  flag("ROCPROF_KERNEL_TRACE", j.kernel_trace);
  flag("ROCPROF_MARKER_API_TRACE", j.marker_trace);
  flag("ROCPROF_SELECTED_REGIONS", j.selected_regions);
  flag("ROCPROF_STATS", j.stats);
  flag("ROCPROF_TRUNCATE_KERNELS", j.truncate_kernels);
  env["ROCPROF_OUTPUT_FORMAT"] = given("output_format") ? join(j.output_format, ",")
                                 : rocpd_default        ? "rocpd"
                                                        : "csv";
  if (j.pmc_given && !j.pmc.empty()) env["ROCPROF_COUNTERS"] = "pmc: " + join(j.pmc, " ");
  if (!j.pmc_groups.empty()) {
    std::vector<std::string> lines;
    for (const auto& g : j.pmc_groups) lines.push_back("pmc: " + join(g, " "));
    env["ROCPROF_COUNTER_GROUPS"] = join(lines, "\n");
    env["ROCPROF_COUNTER_GROUPS_INTERVAL"] = std::to_string(j.pmc_group_interval);
  }
  if (j.include_regex) env["ROCPROF_KERNEL_FILTER_INCLUDE_REGEX"] = *j.include_regex;
  if (j.exclude_regex) env["ROCPROF_KERNEL_FILTER_EXCLUDE_REGEX"] = *j.exclude_regex;
  if (!j.iteration_range.empty())
    env["ROCPROF_KERNEL_FILTER_RANGE"] = join(j.iteration_range, ", ");
  if (given("agent_index")) env["ROCPROF_AGENT_INDEX"] = j.agent_index;
  return env;
}

}  // namespace kprof::sim
