// rocprofiler-compute's pass policy as the baseline, plan validation and occupancy text.
//
// The policy of rocprofiler-compute (ROCm/rocm-systems projects/rocprofiler-compute/src/
// rocprof_compute_profile/profiler_base.py, perfmon_coalesce): each counter with LEVEL (an
// accumulate pair here) gets its own file first; every other counter goes into the first file whose
// per-block LimitedSet has room, a new file when none has. Its LimitedSet counts names, so TCC_X[n]
// and TCC_X_sum take two slots although they are one hardware event; everything else (X, X_sum) is
// counted by event like ours. rocprofiler-compute iterates a Python set (order varies with
// PYTHONHASHSEED); we use request order.
#include <algorithm>
#include <map>
#include <set>

#include "core/plan/items.hpp"
#include "core/plan/plan.hpp"

namespace kprof::plan {
namespace {

// The slot keys of a requested name the way rocprofiler-compute counts them, per block.
std::vector<std::pair<std::string, std::string>> slot_keys(const hw::Target& t,
                                                           const std::string& name) {
  std::vector<std::pair<std::string, std::string>> keys;
  const bool channel = t.kind_of(name) == hw::CounterKind::channel;
  for (const auto& e : t.events_of(name))
    keys.emplace_back(t.block_of(e)->name, channel ? e.str() + "[*]" : e.str());
  return keys;
}

}  // namespace

Plan first_fit_plan(const hw::Target& target, const Request& request) {
  const detail::Problem p = detail::build_problem(target, request);
  Plan plan;
  plan.lower_bound = p.lower_bound;
  plan.lower_bound_reason = p.lower_bound_reason;
  plan.distinct_events = static_cast<int>(p.events.size());
  struct File {
    std::map<std::string, std::set<std::string>> keys;  // block -> slot keys
    int accumulate = 0;
  };
  std::vector<File> files;
  std::vector<int> pass_of(p.items.size(), -1);
  auto keys_of = [&](const detail::Item& it) {
    std::vector<std::pair<std::string, std::string>> k;
    for (int n : it.names)
      for (auto& kv : slot_keys(target, p.names[static_cast<size_t>(n)])) k.push_back(kv);
    return k;
  };
  auto acc_of = [&](const detail::Item& it) {
    int a = 0;
    for (int e : it.events) a += p.event_flagged[static_cast<size_t>(e)] ? 1 : 0;
    return a;
  };
  auto fits = [&](const File& f, const detail::Item& it) {
    std::map<std::string, std::set<std::string>> extra;
    for (const auto& [blk, key] : keys_of(it)) {
      auto fit = f.keys.find(blk);
      if (fit == f.keys.end() || !fit->second.count(key)) extra[blk].insert(key);
    }
    for (const auto& [blk, ks] : extra) {
      auto fit = f.keys.find(blk);
      size_t have = fit == f.keys.end() ? 0 : fit->second.size();
      if (have + ks.size() > static_cast<size_t>(target.block(blk)->counters_per_pass))
        return false;
    }
    return f.accumulate + acc_of(it) <= p.accumulate_limit;
  };
  auto put = [&](size_t i, size_t f) {
    for (const auto& [blk, key] : keys_of(p.items[i])) files[f].keys[blk].insert(key);
    files[f].accumulate += acc_of(p.items[i]);
    pass_of[i] = static_cast<int>(f);
  };
  for (size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].accumulate) {
      files.emplace_back();
      put(i, files.size() - 1);
    }
  for (size_t i = 0; i < p.items.size(); ++i) {
    if (p.items[i].accumulate) continue;
    size_t f = 0;
    while (f < files.size() && !fits(files[f], p.items[i])) ++f;
    if (f == files.size()) files.emplace_back();
    put(i, f);
  }
  plan.passes = detail::make_passes(target, p, pass_of);
  plan.optimal = static_cast<int>(plan.passes.size()) == plan.lower_bound;
  plan.proved_at_least = plan.lower_bound;
  return plan;
}

std::vector<std::string> validate_plan(const hw::Target& target, const Request& request,
                                       const Plan& plan) {
  std::vector<std::string> problems;
  std::map<std::string, int> pass_of;
  for (size_t i = 0; i < plan.passes.size(); ++i) {
    const Pass& pass = plan.passes[i];
    const std::string where = "pass " + std::to_string(i + 1);
    hw::Occupancy occ = target.occupancy(pass.counters);
    for (const auto& b : occ.over_blocks)
      problems.push_back(where + ": block " + b + " over its limit (" +
                         std::to_string(occ.used[b]) + "/" +
                         std::to_string(target.block(b)->counters_per_pass) + ")");
    if (occ.used != pass.used)
      problems.push_back(where + ": reported occupancy differs from the target's");
    for (const auto& c : pass.counters)
      if (!pass_of.emplace(c, static_cast<int>(i)).second)
        problems.push_back("'" + c + "' is in two passes");
  }
  for (const auto& r : request.counters)
    if (!pass_of.count(r.name)) problems.push_back("'" + r.name + "' is in no pass");
  for (const auto& pin : request.pins) {
    std::set<int> ps;
    for (const auto& n : pin.names) ps.insert(pass_of.count(n) ? pass_of[n] : -1);
    if (ps.size() != 1 || ps.count(-1)) problems.push_back("a pin is split across passes");
  }
  return problems;
}

std::string occupancy_text(const hw::Target& target, const Pass& pass) {
  std::string s;
  for (const auto& b : target.blocks()) {
    auto it = pass.used.find(b.name);
    if (it == pass.used.end()) continue;
    if (!s.empty()) s += "  ";
    s += b.name + " " + std::to_string(it->second) + "/" + std::to_string(b.counters_per_pass);
  }
  return s;
}

}  // namespace kprof::plan
