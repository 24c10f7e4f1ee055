// `kprof doctor [RUNBOOK]`: the pre-flight check of a node (core/exec/usecases/doctor.hpp), one
// line per check with a fix for each that failed; exit 0 when all passed, 2 when one failed.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/exec/usecases/doctor.hpp"

namespace {

int cmd_doctor(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("simulate",
                     "check for a run on the rocprofv3 test double, as `kprof run "
                     "--simulate` runs (no GPU, PyTorch or weights needed)")(
      "db", po::value<std::string>(),
      "capture database, as `kprof run --db` (where the captures go)")(
      "min-free-gb", po::value<double>()->default_value(4),
      "free disk the captures' file system must have")(
      "runbook", po::value<std::string>(),
      "the runbook (.yaml); without it, rocprofv3 and the GPUs");
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm = kprof::app::parse_args(
      "doctor", "[RUNBOOK] [--simulate] [--db PATH] [--min-free-gb N]", args, opts, pos,
      "examples:\n  kprof doctor runbooks/qwen3-30b-a3b-mi300x.yaml\n      every check a real run "
      "needs; exit 2 when one fails\n  kprof doctor\n      rocprofv3 and the GPUs alone\n"
      "\n`kprof run` runs these checks first with a real profiler; --no-doctor skips them.");
  if (!vm) return 0;
  kprof::exec::DoctorRequest request;
  if (vm->count("runbook")) request.runbook = (*vm)["runbook"].as<std::string>();
  if (vm->count("db")) request.db = (*vm)["db"].as<std::string>();
  request.simulate = vm->count("simulate") > 0;
  const double gb = (*vm)["min-free-gb"].as<double>();
  if (gb < 0)
    throw kprof::Error::input("--min-free-gb " + std::to_string(gb) + " is negative",
                              "give a size in GiB, e.g. --min-free-gb 4");
  request.min_free_bytes = static_cast<std::uint64_t>(gb * double(std::uint64_t{1} << 30));
  const auto report = kprof::exec::run_doctor(request);
  std::cout << kprof::exec::doctor_text(report, kprof::terminal_width(STDOUT_FILENO));
  return report.ok() ? 0 : 2;
}

}  // namespace

KPROF_COMMAND("doctor",
              "check a node before a real run: rocprofv3, GPUs, counters, PyTorch, "
              "vLLM, weights, disk",
              cmd_doctor);
