#include "apps/kprof/one_line_args.hpp"

#include <iostream>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::app {

std::pair<Args, Args> split_at_dashes(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--")
      return {Args(args.begin(), args.begin() + i), Args(args.begin() + i + 1, args.end())};
  return {args, {}};
}

void add_one_line_options(po::options_description& opts) {
  opts.add_options()("metric-set", po::value<std::vector<std::string>>(),
                     "one-line: a metric set of configs/metrics (roofline, memory, compute, "
                     "occupancy, full); repeat or comma-separate")(
      "counters", po::value<std::string>(),
      "one-line: counters to collect, e.g. FETCH_SIZE,WRITE_SIZE")(
      "kernels", po::value<std::string>(),
      "one-line: counter passes profile only kernels matching this ECMAScript regex")(
      "name", po::value<std::string>(), "one-line: the run's name (default: the application's)");
}

bool has_one_line_options(const po::variables_map& vm) {
  return vm.count("metric-set") || vm.count("counters") || vm.count("kernels") || vm.count("name");
}

runbook::OneLine one_line_from(const po::variables_map& vm, const Args& app, const Args& all,
                               bool simulate) {
  runbook::OneLine o;
  o.command = app;
  o.simulate = simulate;
  o.name = vm.count("name") ? vm["name"].as<std::string>()
                            : runbook::name_from_command(app.empty() ? "" : app.front());
  if (vm.count("metric-set"))
    for (const auto& s : vm["metric-set"].as<std::vector<std::string>>())
      for (const auto& part : split(s, ','))
        if (!trim(part).empty()) o.metric_sets.emplace_back(trim(part));
  if (vm.count("counters"))
    for (const auto& part : split(vm["counters"].as<std::string>(), ','))
      if (!trim(part).empty()) o.counters.emplace_back(trim(part));
  if (vm.count("kernels")) o.kernels = vm["kernels"].as<std::string>();
  if (vm.count("db")) o.database = vm["db"].as<std::string>();
  Args shown = {"kprof", "run"};  // the command line this runbook stands for
  for (const auto& a : all)
    if (a != "--from-args") shown.push_back(a);
  o.origin = shell_join(shown);
  return o;
}

std::string runbook_for_run(const po::variables_map& vm, const Args& app, const Args& all,
                            bool simulate) {
  if (!app.empty()) {
    if (vm.count("runbook"))
      throw Error::input("give a runbook or an application after '--', not both",
                         "kprof run RUNBOOK, or kprof run [options] -- APP [ARGS...]");
    const auto path = runbook::write_one_line_runbook(one_line_from(vm, app, all, simulate));
    std::cerr << "kprof: runbook written to " << path.string() << " (edit it and run 'kprof run "
              << path.string() << (simulate ? " --simulate" : "") << "')\n";
    return path.string();
  }
  if (vm.count("runbook")) {
    if (has_one_line_options(vm))
      throw Error::input(
          "--metric-set, --counters, --kernels and --name describe a "
          "one-line profile; the runbook already says what to collect",
          "edit the runbook, or put the application after '--'");
    return vm["runbook"].as<std::string>();
  }
  throw Error::input("no runbook and no application given",
                     "write 'kprof run path/to/runbook.yaml' or 'kprof run --simulate "
                     "--metric-set roofline -- APP [ARGS...]'");
}

}  // namespace kprof::app
