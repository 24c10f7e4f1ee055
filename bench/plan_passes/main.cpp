// Prints, for every metric set in configs/metrics and for seeded random subsets of `full` (and of
// `full` mixed with catalog derived counters, which are atomic and make packing harder): our pass
// count, the per-block lower bound, the count of "first-fit (reimplemented)": our own
// reimplementation of rocprofiler-compute's first-fit policy (plan::first_fit_plan, after ROCm/
// rocm-systems projects/rocprofiler-compute/src/rocprof_compute_profile/profiler_base.py), not
// rocprofiler-compute itself, whose real pass counts can differ; and our planning time. No count
// here was measured with rocprofiler-compute's own code. Usage: plan_passes_bench [--subsets N]
// [--seed S] [--quiet]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/paths.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"

namespace {

using namespace kprof;

struct Totals {
  int cases = 0, at_bound = 0, proved = 0, capped = 0, better = 0, equal = 0, worse = 0;
  long ours = 0, baseline = 0;
  double ms_sum = 0, ms_max = 0;
};

void run_case(const hw::Target& t, const std::string& label, const plan::Request& r, Totals& tot,
              bool quiet) {
  auto t0 = std::chrono::steady_clock::now();
  plan::Plan p = plan::plan_passes(t, r);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  plan::Plan ff = plan::first_fit_plan(t, r);
  if (!plan::validate_plan(t, r, p).empty()) {
    std::printf("%s: INVALID PLAN\n", label.c_str());
    std::exit(1);
  }
  int ours = static_cast<int>(p.passes.size()), base = static_cast<int>(ff.passes.size());
  ++tot.cases;
  tot.at_bound += ours == p.lower_bound;
  tot.proved += p.optimal;
  tot.capped += p.time_capped;
  tot.better += ours < base;
  tot.equal += ours == base;
  tot.worse += ours > base;
  tot.ours += ours;
  tot.baseline += base;
  tot.ms_sum += ms;
  tot.ms_max = std::max(tot.ms_max, ms);
  if (!quiet)
    std::printf(
        "%-22s counters %4zu  events %4d  ours %3d  lower bound %3d  first-fit (reimpl.) %3d  %-8s "
        " "
        "%8.2f "
        "ms\n",
        label.c_str(), r.counters.size(), p.distinct_events, ours, p.lower_bound, base,
        p.optimal ? "proved" : (p.time_capped ? "capped" : "open"), ms);
}

void summary(const char* what, const Totals& t) {
  std::printf(
      "SUMMARY %-14s cases %d | at lower bound %d | proved optimal %d | capped %d | vs first-fit "
      "(reimplemented): "
      "fewer %d, "
      "equal %d, more %d | passes ours %ld, first-fit (reimplemented) %ld | planning ms mean %.2f "
      "max %.2f\n",
      what, t.cases, t.at_bound, t.proved, t.capped, t.better, t.equal, t.worse, t.ours, t.baseline,
      t.cases ? t.ms_sum / t.cases : 0.0, t.ms_max);
}

}  // namespace

int main(int argc, char** argv) {
  int subsets = 200;
  unsigned seed = 1;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--subsets") && i + 1 < argc)
      subsets = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--quiet"))
      quiet = true;
    else {
      std::fprintf(stderr, "usage: plan_passes_bench [--subsets N] [--seed S] [--quiet]\n");
      return 2;
    }
  }
  try {
    const hw::Target t = hw::Target::load_arch("gfx942");
    std::printf(
        "plan_passes: gfx942 (%s), planner vs first-fit (reimplemented: our code after\n"
        "rocprofiler-compute's perfmon_coalesce policy, not rocprofiler-compute itself, whose\n"
        "real counts were not measured here); pass counts are computed, not measured on a GPU;\n"
        "times are this machine's planning time\n\n",
        t.source_path().c_str());
    Totals sets_total, subset_total, mixed_total;
    plan::Request full;
    for (const auto& name : hw::metric_set_names()) {
      hw::MetricSet s = hw::load_metric_set_named(name, t);
      plan::Request r = plan::request_from_sets({s});
      if (name == "full") full = r;
      run_case(t, "set " + name, r, sets_total, quiet);
    }
    std::vector<std::string> derived;  // atomic multi-event counters that fit one pass
    for (const auto& n : t.derived_names())
      if (t.events_of(n).size() >= 2 && t.occupancy({n}).fits()) derived.push_back(n);

    std::mt19937 rng(seed);
    for (int i = 0; i < subsets; ++i) {
      double keep = std::uniform_real_distribution<double>(0.05, 0.95)(rng);
      plan::Request r;
      for (const auto& c : full.counters)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < keep) r.counters.push_back(c);
      if (r.counters.empty()) r.counters.push_back(full.counters.front());
      run_case(t, "subset " + std::to_string(i + 1), r, subset_total, quiet);
    }
    for (int i = 0; i < subsets; ++i) {
      plan::Request r;
      for (const auto& c : full.counters)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.15) r.counters.push_back(c);
      std::vector<std::string> d = derived;
      std::shuffle(d.begin(), d.end(), rng);
      int take = std::uniform_int_distribution<int>(2, 12)(rng);
      for (int k = 0; k < take && k < static_cast<int>(d.size()); ++k)
        r.counters.push_back({d[static_cast<size_t>(k)], {}});
      run_case(t, "mixed " + std::to_string(i + 1), r, mixed_total, quiet);
    }
    std::printf("\n");
    summary("metric-sets", sets_total);
    summary("full-subsets", subset_total);
    summary("mixed-derived", mixed_total);
  } catch (const Error& e) {
    std::fprintf(stderr, "plan_passes: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
