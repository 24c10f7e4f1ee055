// The output files of one pass: each profiled process's capture written in the formats asked
// for, where rocprofv3 puts them (one set per process, -d/-o placeholders expanded per process).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "core/sim/counters.hpp"
#include "core/sim/format.hpp"
#include "core/sim/pass_runner.hpp"
#include "core/sim/tool_process.hpp"

namespace kprof::sim::detail {

void write_outputs(const PassContext& ctx, std::vector<ProcessCapture>& caps, const Faults& faults,
                   bool counters) {
  if (faults.write_nothing) return;
  const uint64_t t = monotonic_ns();
  std::optional<CounterModel> cm;
  if (counters && ctx.counter_pass && ctx.model) cm.emplace(*ctx.target, *ctx.model, ctx.seed);
  for (auto& c : caps) {
    if (!counters) c.counters.clear();
    c.counter_model = cm ? &*cm : nullptr;
    OutputSettings out;
    std::filesystem::path dir = ctx.job.output_directory
                                    ? expand_placeholders(*ctx.job.output_directory, c.pid, c.ppid)
                                    : std::filesystem::current_path().string();
    if (!ctx.pass_dir.empty()) dir /= ctx.pass_dir;
    out.prefix =
        dir / expand_placeholders(ctx.job.output_file.value_or("%hostname%/%pid%"), c.pid, c.ppid);
    out.kernel_trace = ctx.job.kernel_trace;
    out.stats = ctx.job.stats;
    out.truncate_names = ctx.job.truncate_kernels;
    out.agent_index = ctx.job.agent_index;
    out.layout = ctx.layout;
    const auto has = [&](const char* f) {
      return std::find(ctx.job.output_format.begin(), ctx.job.output_format.end(), f) !=
             ctx.job.output_format.end();
    };
    for (const char* f : {"json", "pftrace", "otf2"})
      if (has(f) && &c == &caps.front())
        std::cerr << "rocprofv3-sim: output format '" << f
                  << "' is not simulated; nothing is written for it\n";
    out.csv = has("csv") || ctx.layout == 6;
    out.rocpd = has("rocpd") && ctx.layout != 6;
    std::vector<std::filesystem::path> files;
    if (out.csv) {
      files = write_csv(c, out);
      for (const auto& f : files) requote_csv(f, ctx.quoting);
    }
    if (out.rocpd) {
      const auto db = write_rocpd(c, out);
      files.insert(files.end(), db.begin(), db.end());
    }
    if (faults.truncate) {
      for (const char* name : {"_kernel_trace.csv", "_counter_collection.csv"}) {
        std::filesystem::path p = out.prefix;
        p += name;
        if (std::filesystem::exists(p)) {
          truncate_mid_row(p);
          break;
        }
      }
    }
  }
  std::cerr << timer_line(caps.empty() ? getpid() : caps.front().pid, "output generation",
                          double(monotonic_ns() - t) * 1e-9);
}

}  // namespace kprof::sim::detail
