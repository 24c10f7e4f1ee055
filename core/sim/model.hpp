// A workload model: the kernels an application dispatches (names, resources, grids, durations,
// FLOPs and bytes), in order, plus the machine's agents as rocprofv3 enumerates them. Loaded from
// configs/sim/<name>.yaml; every number in it is a modelled figure, never a measured one.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kprof::sim {

struct KernelSymbol {
  std::string key;        // the model's own name for it ("moe_w13_decode")
  std::string name;       // as rocprofv3 prints it by default (demangled, no .kd)
  std::string truncated;  // as -T/--truncate-kernels prints it
  uint64_t kernel_id = 0;
  int arch_vgpr = 0;
  int accum_vgpr = 0;
  int sgpr = 0;
  uint32_t lds = 0;      // group segment bytes
  uint32_t scratch = 0;  // private segment bytes
  std::array<uint32_t, 3> workgroup{1, 1, 1};
  std::string mfma;     // matrix datatype of its FLOPs: bf16, f16, f32, f64, fp8 or "" (vector ALU)
  double l2_hit = 0.5;  // fraction of L2 requests that hit
  // A cross-rank collective (tensor-parallel all-reduce): under a `ranks:` model each rank's launch
  // starts when that rank arrives, and every rank's ends when the last rank has arrived plus the
  // dispatch's modelled duration (stream.cpp).
  bool collective = false;
};

struct PlannedDispatch {
  int symbol = 0;                         // index into Model::symbols
  std::array<uint32_t, 3> grid{1, 1, 1};  // work-items
  double duration_ns = 0;
  double gap_ns = 0;  // idle time on the queue before it starts (launch gap, or host gap)
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  int queue = 1;
  int stream = 1;
  bool in_region = true;  // inside roctxProfilerResume/Pause (the --selected-regions region)
  bool optional = false;  // a lazy-init/allocator kernel that reruns may lose or repeat
  // In a `per_output_token` block (one repetition per output token after the first: a decode
  // step): the block's index among them (-1: in none) and the repetition it belongs to.
  int token_block = -1;
  int token_step = 0;
};

struct Agent {
  int node_id = 0;
  int logical_node_id = 0;
  bool gpu = false;
  int type_index = 0;                         // "GPU N" / "CPU N"
  std::map<std::string, std::string> fields;  // agent_info.csv column -> value as written
};

// Tensor parallelism on one node (`ranks:` in a model file): the sequence is what ONE rank
// dispatches; every worker process that reports work (the vLLM stand-in's `rank` events, or
// ROCPROF_SIM_PROCESSES=N without the stand-ins) runs it on its own GPU.
struct RankModel {
  int count = 1;  // ranks the per-rank figures are written for (1: no tensor parallelism)
  // Per rank: extra time in ns before it arrives at each collective (the injected skew; missing
  // entries are 0). The k-th collective's arrivals differ by exactly these delays (stream.cpp).
  std::vector<double> arrival_delay_ns;
  double delay(int rank) const {
    return rank >= 0 && static_cast<size_t>(rank) < arrival_delay_ns.size()
               ? arrival_delay_ns[static_cast<size_t>(rank)]
               : 0.0;
  }
  double max_delay(int ranks) const {
    double m = 0;
    for (int r = 0; r < ranks; ++r) m = r == 0 ? delay(r) : std::max(m, delay(r));
    return m;
  }
};

struct Model {
  std::string name;
  std::string source_path;
  std::string arch = "gfx942";
  double clock_mhz = 2100;
  int num_xcd = 8;
  std::vector<KernelSymbol> symbols;
  std::vector<PlannedDispatch> dispatches;
  std::vector<Agent> agents;
  int gpu = 0;  // index into agents of the GPU the workload runs on
  // Index into agents of each HIP device the application sees, in HIP's order (rank r of a
  // tensor-parallel run uses HIP device r); filled by model_for_visibility.
  std::vector<int> hip_devices;
  RankModel ranks;
  // Nondeterminism of reruns (all seeded): relative sigma of durations and gaps, probability that a
  // pass loses / repeats its optional kernel, probability that a record is flushed out of order.
  double duration_jitter = 0.03;
  double missing_kernel_probability = 0;
  double extra_kernel_probability = 0;
  double reorder_probability = 0.03;
  double correlation_skip_probability = 0.1;  // host API calls between dispatches take ids too
  // Counter collection serializes dispatches and reads counters after each: included kernels take
  // `stretch` times longer plus `overhead_ns` (counter collection serializes dispatches:
  // ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/using-rocprofv3.rst).
  double counter_stretch = 1.15;
  double counter_overhead_ns = 2500;
  double counter_gap_ns = 20000;  // extra host time per included dispatch in counter passes
  double startup_ns = 2.0e8;      // app start to first dispatch
  double load_ns = 0;             // loading the model's weights before that (0: not modelled)
  // Multi-process mode (vLLM V1: the API process plus its EngineCore worker): dispatches that the
  // parent process itself makes before handing work to the worker.
  std::vector<PlannedDispatch> parent_dispatches;
};

// The dispatches of `plan` for requests of other lengths: every `per_output_token` block outside
// the region (the warm-up request) repeated outside_tokens - 1 times, every one inside it
// region_tokens - 1 times, instead of as written (a count <= 0 keeps the block as written). The
// application says how many tokens it asked for (the stand-ins' `work generate N` event), as
// vLLM runs 1 prefill step and N - 1 decode steps for N output tokens.
std::vector<PlannedDispatch> with_output_tokens(const std::vector<PlannedDispatch>& plan,
                                                int outside_tokens, int region_tokens);

// What one application run of the model takes, from its modelled times (SIMULATED): start and
// model load, the warm-up (dispatches outside the region, with their gaps), one measured request
// (inside it). A counter run stretches every counted dispatch (counter_stretch, overhead, gap).
struct RunTimes {
  double load_ns = 0;    // startup_ns + load_ns
  double warmup_ns = 0;  // outside the region
  double region_ns = 0;  // one measured request
  int64_t region_dispatches = 0;
  double counter_extra_ns = 0;  // added per counted dispatch in a counter run (approximate)
  double counter_stretch = 1;
};
RunTimes run_times(const Model& model);

// Loads a model file. Throws kprof::Error (input) with file:line:col for a bad entry.
Model load_model(const std::filesystem::path& path);
// `name_or_path`: a path to a YAML file, or a name resolved as configs/sim/<name>.yaml.
Model load_model_named(const std::string& name_or_path);

// Evaluates a number written in a model: a YAML number or an arithmetic string such as
// "2*8*2048*1536" (+ - * / and parentheses), so the arithmetic can stay readable in the file.
double eval_arithmetic(const std::string& text);

// rocprofv3 -T: the name without return type, arguments, templates and namespaces.
std::string truncate_kernel_name(const std::string& name);

}  // namespace kprof::sim
