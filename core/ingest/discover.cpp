#include "core/ingest/discover.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/base/error.hpp"
#include "core/base/input_file.hpp"
#include "core/ingest/json_reader.hpp"
#include "core/ingest/read_file.hpp"

namespace kprof::ingest {

namespace fs = std::filesystem;

namespace {

// N of a "pass_N" or "pmc_N" directory name.
std::optional<int> pass_number(const std::string& name) {
  for (const char* stem : {"pass_", "pmc_"}) {
    const std::string s = stem;
    if (name.size() > s.size() && name.compare(0, s.size(), s) == 0) {
      const std::string digits = name.substr(s.size());
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
          digits.size() < 7)
        return std::stoi(digits);
    }
  }
  return std::nullopt;
}

int order(Format f) {
  switch (f) {
    case Format::agent_info:
      return 0;
    case Format::rocpd:
    case Format::json:
      return 1;
    case Format::kernel_trace:
      return 2;
    case Format::counter_collection:
      return 3;
    case Format::memory_copy_trace:
      return 4;
    case Format::memory_allocation_trace:
      return 5;
    case Format::api_trace:
      return 5;
    case Format::stats:
      return 6;
  }
  return 7;
}

}  // namespace

// Whether `file` is a CSV header and nothing else (at most one line break, at its end). Such a
// file is small; a large one is never read here.
bool header_only(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || size > 64 * 1024 || file.extension() != ".csv") return false;
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return !text.empty() && text.find('\n') == std::string::npos;
}

Discovery discover(const std::vector<std::string>& paths) {
  Discovery out;
  std::map<int, PassInput> passes;
  auto add = [&](const fs::path& file, const fs::path& root, bool named) {
    const std::string p = file.string();
    std::optional<Format> f = format_from_name(p);
    if (!f && named) f = sniff_format(p);  // throws with a hint when it is nothing we read
    if (!f) {
      out.skipped.push_back(p);
      return;
    }
    // rocprofv3 writes its JSON file whatever it recorded (ROCm/rocprofiler-sdk
    // source/lib/output/generateJSON.cpp); without kernel dispatch records it holds the machine's
    // agents and the kernel symbols, which are no capture, as agent_info.csv alone is none.
    if (!named && *f == Format::json && !json_has_kernel_dispatches(p)) {
      out.notes.push_back("skipped " + p +
                          ": no kernel dispatch records (rocprofv3 JSON with agents and kernel "
                          "symbols only; kprof reads the dispatches of a JSON file)");
      return;
    }
    // rocprofv3 writes a CSV file only for domains with records (ROCm/rocprofiler-sdk
    // source/lib/output/generateCSV.cpp returns on `data.empty()` before the header), so a header
    // alone was cut off: one such file must not stop the rest of the folder.
    if (!named && header_only(file)) {
      out.notes.push_back("skipped " + p +
                          ": a header and no rows (rocprofv3 writes a file only for domains with "
                          "data, so it was cut off after its header)");
      return;
    }
    // The pass folder is the nearest pass_N/pmc_N ancestor within (or at) the given directory;
    // for a named file, its folder or the one above (pass_N/<hostname>/<pid>_...csv).
    int number = 0;
    std::string folder = root.string();
    int levels = 0;
    for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      if (auto n = pass_number(dir.filename().string())) {
        number = *n;
        folder = dir.string();
        break;
      }
      if ((!named && dir == root) || dir == dir.parent_path() || (named && ++levels >= 2)) break;
    }
    auto& pass = passes[number];
    pass.number = number;
    if (pass.folder.empty()) pass.folder = folder;
    pass.files.push_back(InputFile{p, *f, pid_from_name(file.filename().string())});
  };
  for (const auto& arg : paths) {
    std::error_code ec;
    fs::path root(arg);
    if (fs::is_regular_file(root, ec)) {
      add(root, root.parent_path(), true);
    } else if (fs::is_directory(root, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
           it.increment(ec))
        if (it->is_regular_file(ec)) files.push_back(it->path());
      if (ec) {
        throw Error::input("cannot list directory: " + ec.message(), "check its permissions",
                           SourcePos{arg});
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) add(f, root, false);
    } else if (fs::exists(root, ec)) {
      // A FIFO, a device (/dev/zero), a socket: say what it is instead of "no such file".
      kprof::InputFile probe(root, "capture file");  // throws "... is a FIFO, not a regular file"
      throw Error::input("not a regular file", "give a rocprofv3 output directory or file",
                         SourcePos{arg});
    } else {
      throw Error::input("no such file or directory", "give a rocprofv3 output directory or file",
                         SourcePos{arg});
    }
  }
  if (passes.empty()) {
    throw Error::input("no rocprofv3 output files found",
                       "expected *_kernel_trace.csv, *_counter_collection.csv, *_agent_info.csv, "
                       "*_stats.csv, *_results.db or *_results.json (rocprofv3 -f csv writes "
                       "<dir>/<hostname>/<pid>_kernel_trace.csv)",
                       SourcePos{paths.empty() ? std::string() : paths.front()});
  }
  for (auto& [n, pass] : passes) {
    std::stable_sort(pass.files.begin(), pass.files.end(), [](const auto& a, const auto& b) {
      return order(a.format) < order(b.format);
    });
    out.passes.push_back(std::move(pass));
  }
  return out;
}

std::string infer_pass_kind(const PassInput& pass) {
  for (const auto& f : pass.files)
    if (f.format == Format::counter_collection) return "counters";
  return "trace";
}

namespace {

// Collects agent rows on their way to the real sink, for "GPU N" resolution in later files.
class AgentTap : public store::RowSink {
 public:
  AgentTap(store::RowSink& next, std::vector<store::AgentRow>& agents)
      : m_next(next), m_agents(agents) {}
  void begin_file(const std::string& p, const std::string& k) override { m_next.begin_file(p, k); }
  void agent(const store::AgentRow& r) override {
    m_agents.push_back(r);
    m_next.agent(r);
  }
  void dispatch(const store::DispatchRow& r) override { m_next.dispatch(r); }
  void counter(const store::CounterRow& r) override { m_next.counter(r); }
  void kernel_stat(const store::KernelStatRow& r) override { m_next.kernel_stat(r); }
  void bad_row(const store::BadRow& r) override { m_next.bad_row(r); }
  void end_file(int64_t n) override { m_next.end_file(n); }
  void memory_copy(const store::MemoryCopyRow& r) override { m_next.memory_copy(r); }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    m_next.memory_allocation(r);
  }
  void api_call(const store::ApiCallRow& r) override { m_next.api_call(r); }
  void profiler_version(const std::string& v) override { m_next.profiler_version(v); }

 private:
  store::RowSink& m_next;
  std::vector<store::AgentRow>& m_agents;
};

// Drops every row: what a context-only file is read into.
class NullSink : public store::RowSink {
 public:
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow&) override {}
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
};

}  // namespace

std::vector<FileResult> read_pass(const PassInput& pass, store::RowSink& sink,
                                  const ReadOptions& options) {
  std::vector<FileResult> results;
  // agent_info files per pid prefix: "GPU N" in 123_kernel_trace.csv refers to 123_agent_info.csv.
  std::map<std::optional<int64_t>, std::vector<store::AgentRow>> agents;
  for (const auto& f : pass.files) {
    ReadOptions o = options;
    if (!o.pid) o.pid = f.pid;
    if (f.format == Format::agent_info && f.context) {
      NullSink none;
      AgentTap tap(none, agents[f.pid]);
      read_file(f.path, f.format, tap, o);
      continue;
    }
    if (f.format == Format::agent_info) {
      AgentTap tap(sink, agents[f.pid]);
      results.push_back(read_file(f.path, f.format, tap, o));
      continue;
    }
    if (auto it = agents.find(f.pid); it != agents.end())
      o.agents = it->second;
    else if (agents.size() == 1)
      o.agents = agents.begin()->second;
    results.push_back(read_file(f.path, f.format, sink, o));
  }
  return results;
}

}  // namespace kprof::ingest
