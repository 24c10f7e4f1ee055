#include "core/ingest/format.hpp"

#include <cstdint>
#include <fstream>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/ingest/field_parse.hpp"

namespace kprof::ingest {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view base_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string_view format_name(Format f) {
  switch (f) {
    case Format::kernel_trace:
      return "kernel_trace";
    case Format::counter_collection:
      return "counter_collection";
    case Format::agent_info:
      return "agent_info";
    case Format::stats:
      return "stats";
    case Format::memory_copy_trace:
      return "memory_copy_trace";
    case Format::memory_allocation_trace:
      return "memory_allocation_trace";
    case Format::api_trace:
      return "api_trace";
    case Format::rocpd:
      return "rocpd";
    case Format::json:
      return "json";
  }
  return "?";
}

std::optional<Format> format_from_name(std::string_view filename) {
  std::string name = to_lower(base_name(filename));
  if (ends_with(name, "kernel_trace.csv")) return Format::kernel_trace;
  if (ends_with(name, "counter_collection.csv")) return Format::counter_collection;
  if (ends_with(name, "agent_info.csv")) return Format::agent_info;
  if (ends_with(name, "_stats.csv") || name == "stats.csv") return Format::stats;
  if (ends_with(name, "memory_copy_trace.csv")) return Format::memory_copy_trace;
  if (ends_with(name, "memory_allocation_trace.csv")) return Format::memory_allocation_trace;
  if (ends_with(name, "hip_api_trace.csv") || ends_with(name, "hsa_api_trace.csv") ||
      ends_with(name, "marker_api_trace.csv"))
    return Format::api_trace;
  if (ends_with(name, "_results.db") || name == "results.db") return Format::rocpd;
  if (ends_with(name, "_results.json") || name == "results.json") return Format::json;
  return std::nullopt;
}

std::optional<Format> format_from_header(std::string_view header_line) {
  std::vector<std::string> cols;
  for (auto& c : split(header_line, ',')) {
    std::string_view t = trim(c);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
    cols.push_back(to_lower(t));
  }
  auto has = [&](std::string_view name) {
    for (const auto& c : cols)
      if (c == name) return true;
    return false;
  };
  if (has("counter_name") && has("counter_value")) return Format::counter_collection;
  if (has("kernel_name") && has("start_timestamp") && has("grid_size_x"))
    return Format::kernel_trace;
  if (has("node_id") && has("agent_type")) return Format::agent_info;
  if (has("name") && has("calls") && has("totaldurationns")) return Format::stats;
  if (has("direction") && has("source_agent_id")) return Format::memory_copy_trace;
  if (has("operation") && has("allocation_size")) return Format::memory_allocation_trace;
  if (has("domain") && has("function") && has("correlation_id")) return Format::api_trace;
  return std::nullopt;
}

std::string domain_from_name(std::string_view filename) {
  std::string name(base_name(filename));
  if (ends_with(name, ".csv")) name.resize(name.size() - 4);
  static const char* const k_domains[] = {"kernel_trace",         "kernel_stats",
                                          "counter_collection",   "agent_info",
                                          "domain_stats",         "hip_api_trace",
                                          "hip_api_stats",        "hsa_api_trace",
                                          "hsa_api_stats",        "marker_api_trace",
                                          "marker_api_stats",     "memory_copy_trace",
                                          "memory_copy_stats",    "memory_allocation_stats",
                                          "scratch_memory_stats", "rccl_api_stats"};
  const std::string lower = to_lower(name);
  for (const char* d : k_domains)
    if (ends_with(lower, d)) return d;
  auto us = name.find('_');
  return us == std::string::npos ? name : name.substr(us + 1);
}

std::optional<int64_t> pid_from_name(std::string_view filename) {
  std::string_view name = base_name(filename);
  auto us = name.find('_');
  if (us == std::string_view::npos || us == 0) return std::nullopt;
  int64_t pid = 0;
  if (!parse_i64(name.substr(0, us), pid) || name[0] == '+') return std::nullopt;
  return pid;
}

Format sniff_format(const std::string& path) {
  auto by_name = format_from_name(path);
  if (by_name == Format::rocpd || by_name == Format::json) return *by_name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error::input("cannot open file", "check the path and its permissions", SourcePos{path});
  }
  std::string first(4096, '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<size_t>(in.gcount()));
  if (first.rfind("SQLite format 3", 0) == 0) return Format::rocpd;
  auto nl = first.find('\n');
  std::string_view header = std::string_view(first).substr(0, nl);
  if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
  auto by_header = format_from_header(header);
  // The name decides when it says something: its reader then reports exactly which header
  // columns are missing, which is more useful than "unknown format".
  if (by_name) return *by_name;
  if (by_header) return *by_header;
  throw Error::input("not a rocprofv3 output kprof reads",
                     "expected *_kernel_trace.csv, *_counter_collection.csv, *_agent_info.csv, "
                     "*_stats.csv, *_memory_copy_trace.csv, *_api_trace.csv, *_results.db or "
                     "*_results.json",
                     SourcePos{path, 1, 1});
}

}  // namespace kprof::ingest
