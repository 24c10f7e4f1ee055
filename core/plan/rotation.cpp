#include "core/plan/rotation.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/base/error.hpp"

namespace kprof::plan {

std::vector<std::vector<std::string>> rotation_groups(const Plan& plan, const Request& request) {
  std::vector<std::vector<std::string>> groups;
  std::map<std::string, size_t> group_of;
  for (const auto& pass : plan.passes) {
    for (const auto& name : pass.counters) {
      const auto [it, fresh] = group_of.emplace(name, groups.size());
      if (fresh || it->second == groups.size()) continue;
      std::optional<SourcePos> pos;
      for (const auto& r : request.counters)
        if (r.name == name && r.pos) pos = r.pos;
      for (const auto& pin : request.pins)
        if (!pos && pin.pos &&
            std::find(pin.names.begin(), pin.names.end(), name) != pin.names.end())
          pos = pin.pos;
      throw Error::input("counter '" + name + "' would be in rotation groups " +
                             std::to_string(it->second + 1) + " and " +
                             std::to_string(groups.size() + 1) +
                             ": a dispatch that carries it could not be told to one group "
                             "(rocprofv3 does not record the group)",
                         "request '" + name +
                             "' once (one counter list, metric set or pin), or write "
                             "replay: application",
                         pos);
    }
    groups.push_back(pass.counters);
  }
  return groups;
}

namespace {

// Each variant's launches of a run of `repeats` requests by position modulo `period`: launch k of
// the run (counted over every repeat, from `phase`) at (phase + k) mod period. The request's
// launches are counted by residue once, and each repeat adds them shifted by where it starts.
std::vector<std::vector<int64_t>> run_residues(const std::vector<int>& sequence, size_t variants,
                                               uint64_t period, int repeats, uint64_t phase) {
  std::vector<std::vector<int64_t>> one(variants, std::vector<int64_t>(period, 0));
  uint64_t at = 0;
  for (int v : sequence) {
    one[static_cast<size_t>(v)][at] += 1;
    if (++at == period) at = 0;
  }
  std::vector<std::vector<int64_t>> run(variants, std::vector<int64_t>(period, 0));
  const uint64_t n = sequence.size();
  for (int r = 0; r < repeats; ++r) {
    const uint64_t shift = (phase + static_cast<uint64_t>(r) * n) % period;
    for (size_t v = 0; v < variants; ++v)
      for (uint64_t res = 0; res < period; ++res) run[v][(shift + res) % period] += one[v][res];
  }
  return run;
}

}  // namespace

std::vector<std::vector<int64_t>> rotation_samples(const std::vector<int>& sequence,
                                                   size_t variants, size_t groups,
                                                   uint64_t interval, int repeats, uint64_t phase) {
  std::vector<std::vector<int64_t>> out(variants, std::vector<int64_t>(groups, 0));
  if (groups == 0 || interval == 0 || sequence.empty()) return out;
  // Launch k is in group ((phase + k) / interval) mod groups: its residue over interval.
  const uint64_t period = interval * groups;
  const auto residues = run_residues(sequence, variants, period, repeats, phase);
  for (size_t v = 0; v < variants; ++v)
    for (uint64_t res = 0; res < period; ++res) out[v][res / interval] += residues[v][res];
  return out;
}

namespace {

// The worst case over phases, from each variant's launches by position modulo the rotation
// period (interval × groups): the group of position k at phase p is ((p + k) mod period) /
// interval.
std::vector<std::vector<int64_t>> worst_over_phases(const std::vector<int>& sequence,
                                                    size_t variants, size_t groups,
                                                    uint64_t interval, int repeats) {
  const uint64_t period = interval * groups;
  const auto residues = run_residues(sequence, variants, period, repeats, 0);
  std::vector<std::vector<int64_t>> worst(
      variants, std::vector<int64_t>(groups, std::numeric_limits<int64_t>::max()));
  std::vector<int64_t> cell(groups);
  for (uint64_t p = 0; p < period; ++p)
    for (size_t v = 0; v < variants; ++v) {
      std::fill(cell.begin(), cell.end(), 0);
      for (uint64_t res = 0; res < period; ++res)
        cell[((p + res) % period) / interval] += residues[v][res];
      for (size_t g = 0; g < groups; ++g) worst[v][g] = std::min(worst[v][g], cell[g]);
    }
  return worst;
}

int64_t least_of(const std::vector<std::vector<int64_t>>& s) {
  int64_t m = std::numeric_limits<int64_t>::max();
  for (const auto& row : s)
    for (int64_t x : row) m = std::min(m, x);
  return s.empty() ? 0 : m;
}

}  // namespace

RotationChoice choose_rotation(const RotationRequest& q) {
  RotationChoice c;
  if (q.groups < 2) {
    c.why = "rotation needs at least 2 counter groups";
    return c;
  }
  if (q.sequence.empty() || q.variants == 0) {
    c.why = "the trace holds no dispatch of the kernels to count";
    return c;
  }
  // Every variant needs groups × min_samples launches over the repeats: the rarest one sets a
  // lower bound on the repeats before any interval is tried.
  std::vector<int64_t> per_request(q.variants, 0);
  for (int v : q.sequence) per_request[static_cast<size_t>(v)] += 1;
  const int64_t rarest = *std::min_element(per_request.begin(), per_request.end());
  if (rarest == 0) {
    c.why = "a variant of interest has no launch in the trace";
    return c;
  }
  const int64_t need = static_cast<int64_t>(q.groups) * q.min_samples;
  const int first = static_cast<int>(std::max<int64_t>(1, (need + rarest - 1) / rarest));
  for (int r = first; r <= q.max_repeats; ++r) {
    RotationChoice best;
    for (uint64_t i = 1; i <= q.max_interval; ++i) {
      ++c.intervals_tried;
      auto s = q.phase_known ? rotation_samples(q.sequence, q.variants, q.groups, i, r, 0)
                             : worst_over_phases(q.sequence, q.variants, q.groups, i, r);
      const int64_t least = least_of(s);
      if (least >= q.min_samples && (!best.feasible || least > best.least)) {
        best.feasible = true;
        best.interval = i;
        best.repeats = r;
        best.least = least;
        best.samples = std::move(s);
      }
    }
    if (best.feasible) {
      best.intervals_tried = c.intervals_tried;
      return best;
    }
  }
  c.why = "no interval up to " + std::to_string(q.max_interval) + " gives every variant " +
          std::to_string(q.min_samples) + " samples of every group within " +
          std::to_string(q.max_repeats) + " repeats of the request";
  c.repeats = q.max_repeats;
  return c;
}

}  // namespace kprof::plan
