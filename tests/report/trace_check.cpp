#include "tests/report/trace_check.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace kprof::report::test {
namespace {

// A "ts" or "dur" in nanoseconds as Perfetto reads it: an integer times 1000, a double
// llround(v * 1000) (google/perfetto src/trace_processor/importers/json/json_trace_tokenizer.cc
// CoerceToTs), so that slices are compared in the integers the importer compares.
int64_t perfetto_ns(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<int64_t>() * 1000;
  const double d = v.get<double>();
  return d == std::trunc(d) ? static_cast<int64_t>(d) * 1000
                            : static_cast<int64_t>(std::llround(d * 1000.0));
}

// Whether a pid or tid is what Perfetto keeps: an integer in [0, 2^32). Anything else is read as 0
// (json_trace_tokenizer.cc CoerceToUint32), which puts the event on another process or thread.
bool uint32_id(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= 0xffffffffull;
  return v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 0xffffffffll;
}

// The path of the first number in `v` that is NaN or infinite, or empty. A parsed document has
// none: JSON has no NaN or Infinity and nlohmann's parser refuses the bare words (a test shows it),
// and nlohmann's dump writes null for them. This catches a document built in memory.
std::string non_finite(const nlohmann::json& v, const std::string& at) {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return at.empty() ? "/" : at;
  if (v.is_object()) {
    for (const auto& [k, x] : v.items())
      if (auto p = non_finite(x, at + "/" + k); !p.empty()) return p;
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i)
      if (auto p = non_finite(v[i], at + "/" + std::to_string(i)); !p.empty()) return p;
  }
  return "";
}

}  // namespace

TraceCheck check_trace(const nlohmann::json& doc) {
  TraceCheck c;
  auto problem = [&](const std::string& p) {
    if (c.problems.size() < 20) c.problems.push_back(p);
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    problem("not the JSON Object Format (no traceEvents array)");
    return c;
  }
  if (const auto at = non_finite(doc, ""); !at.empty())
    problem("a number that is NaN or infinite at " + at);
  std::set<std::pair<int64_t, int64_t>> named_threads, used_threads;
  std::set<int64_t> named_processes;
  // Slices per thread in Perfetto's nanoseconds: (ts, end).
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> slices;
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
    if (!uint32_id(e["pid"]) || !uint32_id(e["tid"])) {
      problem("pid or tid outside [0, 2^32), which Perfetto reads as 0: " + e.dump());
      continue;
    }
    // kprof puts what a slice is (kernel, family, phase, counters) in its args: every event has
    // them, as an object.
    if (!e.contains("args") || !e["args"].is_object()) problem("event without args: " + e.dump());
    // Perfetto's sorter drops an event with a negative ts (google/perfetto
    // src/trace_processor/sorter/trace_sorter.h TraceSorter::Stream::Push, stat
    // trace_sorter_negative_timestamp_dropped).
    if (e.contains("ts") && e["ts"].is_number() && e["ts"].get<double>() < 0)
      problem("negative ts, which Perfetto drops: " + e.dump());
    const std::string ph = e["ph"];
    const auto key = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (ph == "M") {
      const bool names = e["name"] == "thread_name" || e["name"] == "process_name";
      if (names && !(e.contains("args") && e["args"].is_object() && e["args"].contains("name") &&
                     e["args"]["name"].is_string() &&
                     !e["args"]["name"].get_ref<const std::string&>().empty())) {
        problem("metadata event without a non-empty args.name: " + e.dump());
        continue;
      }
      if (e["name"] == "thread_name") named_threads.insert(key);
      if (e["name"] == "process_name") named_processes.insert(key.first);
    } else if (ph == "X") {
      if (!e.contains("ts") || !e["ts"].is_number() || !std::isfinite(e["ts"].get<double>()) ||
          !e.contains("dur") || !e["dur"].is_number() || !std::isfinite(e["dur"].get<double>()) ||
          e["dur"].get<double>() < 0) {
        problem("complete event without finite ts and dur >= 0: " + e.dump());
        continue;
      }
      used_threads.insert(key);
      ++c.cat[e.value("cat", "")];
      const int64_t ts = perfetto_ns(e["ts"]);
      slices[key].push_back({ts, ts + perfetto_ns(e["dur"])});
    } else if (ph == "i") {
      // An instant event (kprof's claims): a finite ts and a scope Perfetto knows, t(hread),
      // p(rocess) or g(lobal) (google/perfetto src/trace_processor/importers/json/
      // json_trace_parser_impl.cc, case 'i'/'I').
      const std::string scope = e.value("s", "t");
      if (!e.contains("ts") || !e["ts"].is_number() || !std::isfinite(e["ts"].get<double>()) ||
          (scope != "t" && scope != "p" && scope != "g")) {
        problem("instant event without a finite ts and a scope t, p or g: " + e.dump());
        continue;
      }
      used_threads.insert(key);
      ++c.cat[e.value("cat", "")];
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
  // Slices of one thread nest or are disjoint, as Perfetto's importer needs: it does not nest a
  // slice that starts inside an open one and ends after it (google/perfetto
  // src/trace_processor/importers/common/slice_tracker.cc SliceTracker::MaybeCloseStack), and drops
  // it (up to v56.1) or moves it to an overflow track (since v57.0). In its order: sorted by ts,
  // the longer first at one ts (sorter/trace_sorter.h TimestampedEvent::SlowOperatorLess); an open
  // slice that ends where the next starts is closed.
  for (auto& [key, v] : slices) {
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> open;  // ends of the enclosing slices
    for (const auto& [b, e] : v) {
      while (!open.empty() && open.back() <= b) open.pop_back();
      if (!open.empty() && e > open.back()) {
        problem("thread " + std::to_string(key.first) + "/" + std::to_string(key.second) +
                ": slice [" + std::to_string(b) + ", " + std::to_string(e) +
                "] ns overlaps its enclosing slice (ends " + std::to_string(open.back()) +
                ") without nesting");
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
