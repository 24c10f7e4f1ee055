#include "core/runbook/launcher_section.hpp"

#include <regex>

namespace kprof::runbook::detail {

namespace {

const std::vector<std::string> k_keys = {"type", "partition", "time", "gpus_per_task",
                                         "sbatch_args"};

// sbatch options kprof writes itself (core/exec/launch/slurm_script.cpp), with what to use instead.
struct Owned {
  const char* option;
  const char* instead;
};
const Owned k_owned[] = {
    {"--array", "remove it: kprof submits one array task per pass"},
    {"-a", "remove it: kprof submits one array task per pass"},
    {"--output", "remove it: kprof writes Slurm's output beside the run's logs"},
    {"-o", "remove it: kprof writes Slurm's output beside the run's logs"},
    {"--error", "remove it: kprof writes Slurm's output beside the run's logs"},
    {"-e", "remove it: kprof writes Slurm's output beside the run's logs"},
    {"--job-name", "remove it: kprof names the job after the runbook"},
    {"-J", "remove it: kprof names the job after the runbook"},
    {"--wrap", "remove it: kprof writes the batch script"},
    {"--partition", "use launcher.partition"},
    {"-p", "use launcher.partition"},
    {"--time", "use launcher.time"},
    {"-t", "use launcher.time"},
    {"--gres", "use launcher.gpus_per_task"},
    {"--parsable", "remove it: kprof reads the job id itself"},
};

template <class T>
void set(Located<T>& out, T value, const Entry& e) {
  out.value = std::move(value);
  out.pos = e.value_pos;
  out.from_file = true;
}

}  // namespace

std::optional<std::string> owned_option(const std::string& arg) {
  const std::string opt = arg.substr(0, arg.find_first_of("= "));
  for (const auto& o : k_owned)
    if (opt == o.option) return std::string(o.instead);
  return std::nullopt;
}

void parse_launcher(Reader& r, const Entry& e, Launcher& out) {
  auto m = r.map(e.value, e.value_pos, "launcher", k_keys);
  if (!m) return;
  out.present = true;
  // A launcher's name as written: the registry that knows the names is core/exec's, which checks
  // it (registered_names.hpp); here only its form.
  if (const Entry* c = m->find("type"))
    if (auto v = r.name(c->value, c->value_pos, "launcher.type", "a launcher name",
                        "write a name as `kprof run --help` lists them under --launcher, e.g. "
                        "slurm"))
      set(out.type, *v, *c);
  if (const Entry* c = m->find("partition")) {
    if (auto v = r.string(c->value, c->value_pos, "launcher.partition")) {
      static const std::regex k_name("[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*");
      if (!std::regex_match(*v, k_name))
        r.error(c->value_pos, "launcher.partition: '" + *v + "' is not a partition name",
                "write a name as `sinfo -s` lists them, or several separated by ','");
      else
        set(out.partition, *v, *c);
    }
  }
  if (const Entry* c = m->find("time")) {
    if (auto v = r.string(c->value, c->value_pos, "launcher.time")) {
      // sbatch --time: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
      // "days-hours:minutes", "days-hours:minutes:seconds", or UNLIMITED/INFINITE.
      static const std::regex k_time(
          "[0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}"
          "|[0-9]+-[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}"
          "|UNLIMITED|INFINITE");
      if (!std::regex_match(*v, k_time))
        r.error(c->value_pos, "launcher.time: '" + *v + "' is not a Slurm time limit",
                "write it as sbatch --time reads it: \"30\" (minutes), \"1:30:00\", \"1-12\" "
                "(days-hours)");
      else
        set(out.time, *v, *c);
    }
  }
  if (const Entry* c = m->find("gpus_per_task"))
    if (auto v = r.integer(c->value, c->value_pos, "launcher.gpus_per_task", 0, 64))
      set(out.gpus_per_task, static_cast<int>(*v), *c);
  if (const Entry* c = m->find("sbatch_args")) {
    if (auto items = r.strings(c->value, c->value_pos, "launcher.sbatch_args")) {
      bool good = true;
      for (size_t i = 0; i < items->size(); ++i) {
        const std::string& arg = (*items)[i].value;
        const std::string at = "launcher.sbatch_args[" + std::to_string(i) + "]";
        if (arg.empty() || arg[0] != '-' || arg.find('\n') != std::string::npos) {
          r.error((*items)[i].pos, at + ": '" + arg + "' is not an sbatch option",
                  "write options as sbatch reads them, e.g. --account=proj");
          good = false;
          continue;
        }
        if (const auto instead = owned_option(arg)) {
          r.error((*items)[i].pos,
                  at + ": '" + arg.substr(0, arg.find_first_of("= ")) + "' is set by kprof",
                  *instead);
          good = false;
        }
      }
      if (good) {
        out.sbatch_args.value.clear();
        for (const auto& i : *items)
          out.sbatch_args.value.push_back(LocatedString{i.value, i.pos, true});
        out.sbatch_args.pos = c->value_pos;
        out.sbatch_args.from_file = true;
      }
    }
  }
  if (out.type.value != "slurm") {
    for (const char* key : {"partition", "time", "gpus_per_task", "sbatch_args"}) {
      if (const Entry* c = m->find(key))
        r.error(c->key_pos, std::string("launcher.") + key + " is a Slurm setting",
                "add 'type: slurm' to the launcher map, or remove it");
    }
  }
}

}  // namespace kprof::runbook::detail

namespace kprof::runbook {

std::optional<std::string> sbatch_option_owned_by_kprof(const std::string& arg) {
  return detail::owned_option(arg);
}

}  // namespace kprof::runbook
