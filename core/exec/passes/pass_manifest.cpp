#include "core/exec/passes/pass_manifest.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/error.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int k_manifest_version = 1;

const char* region_word(RegionCut r) {
  switch (r) {
    case RegionCut::markers:
      return "markers";
    case RegionCut::trace:
      return "trace";
    case RegionCut::none:
      break;
  }
  return "none";
}

[[noreturn]] void bad(const fs::path& file, const std::string& what) {
  throw Error::input(file.string() + ": " + what,
                     "give the pass folders that `kprof plan --emit-sbatch` tasks wrote, or "
                     "remove " +
                         std::string(k_pass_manifest) + " to load the files without it");
}

}  // namespace

bool is_kprof_pass_file(const fs::path& path) {
  const auto name = path.filename();
  return name == k_pass_manifest || name == k_release_file || name == k_ingest_log;
}

bool holds_capture_file(const fs::path& folder) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && !is_kprof_pass_file(it->path())) return true;
  }
  return false;
}

std::string manifest_json(const PassManifest& m) {
  json env = json::array();
  for (const auto& [k, v] : m.env) env.push_back({k, v});
  const json j = {{"kprof_pass_manifest", k_manifest_version},
                  {"run", m.run_name},
                  {"runbook", m.runbook_path},
                  {"runbook_sha256", m.runbook_sha256},
                  {"runbook_text", m.runbook_text},
                  {"simulated", m.simulated},
                  {"seed", m.seed ? json(*m.seed) : json(nullptr)},
                  {"profiler_version", m.profiler_version},
                  {"profiler", m.profiler},
                  {"ordinal", m.ordinal},
                  {"run_passes", m.run_passes},
                  {"kind", std::string(store::to_string(m.kind))},
                  {"counters", m.counters},
                  {"argv", m.argv},
                  {"env", env},
                  {"log", m.log_path},
                  {"region_cut", region_word(m.region)}};
  return j.dump();
}

PassManifest read_manifest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) bad(file, "not JSON");
  if (j.value("kprof_pass_manifest", 0) != k_manifest_version)
    bad(file, "field kprof_pass_manifest: not version " + std::to_string(k_manifest_version));
  PassManifest m;
  const auto field = [&](const char* name, auto& out) {
    try {
      out = j.at(name).get<std::decay_t<decltype(out)>>();
    } catch (const json::exception&) {
      bad(file, std::string("field ") + name + ": missing or of the wrong type");
    }
  };
  field("run", m.run_name);
  field("runbook", m.runbook_path);
  field("runbook_sha256", m.runbook_sha256);
  field("runbook_text", m.runbook_text);
  field("simulated", m.simulated);
  field("profiler_version", m.profiler_version);
  field("profiler", m.profiler);
  field("ordinal", m.ordinal);
  field("run_passes", m.run_passes);
  field("counters", m.counters);
  field("argv", m.argv);
  field("log", m.log_path);
  if (j.contains("seed") && j["seed"].is_number_integer()) m.seed = j["seed"].get<int64_t>();
  std::vector<std::pair<std::string, std::string>> env;
  field("env", env);
  m.env = env;
  std::string kind, region;
  field("kind", kind);
  field("region_cut", region);
  if (kind == "trace")
    m.kind = store::PassKind::trace;
  else if (kind == "counters")
    m.kind = store::PassKind::counters;
  else
    bad(file, "field kind: '" + kind + "' is neither trace nor counters");
  if (region == "markers")
    m.region = RegionCut::markers;
  else if (region == "trace")
    m.region = RegionCut::trace;
  else if (region != "none")
    bad(file, "field region_cut: '" + region + "' is none of none, markers, trace");
  if (m.ordinal < 0) bad(file, "field ordinal: negative");
  return m;
}

std::vector<fs::path> find_manifests(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      if (fs::path(p).filename() == k_pass_manifest) out.push_back(p);
      continue;
    }
    for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename() == k_pass_manifest && it->is_regular_file(ec))
        out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace kprof::exec
