// `kprof doctor` on a node-like environment made of stand-ins: `rocminfo`, `amd-smi` and
// `rocm-smi` print output kept in tests/data/doctor, `rocprofv3` is the test double under
// rocprofv3's name, and PyTorch, vLLM and the model's weights are folders shaped as pip and the
// Hugging Face cache leave them. Every check passes there; each failed check is then caused, and
// fixed again.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/exec/node/node_tool_text.hpp"
#include "core/exec/node/tool_probe.hpp"
#include "tests/exec/kprof_cli.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_kprof;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

const fs::path k_data = fs::path(KPROF_TEST_DATA) / "doctor";
const fs::path k_src = KPROF_SOURCE_DIR;

TEST(DoctorText, RocminfoGivesTheGpuAgentNotTheCpuNorTheIsaName) {
  const auto gpus = gpus_from_rocminfo(read_text(k_data / "rocminfo-mi300x.txt"));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].arch, "gfx942");
  EXPECT_EQ(gpus[0].name, "AMD Instinct MI300X");
}

TEST(DoctorText, AmdSmiStaticAsicGivesTargetAndMarketName) {
  const auto gpus = gpus_from_amd_smi(read_text(k_data / "amd-smi-static-asic-mi308x.txt"));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].arch, "gfx942");
  EXPECT_EQ(gpus[0].name, "MI308X");
}

TEST(DoctorText, ListAvailGivesEveryCounterName) {
  const ToolOutput r = run_tool({std::string(KPROF_BIN_DIR) + "/rocprofv3-sim", "--list-avail"});
  ASSERT_TRUE(r.ok) << r.ended;
  const auto counters = counters_from_list_avail(r.text);
  EXPECT_TRUE(counters.count("GRBM_COUNT"));
  EXPECT_TRUE(counters.count("SQ_WAVES"));
  EXPECT_FALSE(counters.count("GPU"));
  EXPECT_GT(counters.size(), 50u);
}

// rocm-smi --showproductname (tests/data/doctor, in the format of ROCm/rocm_smi_lib
// python_smi_tools/rocm_smi.py showProduct): two MI300X, each with its "GFX Version" line.
TEST(DoctorText, RocmSmiProductNameGivesEachGpuAndItsTarget) {
  const auto gpus = gpus_from_rocm_smi(read_text(k_data / "rocm-smi-showproductname-mi300x.txt"));
  ASSERT_EQ(gpus.size(), 2u);
  for (const auto& g : gpus) {
    EXPECT_EQ(g.arch, "gfx942");
    EXPECT_EQ(g.name, "AMD Instinct MI300X");
  }
  // A rocm-smi from before the "GFX Version" line still lists its GPUs, without an arch; a
  // partition's "GPU[0] XCP[1]" lines are not GPUs of their own.
  const auto old = gpus_from_rocm_smi(
      "GPU[0]\t\t: Card series: \t\t0x738c\nGPU[0] XCP[1]\t: GFX Version: gfx942\n"
      "GPU[1]\t\t: Card series: \t\t0x738c\n");
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[0].arch, "");
  EXPECT_EQ(old[1].name, "0x738c");
}

// Before 7.0, rocprofv3 -L/--list-metrics printed one "gpu-agentN:\tNAME" block per counter
// (ROCm/rocprofiler-sdk source/lib/rocprofiler-sdk-tool/tool.cpp, list_metrics_iterate_agents):
// the excerpt in tests/data/doctor has the names SQ_WAVES, GRBM_COUNT, GRBM_GUI_ACTIVE (basic) and
// GPU_UTIL (derived), on one agent; descriptions, blocks and expressions are not counters.
TEST(DoctorText, ListMetricsBefore70GivesEveryCounterName) {
  const auto counters =
      counters_from_list_avail(read_text(k_data / "rocprofv3-list-metrics-6.2.txt"));
  EXPECT_EQ(counters,
            (std::set<std::string>{"GPU_UTIL", "GRBM_COUNT", "GRBM_GUI_ACTIVE", "SQ_WAVES"}));
  // The double in a 6.3 role lists, in that form, the counters it lists in 7.0's.
  const std::string sim = std::string(KPROF_BIN_DIR) + "/rocprofv3-sim";
  const auto now = counters_from_list_avail(run_tool({sim, "--list-avail"}).text);
  const ToolOutput r = run_tool({sim, "--list-metrics"}, {{"ROCPROF_SIM_VERSION", "6.3"}});
  ASSERT_TRUE(r.ok) << r.ended;
  EXPECT_EQ(r.text.find("Counter_Name"), std::string::npos);
  EXPECT_EQ(counters_from_list_avail(r.text), now);
}

// The node: bin/ (rocminfo, rocprofv3), site/ (torch, vllm), hf/ (the weights), the runbook.
class Node {
 public:
  Node() {
    write_script(bin() / "rocminfo", "cat '" + (k_data / "rocminfo-mi300x.txt").string() + "'\n");
    fs::create_symlink(fs::path(KPROF_BIN_DIR) / "rocprofv3-sim", bin() / "rocprofv3");
    write_file(site() / "torch" / "__init__.py", "");
    write_file(site() / "torch" / "version.py",
               "__version__ = '2.7.0+rocm6.3'\ncuda: Optional[str] = None\n"
               "hip: Optional[str] = '6.3.42131-fa1d09cbd'\n");
    write_file(site() / "torch-2.7.0+rocm6.3.dist-info" / "METADATA",
               "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.0+rocm6.3\n");
    write_file(site() / "vllm" / "__init__.py", "");
    write_file(site() / "vllm" / "_rocm_C.abi3.so", "");
    write_file(site() / "vllm-0.9.2+rocm630.dist-info" / "METADATA",
               "Metadata-Version: 2.1\nName: vllm\nVersion: 0.9.2+rocm630\n");
    write_file(weights() / "model-00001-of-00016.safetensors", std::string(4096, 'w'));
    // As in the source tree: runbooks/ with workloads/, and configs/ beside it (the workload's
    // --check reads configs/metrics).
    write_file(runbook(), read_text(k_src / "runbooks" / "qwen3-30b-a3b-mi300x.yaml"));
    fs::copy(k_src / "runbooks" / "workloads", m_dir / "runbooks" / "workloads",
             fs::copy_options::recursive);
    fs::create_directory_symlink(k_src / "configs", m_dir / "configs");
  }
  fs::path bin() const { return m_dir / "bin"; }
  fs::path site() const { return m_dir / "site"; }
  fs::path weights() const {
    return m_dir / "hf" / "hub" / "models--Qwen--Qwen3-30B-A3B" / "snapshots" / "0123abcd";
  }
  fs::path runbook() const { return m_dir / "runbooks" / "rb.yaml"; }
  const fs::path& dir() const { return m_dir.path(); }

  testing::KprofOut kprof(std::vector<std::string> args) const {
    // python3 from this machine's PATH, nothing of ROCm but the stand-ins.
    const auto python = find_tool("python3");
    const std::string path = bin().string() + ":" +
                             (python ? python->parent_path().string() + ":" : "") + "/usr/bin:/bin";
    return run_kprof(dir(), args,
                     {{"PATH", path},
                      {"PYTHONPATH", site().string()},
                      {"HF_HOME", (m_dir / "hf").string()},
                      {"HF_HUB_CACHE", ""}});
  }
  testing::KprofOut doctor(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"doctor", runbook().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return kprof(args);
  }

 private:
  TempDir m_dir;
};

TEST(Doctor, EveryCheckPassesOnANodeLikeEnvironment) {
  Node node;
  const auto r = node.doctor();
  EXPECT_EQ(r.code, 0) << r.text;
  for (const std::string line :
       {"✔ runbook ", "✔ rocprofv3: rocprofiler-sdk ",
        "✔ GPUs: 1 × gfx942 (AMD Instinct MI300X), from rocminfo",
        "✔ PyTorch 2.7.0+rocm6.3, ROCm build (HIP 6.3.42131-fa1d09cbd)",
        "✔ vLLM 0.9.2+rocm630, ROCm build", "✔ model weights: Qwen/Qwen3-30B-A3B in ",
        "✔ counters: all ", "✔ free disk: ", "doctor: ready"})
    EXPECT_NE(r.text.find(line), std::string::npos) << line << "\n" << r.text;
  EXPECT_EQ(r.text.find("✘"), std::string::npos) << r.text;
}

struct Breakage {
  const char* name;
  std::function<void(const Node&)> cause;
  std::function<void(const Node&)> fix;
  std::string failed_line;  // the start of the ✘ line
  std::vector<std::string> extra = {};
};

std::vector<Breakage> breakages() {
  const auto rocminfo = (k_data / "rocminfo-mi300x.txt").string();
  return {
      {"no rocprofv3", [](const Node& n) { fs::remove(n.bin() / "rocprofv3"); },
       [](const Node& n) {
         fs::create_symlink(fs::path(KPROF_BIN_DIR) / "rocprofv3-sim", n.bin() / "rocprofv3");
       },
       "✘ rocprofv3: 'rocprofv3' not found on PATH"},
      {"no ROCm tools", [](const Node& n) { fs::remove(n.bin() / "rocminfo"); },
       [rocminfo](const Node& n) {  // amd-smi alone answers too
         write_script(n.bin() / "amd-smi",
                      "cat '" + (k_data / "amd-smi-static-asic-mi308x.txt").string() + "'\n");
       },
       "✘ GPUs: none of rocminfo, amd-smi or rocm-smi is on PATH"},
      {"another GPU",
       [rocminfo](const Node& n) {
         write_script(n.bin() / "rocminfo", "sed 's/gfx942/gfx90a/' '" + rocminfo + "'\n");
       },
       [rocminfo](const Node& n) {
         write_script(n.bin() / "rocminfo", "cat '" + rocminfo + "'\n");
       },
       "✘ GPUs: 1 × gfx90a (AMD Instinct MI300X), from rocminfo; the runbook's target.arch is "
       "gfx942"},
      {"CUDA PyTorch",
       [](const Node& n) { write_file(n.site() / "torch" / "version.py", "hip = None\n"); },
       [](const Node& n) { write_file(n.site() / "torch" / "version.py", "hip = '6.4.1'\n"); },
       "✘ PyTorch 2.7.0+rocm6.3: not a ROCm build"},
      {"no vLLM", [](const Node& n) { fs::remove_all(n.site() / "vllm"); },
       [](const Node& n) {
         write_file(n.site() / "vllm" / "__init__.py", "");
         write_file(n.site() / "vllm" / "_rocm_C.abi3.so", "");
       },
       "✘ vLLM: not installed for python3"},
      {"no weights", [](const Node& n) { fs::remove_all(n.dir() / "hf"); },
       [](const Node& n) { write_file(n.weights() / "model.safetensors", "w"); },
       "✘ model weights: Qwen/Qwen3-30B-A3B is neither a folder nor in the Hugging Face cache"},
      {"counters missing",
       [](const Node& n) {
         fs::remove(n.bin() / "rocprofv3");
         write_script(n.bin() / "rocprofv3",
                      "case \"$1\" in --list-avail) '" + std::string(KPROF_BIN_DIR) +
                          "/rocprofv3-sim' \"$@\" | grep -v 'Counter_Name.*SQ_' ;;\n"
                          "*) exec '" +
                          std::string(KPROF_BIN_DIR) +
                          "/rocprofv3-sim' \"$@\" ;;\n"
                          "esac\n");
       },
       [](const Node& n) {
         fs::remove(n.bin() / "rocprofv3");
         fs::create_symlink(fs::path(KPROF_BIN_DIR) / "rocprofv3-sim", n.bin() / "rocprofv3");
       },
       "✘ counters: "},
      {"rocm-smi without GFX Version",
       [](const Node& n) {
         fs::remove(n.bin() / "rocminfo");
         write_script(n.bin() / "rocm-smi",
                      "grep -v 'GFX Version' '" +
                          (k_data / "rocm-smi-showproductname-mi300x.txt").string() + "'\n");
       },
       [](const Node& n) {  // rocm-smi alone answers when it names the target
         write_script(n.bin() / "rocm-smi",
                      "cat '" + (k_data / "rocm-smi-showproductname-mi300x.txt").string() + "'\n");
       },
       "✘ GPUs: 2 listed by rocm-smi --showproductname, which gives no architecture"},
      {"fewer GPUs than ranks",  // rocminfo lists one MI300X
       [](const Node& n) {
         std::string text = read_text(n.runbook());
         text.insert(text.find("workload:\n") + 10, "  ranks: 2\n");
         write_file(n.runbook(), text);
       },
       [](const Node& n) {
         write_file(n.runbook(), read_text(k_src / "runbooks" / "qwen3-30b-a3b-mi300x.yaml"));
       },
       "✘ GPUs: 1 × gfx942 (AMD Instinct MI300X), from rocminfo; workload.ranks: 2 needs 2 (each "
       "pass runs one worker per GPU)"},
      {"invalid runbook",
       [](const Node& n) { write_file(n.runbook(), read_text(n.runbook()) + "colour: blue\n"); },
       [](const Node& n) {
         write_file(n.runbook(), read_text(k_src / "runbooks" / "qwen3-30b-a3b-mi300x.yaml"));
       },
       "✘ "},
  };
}

TEST(Doctor, EachFailedCheckIsCausedThenFixed) {
  for (const auto& b : breakages()) {
    SCOPED_TRACE(b.name);
    Node node;
    b.cause(node);
    const auto broken = node.doctor(b.extra);
    EXPECT_EQ(broken.code, 2) << broken.text;
    const auto at = broken.text.find(b.failed_line);
    ASSERT_NE(at, std::string::npos) << broken.text;
    // The ✘ line is followed by its fix.
    const auto next = broken.text.find('\n', at);
    EXPECT_EQ(broken.text.compare(next + 1, 9, "    fix: "), 0) << broken.text;
    b.fix(node);
    const auto fixed = node.doctor(b.extra);
    EXPECT_EQ(fixed.code, 0) << fixed.text;
  }
}

// A 6.3 rocprofv3 has no --list-avail: its counters are read from --list-metrics instead.
TEST(Doctor, CountersOfARelease63AreCheckedOnListMetrics) {
  Node node;
  fs::remove(node.bin() / "rocprofv3");
  write_script(
      node.bin() / "rocprofv3",
      "ROCPROF_SIM_VERSION=6.3 exec '" + std::string(KPROF_BIN_DIR) + "/rocprofv3-sim' \"$@\"\n");
  const auto r = node.doctor();
  EXPECT_NE(r.text.find("✔ counters: all "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("rocprofv3 --list-metrics' ("), std::string::npos) << r.text;
}

TEST(Doctor, TooLittleFreeDiskFails) {
  Node node;
  const auto r = node.doctor({"--min-free-gb", "1000000000"});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("✘ free disk: "), std::string::npos) << r.text;
  EXPECT_EQ(node.doctor({"--min-free-gb", "0"}).code, 0);
}

TEST(Doctor, TheDoubleNeedsNoGpuPyTorchOrWeights) {
  Node node;
  fs::remove(node.bin() / "rocminfo");
  fs::remove_all(node.site());
  const auto r = node.doctor({"--simulate"});
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("✔ rocprofv3 (the test double): "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("– GPUs, PyTorch, vLLM, model weights: not needed"), std::string::npos)
      << r.text;
}

TEST(Doctor, RunStopsOnAFailedCheckBeforeAnyPassAndNoDoctorSkipsIt) {
  Node node;
  fs::remove(node.bin() / "rocminfo");
  // One attempt per pass: the passes that --no-doctor lets start fail without a GPU.
  std::string text = read_text(node.runbook());
  text.replace(text.find("attempts: 2"), 11, "attempts: 1");
  write_file(node.runbook(), text);
  const auto db = node.dir() / "x.db";
  const auto stopped = node.kprof({"run", node.runbook().string(), "--db", db.string()});
  EXPECT_EQ(stopped.code, 2) << stopped.text;
  EXPECT_NE(stopped.text.find("✘ GPUs: "), std::string::npos) << stopped.text;
  EXPECT_NE(stopped.text.find("run: stopped before any pass"), std::string::npos) << stopped.text;
  EXPECT_FALSE(fs::exists(db));
  // --no-doctor goes on to the passes: a database is made (whatever the passes then do).
  const auto skipped =
      node.kprof({"run", node.runbook().string(), "--db", db.string(), "--no-doctor", "--quiet"});
  EXPECT_EQ(skipped.text.find("stopped before any pass"), std::string::npos) << skipped.text;
  EXPECT_TRUE(fs::exists(db)) << skipped.text;
}

TEST(Doctor, RunLeavesSlurmNodesToBeCheckedWhereThePassesRun) {
  Node node;
  fs::remove(node.bin() / "rocminfo");  // this host has no GPU; Slurm's nodes may
  const auto r = node.kprof(
      {"run", node.runbook().string(), "--slurm", "--db", (node.dir() / "s.db").string()});
  EXPECT_NE(r.text.find("run: the passes run on Slurm's nodes; check one with 'srun ... kprof "
                        "doctor "),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("stopped before any pass"), std::string::npos) << r.text;
}

TEST(Doctor, PlanRefusesAMissingProfilerAndPlansForTheDouble) {
  Node node;
  fs::remove(node.bin() / "rocprofv3");
  const auto r = node.kprof({"plan", node.runbook().string()});
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("profiler 'rocprofv3' not found on PATH"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("kprof doctor"), std::string::npos) << r.text;
  EXPECT_EQ(node.kprof({"plan", node.runbook().string(), "--simulate"}).code, 0);
  // A batch script runs on other nodes: it is written without the profiler here.
  EXPECT_EQ(node.kprof({"plan", node.runbook().string(), "--emit-sbatch"}).code, 0);
}

// The workload's own `--check` (runbooks/workloads/qwen3_generate.py), on the same node plus a
// KFD topology folder and the ROCTx stand-in: a gfx942 GPU, the weights and the roofline counters.
class CheckedNode : public Node {
 public:
  CheckedNode() {
    write_file(topology() / "0" / "properties", "cpu_cores_count 104\ngfx_target_version 0\n");
    gpu("90402");
  }
  fs::path topology() const { return dir() / "topology"; }
  void gpu(const std::string& version) const {
    write_file(topology() / "2" / "properties",
               "simd_count 1216\ngfx_target_version " + version + "\n");
  }
  testing::KprofOut check() const {
    LaunchSpec s;
    const auto python = find_tool("python3");
    s.argv = {python->string(), (dir() / "runbooks" / "workloads" / "qwen3_generate.py").string(),
              "--check", "--graph-mode", "eager"};  // the node's vLLM 0.9.2 predates "none"
    s.env = {{"PATH", bin().string() + ":" + python->parent_path().string() + ":/usr/bin:/bin"},
             {"PYTHONPATH", site().string()},
             {"HF_HOME", (dir() / "hf").string()},
             {"HF_HUB_CACHE", ""},
             {"VLLM_ENABLE_V1_MULTIPROCESSING", "0"},
             {"LD_LIBRARY_PATH", std::string(KPROF_BIN_DIR) + "/../share/kprof/standins/lib"},
             {"QWEN3_GENERATE_KFD_TOPOLOGY", topology().string()}};
    s.log_path = dir() / "check.out";
    s.timeout = std::chrono::minutes(2);
    const auto r = run_process(s);
    return {r.exit_code, r.signal, read_text(s.log_path), r.describe()};
  }
};

TEST(WorkloadCheck, FindsTheGpuTheWeightsAndTheCountersAndSaysWhichIsMissing) {
  CheckedNode node;
  const auto ok = node.check();
  EXPECT_EQ(ok.code, 0) << ok.text;
  EXPECT_NE(ok.text.find("gfx942 GPU, weights found, roofline counters available"),
            std::string::npos)
      << ok.text;

  node.gpu("90010");
  auto r = node.check();
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("check failed: no gfx942 (MI300X) GPU: the KFD topology has gfx90a"),
            std::string::npos)
      << r.text;
  node.gpu("90402");

  fs::remove_all(node.dir() / "hf");
  r = node.check();
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("check failed: weights of Qwen/Qwen3-30B-A3B are neither"),
            std::string::npos)
      << r.text;
  write_file(node.weights() / "model.safetensors", "w");

  fs::remove(node.bin() / "rocprofv3");
  write_script(node.bin() / "rocprofv3",
               "'" + std::string(KPROF_BIN_DIR) + "/rocprofv3-sim' \"$@\" | grep -v SQ_LDS_BANK\n");
  r = node.check();
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("lacks the roofline counters SQ_LDS_BANK_CONFLICT"), std::string::npos)
      << r.text;
}

}  // namespace
}  // namespace kprof::exec
