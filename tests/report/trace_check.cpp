#include "tests/report/trace_check.hpp"

#include <algorithm>
#include <set>

namespace kprof::report::test {

TraceCheck check_trace(const nlohmann::json& doc) {
  TraceCheck c;
  auto problem = [&](const std::string& p) {
    if (c.problems.size() < 20) c.problems.push_back(p);
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    problem("not the JSON Object Format (no traceEvents array)");
    return c;
  }
  std::set<std::pair<int64_t, int64_t>> named_threads, used_threads;
  std::set<int64_t> named_processes;
  // Slices per thread: (ts, -dur) so that an enclosing slice sorts before what it encloses.
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : doc["traceEvents"]) {
    if (!e.is_object()) {
      problem("event that is not an object: " + e.dump());
      continue;
    }
    for (const char* f : {"name", "ph", "pid", "tid"})
      if (!e.contains(f)) problem(std::string("event without '") + f + "': " + e.dump());
    if ((e.contains("name") && !e["name"].is_string()) ||
        (e.contains("ph") && !e["ph"].is_string()) ||
        (e.contains("pid") && !e["pid"].is_number_integer()) ||
        (e.contains("tid") && !e["tid"].is_number_integer())) {
      problem("name or ph not a string, or pid or tid not an integer: " + e.dump());
      continue;
    }
    if (!e.contains("ph") || !e.contains("pid") || !e.contains("tid")) continue;
    // kprof puts what a slice is (kernel, family, phase, counters) in its args: every event has
    // them, as an object.
    if (!e.contains("args") || !e["args"].is_object()) problem("event without args: " + e.dump());
    const std::string ph = e["ph"];
    const auto key = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (ph == "M") {
      if (e["name"] == "thread_name") named_threads.insert(key);
      if (e["name"] == "process_name") named_processes.insert(key.first);
    } else if (ph == "X") {
      if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("dur") ||
          !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        problem("complete event without ts/dur >= 0: " + e.dump());
        continue;
      }
      used_threads.insert(key);
      ++c.cat[e.value("cat", "")];
      const double ts = e["ts"], dur = e["dur"];
      slices[key].push_back({ts, ts + dur});
    } else {
      problem("unexpected phase '" + ph + "'");
    }
  }
  for (const auto& t : used_threads) {
    if (!named_threads.count(t))
      problem("thread " + std::to_string(t.first) + "/" + std::to_string(t.second) +
              " has no name");
    if (!named_processes.count(t.first))
      problem("process " + std::to_string(t.first) + " has no name");
  }
  for (auto& [key, v] : slices) {
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    // Times are microseconds with nanosecond digits; sums of two such doubles differ from the
    // exact value in the last bits, so compare to a tenth of a nanosecond.
    const double eps = 1e-4;
    std::vector<double> open;  // ends of the enclosing slices
    for (const auto& [b, e] : v) {
      while (!open.empty() && open.back() <= b + eps) open.pop_back();
      if (!open.empty() && e > open.back() + eps) {
        problem("thread " + std::to_string(key.first) + "/" + std::to_string(key.second) +
                ": slice at " + std::to_string(b) + " overlaps its neighbour without nesting");
        break;
      }
      open.push_back(e);
    }
  }
  c.threads = static_cast<int64_t>(used_threads.size());
  c.processes = static_cast<int64_t>(named_processes.size());
  return c;
}

}  // namespace kprof::report::test
