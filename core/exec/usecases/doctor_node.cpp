#include "core/exec/usecases/doctor_node.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "core/base/text.hpp"
#include "core/exec/node/node_tool_text.hpp"
#include "core/exec/node/tool_probe.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

namespace {

DoctorCheck passed(std::string what) { return {CheckState::passed, std::move(what), {}}; }
DoctorCheck failed(std::string what, std::string fix) {
  return {CheckState::failed, std::move(what), std::move(fix)};
}

std::string gib(std::uint64_t bytes) {
  std::ostringstream s;
  s.precision(bytes >= (std::uint64_t{10} << 30) ? 0 : 1);
  s << std::fixed << static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30)
    << " GiB";
  return s.str();
}

// "8 × gfx942 (AMD Instinct MI300X)", agents of one kind counted together, in order met.
std::string describe(const std::vector<GpuAgent>& gpus) {
  std::vector<std::pair<std::string, int>> kinds;
  for (const auto& g : gpus) {
    const std::string a = g.arch.empty() ? "GPU of unnamed architecture" : g.arch;
    const std::string k = g.name.empty() ? a : a + " (" + g.name + ")";
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& p) { return p.first == k; });
    if (it == kinds.end())
      kinds.emplace_back(k, 1);
    else
      ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [k, n] : kinds) parts.push_back(std::to_string(n) + " × " + k);
  return join(parts, ", ");
}

// The environment variable as the workload sees it: its workload.env, else kprof's.
std::string env_value(const store::EnvDelta& env, const std::string& name) {
  for (const auto& [k, v] : env)
    if (k == name) return v;
  const char* own = std::getenv(name.c_str());
  return own ? own : "";
}

// The workload's words (a shell command line is split at spaces).
std::vector<std::string> command_words(const runbook::Runbook& rb) {
  std::vector<std::string> words;
  for (const auto& w : rb.workload.command.value) {
    if (!rb.workload.shell.value) {
      words.push_back(w.value);
      continue;
    }
    for (const auto& part : split(w.value, ' '))
      if (!part.empty()) words.push_back(part);
  }
  return words;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Prints "torch<TAB>version<TAB>hip" and "vllm<TAB>version<TAB>rocm", '-' for what is missing,
// without importing either (a vLLM import takes seconds and touches the GPU). A ROCm PyTorch
// records its HIP version in torch/version.py (pytorch/pytorch tools/generate_torch_version.py,
// `hip`; None in CUDA and CPU builds); vLLM built for ROCm carries its `_rocm_C` extension
// (vllm-project/vllm setup.py: `if _is_hip(): ext_modules.append(CMakeExtension(name=
// "vllm._rocm_C"))`).
constexpr const char* k_package_probe = R"PY(
import glob, importlib.metadata as md, importlib.util as iu, os, re
def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "?"
def folder(name):
    spec = iu.find_spec(name)
    places = spec.submodule_search_locations if spec else None
    return list(places)[0] if places else None
torch = folder("torch")
hip = "-"
if torch and os.path.exists(os.path.join(torch, "version.py")):
    m = re.search(r"^hip\b[^=]*=\s*['\"]([^'\"]+)", open(os.path.join(torch, "version.py")).read(), re.M)
    hip = m.group(1) if m else "-"
print("torch", version("torch") if torch else "-", hip, sep="\t")
vllm = folder("vllm")
rocm = "rocm" if vllm and glob.glob(os.path.join(vllm, "_rocm_C*.so")) else "-"
print("vllm", version("vllm") if vllm else "-", rocm, sep="\t")
)PY";

// The Hugging Face hub cache as huggingface_hub finds it (huggingface_hub constants.py:
// HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub).
fs::path hub_cache(const store::EnvDelta& env) {
  if (const auto c = env_value(env, "HF_HUB_CACHE"); !c.empty()) return c;
  if (const auto h = env_value(env, "HF_HOME"); !h.empty()) return fs::path(h) / "hub";
  if (const auto x = env_value(env, "XDG_CACHE_HOME"); !x.empty())
    return fs::path(x) / "huggingface" / "hub";
  return fs::path(env_value(env, "HOME")) / ".cache" / "huggingface" / "hub";
}

// "Qwen/Qwen3-30B-A3B" → "Qwen--Qwen3-30B-A3B" (huggingface_hub file_download.py,
// repo_folder_name).
std::string hub_name(const std::string& repo_id) {
  std::string out;
  for (char c : repo_id) out += c == '/' ? std::string("--") : std::string(1, c);
  return out;
}

// Bytes of weight files (*.safetensors, *.bin) under `dir`, links followed (the hub cache links
// snapshots to blobs).
std::uint64_t weight_bytes(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension();
    if (ext != ".safetensors" && ext != ".bin") continue;
    std::error_code size_ec;
    const auto n = fs::file_size(it->path(), size_ec);
    if (!size_ec) total += n;
  }
  return total;
}

// One line of the package probe: {name, version or "-", HIP version or "rocm" or "-"}.
using ProbeLine = std::vector<std::string>;

DoctorCheck torch_check(const ProbeLine& t, const std::string& python) {
  const std::string fix = "install PyTorch's ROCm build for " + python +
                          " (pip install torch --index-url https://download.pytorch.org/whl/"
                          "rocm6.4, or AMD's rocm/vllm container)";
  if (t.size() != 3 || t[1] == "-") return failed("PyTorch: not installed for " + python, fix);
  if (t[2] == "-")
    return failed("PyTorch " + t[1] + ": not a ROCm build (torch.version.hip is None)", fix);
  return passed("PyTorch " + t[1] + ", ROCm build (HIP " + t[2] + ")");
}

DoctorCheck vllm_check(const ProbeLine& v, const std::string& python) {
  const std::string fix =
      "install vLLM built for ROCm (docs.vllm.ai, installation, GPU, ROCm; or AMD's rocm/vllm "
      "container)";
  if (v.size() != 3 || v[1] == "-") return failed("vLLM: not installed for " + python, fix);
  if (v[2] == "-") return failed("vLLM " + v[1] + ": not a ROCm build (no vllm._rocm_C)", fix);
  return passed("vLLM " + v[1] + ", ROCm build");
}

}  // namespace

store::EnvDelta workload_env(const runbook::Runbook& rb) {
  store::EnvDelta env;
  for (const auto& e : rb.workload.env.value) env.emplace_back(e.name.value, e.value.value);
  return env;
}

DoctorCheck check_gpus(const std::string& arch, const store::EnvDelta& env, int ranks) {
  std::vector<GpuAgent> gpus;
  std::string from;
  std::vector<std::string> tried;
  if (const auto rocminfo = find_tool("rocminfo", env)) {
    const ToolOutput r = run_tool({rocminfo->string()}, env);
    gpus = gpus_from_rocminfo(r.text);
    from = "rocminfo";
    tried.push_back("rocminfo (" + r.ended + ")");
  }
  if (gpus.empty()) {
    if (const auto smi = find_tool("amd-smi", env)) {
      const ToolOutput r = run_tool({smi->string(), "static", "--asic"}, env);
      gpus = gpus_from_amd_smi(r.text);
      from = "amd-smi static --asic";
      tried.push_back("amd-smi static --asic (" + r.ended + ")");
    }
  }
  // rocm-smi, which ROCm ships without rocminfo in some containers and before amd-smi.
  if (gpus.empty()) {
    if (const auto smi = find_tool("rocm-smi", env)) {
      const ToolOutput r = run_tool({smi->string(), "--showproductname"}, env);
      gpus = gpus_from_rocm_smi(r.text);
      from = "rocm-smi --showproductname";
      tried.push_back("rocm-smi --showproductname (" + r.ended + ")");
    }
  }
  if (tried.empty())
    return failed("GPUs: none of rocminfo, amd-smi or rocm-smi is on PATH",
                  "install ROCm (its rocminfo package) or add /opt/rocm/bin to PATH");
  if (gpus.empty())
    return failed("GPUs: no GPU agent listed by " + join(tried, ", "),
                  "check that the amdgpu driver is loaded and that this user may open "
                  "/dev/kfd (groups render and video); rocminfo run by hand says why");
  if (!arch.empty() &&
      std::all_of(gpus.begin(), gpus.end(), [](const GpuAgent& g) { return g.arch.empty(); }))
    return failed("GPUs: " + std::to_string(gpus.size()) + " listed by " + from +
                      ", which gives no architecture to hold against target.arch " + arch,
                  "install rocminfo (ROCm's rocminfo package) or amd-smi, which name it");
  const std::string found = "GPUs: " + describe(gpus) + ", from " + from;
  const bool match = arch.empty() || std::any_of(gpus.begin(), gpus.end(),
                                                 [&](const GpuAgent& g) { return g.arch == arch; });
  if (!match)
    return failed(found + "; the runbook's target.arch is " + arch,
                  "run on a node with a " + arch + " GPU, or set target.arch to the GPU's");
  const auto usable = std::count_if(
      gpus.begin(), gpus.end(), [&](const GpuAgent& g) { return arch.empty() || g.arch == arch; });
  if (usable < ranks)
    return failed(found + "; workload.ranks: " + std::to_string(ranks) + " needs " +
                      std::to_string(ranks) + " (each pass runs one worker per GPU)",
                  "run on a node with " + std::to_string(ranks) + " " +
                      (arch.empty() ? std::string("GPUs") : arch + " GPUs") +
                      " visible, or lower workload.ranks to what the workload runs");
  return passed(found);
}

std::vector<DoctorCheck> check_python_packages(const runbook::Runbook& rb) {
  const auto words = command_words(rb);
  if (words.empty() || fs::path(words[0]).filename().string().rfind("python", 0) != 0) return {};
  // The script's own text says which packages it needs.
  std::string script;
  if (words.size() > 1) script = file_text(rb.workload.cwd.value / words[1]);
  const bool wants_vllm = script.find("vllm") != std::string::npos;
  const bool wants_torch = wants_vllm || script.find("torch") != std::string::npos;
  if (!wants_torch) return {};
  const ToolOutput r = run_tool({words[0], "-c", k_package_probe}, workload_env(rb));
  if (!r.ok)
    return {
        failed("PyTorch: '" + words[0] + "' could not look for it (" + r.ended + ")",
               "install python3 (3.8 or later: importlib.metadata) for the workload, or correct "
               "workload.command")};
  std::map<std::string, ProbeLine> found;
  for (const auto& line : split(r.text, '\n')) {
    auto f = split(line, '\t');
    if (f.size() == 3) found[f[0]] = f;
  }
  std::vector<DoctorCheck> out = {torch_check(found["torch"], words[0])};
  if (wants_vllm) out.push_back(vllm_check(found["vllm"], words[0]));
  return out;
}

std::optional<DoctorCheck> check_model_weights(const runbook::Runbook& rb) {
  const auto words = command_words(rb);
  std::string model;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--model" && i + 1 < words.size()) model = words[i + 1];
    if (words[i].rfind("--model=", 0) == 0) model = words[i].substr(8);
  }
  if (model.empty()) return std::nullopt;
  const fs::path local = rb.workload.cwd.value / model;
  std::error_code ec;
  if (fs::is_directory(local, ec)) {
    const auto bytes = weight_bytes(local);
    if (bytes == 0)
      return failed("model weights: " + local.string() + " holds no *.safetensors or *.bin",
                    "copy the model's files there, or give another folder with --model");
    return passed("model weights: " + local.string() + " (" + gib(bytes) + ")");
  }
  const auto env = workload_env(rb);
  const fs::path repo = hub_cache(env) / ("models--" + hub_name(model));
  const auto bytes = weight_bytes(repo / "snapshots");
  const std::string download = "huggingface-cli download " + model +
                               " (HF_HOME chooses where; the runbook's workload.env may set it), "
                               "or give a local folder with --model in workload.command";
  if (bytes == 0)
    return failed("model weights: " + model +
                      " is neither a folder nor in the Hugging Face cache " + repo.string(),
                  download);
  return passed("model weights: " + model + " in " + repo.string() + " (" + gib(bytes) + ")");
}

DoctorCheck check_free_disk(const fs::path& captures, std::uint64_t min_free_bytes) {
  fs::path at = captures;
  std::error_code ec;
  while (!at.empty() && !fs::exists(at, ec) && at != at.parent_path()) at = at.parent_path();
  const auto space = fs::space(at.empty() ? fs::path(".") : at, ec);
  if (ec)
    return failed("free disk: cannot read the free space of " + at.string() + ": " + ec.message(),
                  "check that the captures folder's parent exists and is readable");
  const std::string what =
      "free disk: " + gib(space.available) + " where the captures go (" + captures.string() + ")";
  if (space.available < min_free_bytes)
    return failed(what + ", less than " + gib(min_free_bytes),
                  "free space there, or run with --db on a larger disk (the captures go beside "
                  "the database)");
  return passed(what);
}

DoctorCheck check_counters(const std::string& profiler, const std::string& list,
                           const store::EnvDelta& env, const std::set<std::string>& counters) {
  const ToolOutput r = run_tool({profiler, list}, env, std::chrono::seconds(120));
  const std::string asked = "'" + profiler + " " + list + "'";
  if (!r.ok)
    return failed("counters: " + asked + " failed (" + r.ended + ")",
                  "run " + asked + " by hand to see why (a GPU the tool cannot open fails it)");
  const auto avail = counters_from_list_avail(r.text);
  if (avail.empty())
    return failed("counters: " + asked + " listed no counter",
                  "run " + asked + " by hand; it lists the counters of each GPU it can open");
  std::vector<std::string> missing;
  for (const auto& c : counters) {
    const std::string name = c.substr(0, c.find('['));
    if (!avail.count(name)) missing.push_back(name);
  }
  if (!missing.empty())
    return failed("counters: " + std::to_string(missing.size()) + " of the " +
                      std::to_string(counters.size()) + " planned are not on " + asked + ": " +
                      join(missing, ", "),
                  "check that target.arch is this GPU's, or leave those counters (or their "
                  "metric set) out of the runbook");
  return passed("counters: all " + std::to_string(counters.size()) + " planned are on " + asked +
                " (" + std::to_string(avail.size()) + " listed)");
}

}  // namespace kprof::exec
