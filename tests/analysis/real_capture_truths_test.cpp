// Real captures decide: every structural claim kprof makes about a real rocprofv3 capture (how
// `kprof ingest` splits a folder into runs, windows, steps, layers, prefill and decode, "not a
// generation loop", the counter join) is checked against a truth read from the raw rows by hand.
// The truths below were derived with the python one-liners quoted in their comments, run in the
// capture's folder under tests/data/captures (tests/data/SOURCES.md says where each file comes
// from), never from kprof's output.
//
// A claim is "confident" unless kprof flags it as uncertain or unknown wherever it prints it: the
// one-line structure summary (explain, phases, structure, the HTML report) prints steps, layers,
// prefill and decode without any confidence, so a claim it prints is confident whatever the
// model's Finding says; a claim printed only among the evidence with confidence low is flagged.
// A join that passes its self-check is printed with no warning (confident); one that fails it is
// reported UNRELIABLE (flagged). Ingest prints its runs without doubt (confident).
//
// The test fails on any confident claim its truth contradicts, except those in
// kKnownConfidentWrongClaims, which must be exactly the confident wrong claims kprof makes today:
// a fix that removes one makes the test fail until the entry is removed too, so the list only
// shrinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/join/join.hpp"
#include "core/analysis/structure/explain.hpp"
#include "core/analysis/structure/phases.hpp"
#include "core/base/error.hpp"
#include "core/exec/usecases/ingest_capture.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path k_captures = fs::path(KPROF_TEST_DATA) / "captures";

// What one kernel trace holds, read from its rows.
struct TraceTruth {
  std::string trace;        // the kernel_trace.csv, relative to the folder
  size_t windows = 1;       // stretches of consecutive Dispatch_Ids
  bool generation = false;  // repeated forward passes (a generation loop) are in the trace
  size_t step_period = 0;   // dispatches per repeated step, when the rows show it (0: not known)
  bool prefill = false;     // a prefill forward pass is in the trace
  // Layers per forward pass; 0: no model runs (a kernel test); -1: a model runs, but no whole
  // pass is in the trace to count them in.
  int layers = 0;
  size_t layer_dispatches = 0;  // dispatches of one pass's layers, all together
};

// How a counter pass's dispatches map onto its trace's: trace id = counter id + id_offset.
struct CounterTruth {
  std::string counters;  // the counter_collection.csv, relative to the folder
  std::string trace;     // the kernel trace of the same workload
  int64_t id_offset = 0;
  size_t mapped = 0;  // counter dispatches whose id + offset is in the trace (same kernel and grid)
};

// One folder as a user hands it to `kprof ingest`.
struct FolderTruth {
  std::string folder;               // relative to tests/data/captures
  std::vector<std::string> inputs;  // files of the folder given to ingest; empty: the folder
  // The files of each separate capture (one workload: its trace with the counter passes of the
  // same workload); no run may hold files of two of them.
  std::vector<std::set<std::string>> captures;
  std::vector<TraceTruth> traces;
  std::vector<CounterTruth> counters;
};

// ---------------------------------------------------------------------------------------------
// The truths.
// ---------------------------------------------------------------------------------------------

// jimw567/rocprof-unified-viewer tests/fixtures: llama.cpp on gfx1151, one rocprofv3 process per
// file set (Process_Id/Thread_Id: decode trace 2684120, decode fetch 2684191, decode stall 2684167,
// prefill trace 3985093, prefill fetch 3985140, prefill stall 3985130), so decode and prefill are
// two workloads in one folder, each a trace and two counter passes.
//
// prefill_kernel_trace.csv:
//   python3 -c "import csv;r=sorted(csv.DictReader(open('prefill_kernel_trace.csv')),
//     key=lambda x:int(x['Dispatch_Id']));print(len(r),r[0]['Dispatch_Id'],r[-1]['Dispatch_Id'])"
//   -> 1128 4673 5800: one window of consecutive ids (1..4672 were cut off before it).
//   Kernel bases in id order (rms_norm=A scale=B get_rows=C quantize_mmq=D mul_mat_q=E ...) read
//   as 8 blocks of 140 dispatches then an 8-dispatch tail (final rms_norm, get_rows, the q6_K
//   output mat-vec, 5 copyBuffer):
//     n=[x['Kernel_Name'] for x in r]; [i for i,k in enumerate(n) if 'flash_attn_tile' in k]
//   -> [124, 264, ..., 1104] (every 140); gated_delta_net at 20, 57, 94, 160, 197, 234, ...:
//   each block is 3 linear-attention (gated delta net) layers of 37 dispatches and 1 full-
//   attention layer of 29 (24 + 8 = 32 layers, the qwen35 hybrid layout); the blocks differ only
//   in the template argument of quantize_mmq_q8_1/mul_mat_q (mixed quantisation per layer).
//   rms_norm_f32<1024> grids are 131072 = 128 rows of 1024: 128 tokens at once, one forward pass
//   of a prompt. No step repeats: this is ONE prefill pass of 32 layers in 1120 dispatches, whose
//   140-dispatch block is 4 layers, not one.
// decode_kernel_trace.csv: ids (sorted) 164-187, 1134-1157, 2105-2128, 3028-3051, 3951-3974,
//   4874-4897: 6 windows of 24 dispatches (946, 947, 899, 899, 899 ids missing between them).
//   The windows start 970, 971, 923, 923, 923 ids apart, and windows 3-6 launch the same 24
//   (kernel, grid, workgroup) in id order:
//     k=lambda x:(x['Kernel_Name'],x['Grid_Size_X'],x['Grid_Size_Y'],x['Grid_Size_Z'],
//       x['Workgroup_Size_X']); w=[[k(x) for x in r[i:i+24]] for i in range(0,144,24)]
//     [w[j]==w[2] for j in range(6)] -> [False, False, True, True, True, True]
//   (windows 1-2 hold two scale_f32 launches the later ones lack, as the first tokens' steps
//   do): the same step sampled once per generated token, a generation loop whose later steps
//   are 923 dispatches long. No window holds a whole step; no prefill is in the trace.
// Counter passes, each a separate process (ids restart at 1):
//   prefill fetch and stall: 54 dispatches (ids 1, 2, 161-428 with gaps, 1283, 2411; a kernel
//   filter). With trace id = counter id + 4512, 51 of them land on a trace dispatch of the same
//   kernel, grid and workgroup, and no other: counter 161 (rms_norm, grid 131072) is trace 4673,
//   the first dispatch of the traced pass; 1283 (the q6_K output mat-vec) is trace 5795; ids 1, 2
//   (copyBuffer before the traced pass) and 2411 (a later pass) have no trace dispatch.
//     for off in range(4000,5800): count counter ids with t[i+off] of the same name and grid
//   -> 51 at 4512, then 49 at 4932, 5212, 5352 (420, 700, 840 = whole blocks further: the same
//   layers, wrong repetition).
//   decode fetch and stall: 34 dispatches (ids 1, 2, 163-218 with gaps). 20 of them (164-186)
//   have a trace dispatch of the same Dispatch_Id, kernel, grid and workgroup (offset 0); the
//   other 14 fall in ids the trace did not record (before and after its first window). Both
//   processes run the same program from id 1, so the same id is the same launch; offset 971
//   (window 2) also matches 21 by name and grid, but that is the next token's step.
const FolderTruth k_unified_viewer{
    "rocprof-unified-viewer",
    {},
    {{"decode_kernel_trace.csv", "decode_hip_api_trace.csv", "decode_fetch_counter_collection.csv",
      "decode_stall_counter_collection.csv"},
     {"prefill_kernel_trace.csv", "prefill_hip_api_trace.csv",
      "prefill_fetch_counter_collection.csv", "prefill_stall_counter_collection.csv"}},
    {{"prefill_kernel_trace.csv", 1, false, 0, true, 32, 1120},
     {"decode_kernel_trace.csv", 6, true, 923, false, -1, 0}},
    {{"prefill_fetch_counter_collection.csv", "prefill_kernel_trace.csv", 4512, 51},
     {"prefill_stall_counter_collection.csv", "prefill_kernel_trace.csv", 4512, 51},
     {"decode_fetch_counter_collection.csv", "decode_kernel_trace.csv", 0, 20},
     {"decode_stall_counter_collection.csv", "decode_kernel_trace.csv", 0, 20}}};

// The same folder's four counter files alone (`kprof ingest DB *_counter_collection.csv`): four
// processes (2684191, 2684167, 3985140, 3985130), two workloads, no trace: four captures.
const FolderTruth k_unified_viewer_counters{
    "rocprof-unified-viewer",
    {"decode_fetch_counter_collection.csv", "decode_stall_counter_collection.csv",
     "prefill_fetch_counter_collection.csv", "prefill_stall_counter_collection.csv"},
    {{"decode_fetch_counter_collection.csv"},
     {"decode_stall_counter_collection.csv"},
     {"prefill_fetch_counter_collection.csv"},
     {"prefill_stall_counter_collection.csv"}},
    {},
    {}};

// JulianAbeleda/tinygrad-arkey: `rocprofv3 --stats` of llama-bench (Qwen3-8B Q4_K_M, gfx1100),
// three separate runs in three folders, stats only (no trace, nothing to join):
//   for f in rocprof_*/trace_kernel_stats.csv: rows, sum(Calls), sum(TotalDurationNs)
//   -> decode_d0 16 50066 557391077; decode_d1024 26 27500 618868077; prefill_pp512 23 2168
//   325026378: three different workloads (their totals differ), so three captures.
const FolderTruth k_tinygrad{"tinygrad-arkey/llama-kernel-residual-primitive-audit-20260619",
                             {},
                             {{"rocprof_decode_d0/trace_kernel_stats.csv"},
                              {"rocprof_decode_d1024/trace_kernel_stats.csv"},
                              {"rocprof_prefill_pp512/trace_kernel_stats.csv"}},
                             {},
                             {}};

// jhinpan/flydsl-kernel-profiling-lib rmsnorm profiles (MI350X): each <pid>_kernel_trace.csv is
// a process of its own (the pid in the file name; ids 1-64 in each). 64 dispatches: 4 PyTorch
// set-up kernels, then 60 launches of one RMSNorm kernel (rmsnorm_kernel_0 or
// _rms_norm_tiled_onepass) after a host gap of 0.9-8.9 s:
//   collections.Counter(short(x['Kernel_Name']) for x in r) -> {'rmsnorm_kernel_0': 60, ...}
// A kernel benchmark: no model, no forward pass, no layers. The 6e14a5f6aebc31c9 folders hold two
// such processes each (two separate captures).
FolderTruth rmsnorm(const std::string& folder, const std::vector<std::string>& pids) {
  FolderTruth t{"flydsl-kernel-profiling-lib/rmsnorm/profiles/" + folder, {}, {}, {}, {}};
  for (const auto& pid : pids) {
    t.captures.push_back({pid + "_agent_info.csv", pid + "_kernel_trace.csv"});
    t.traces.push_back({pid + "_kernel_trace.csv", 1, false, 0, false, 0, 0});
  }
  return t;
}

// jhinpan/flydsl-kernel-profiling-lib <example>/compute_viewer/discover_*: the discover pass of a
// FlyDSL kernel test (one process; ids 1..N consecutive): PyTorch set-up and reference kernels
// around repeated launches of the kernel under test. The same one-liners give:
//   mla_decode: 472 dispatches, kn_mla_fwd_decode_m16x8_fp8_fp8_0 363 times in runs of 21, 100,
//     121, 121 between host gaps;
//   pa: 245, paged_attention_decode_sliding_window_head_1 + pa_decode_ps_reduce 12 times in a
//     row, pa_decode_ps_kernel_0 + kn_mla_reduce_v1 12 times, PyTorch reference kernels around;
//   moe_reduce: 136, moe_reduction_kernel_0 26 times (runs of 1, 5, 20) among copyBuffer and
//     reduce kernels;
//   layernorm: 135, layernorm_kernel_0 112 times (runs of 12, 100).
// Kernel tests, not models: no generation loop, no prefill, no decode, no layers ("decode" in
// mla_decode and pa names the attention kernel, not a phase of the trace).
FolderTruth discover(const std::string& example) {
  const std::string f = "flydsl-kernel-profiling-lib/" + example + "/compute_viewer";
  return {f,
          {},
          {{"discover_agent_info.csv", "discover_kernel_trace.csv", "discover_kernel_stats.csv",
            "discover_domain_stats.csv"}},
          {{"discover_kernel_trace.csv", 1, false, 0, false, 0, 0}},
          {}};
}

// jyohukuchan/uLLM-project (gfx1201), captures this project used before, read again by hand.
//
// aq4-p3-diagnostic-rocprof-capture-v8 (one `-o aq4-p3-diagnostic` invocation): 12263 dispatches,
// ids 1-12263 consecutive (one window). In id order, the 1127 first end at the largest host gap
// (469 ms); then n[1127+928*k : 1127+928*(k+1)] is the same list of (name, grid, workgroup) for
// k = 0..11 and nothing follows (12263 = 1127 + 12*928); the marker trace has 12 ranges. Identical
// grids in all 12: none is a prefill (a prefill launches larger grids). In each 928:
// ullm_silu_mul_f32_kernel (once per layer, last kernel of its MLP) 32 times, at distances
//   [b-a for a,b in zip(silu,silu[1:])] -> 19, 19, 18, 20, 19, 19, 18, 20, ...
// (layers with the linear-attention kernels or the paged-attention ones, in turn): 32 layers in 8
// blocks of 19+19+18+20 = 76, 608 dispatches; the rest are bf16 row copies and fills around them.
const FolderTruth k_aq4{
    "uLLM-project/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
    "aq4-p3-diagnostic-rocprof-capture-v8",
    {},
    {{"aq4-p3-diagnostic_agent_info.csv", "aq4-p3-diagnostic_kernel_trace.csv",
      "aq4-p3-diagnostic_marker_api_trace.csv", "aq4-p3-diagnostic_memory_copy_trace.csv"}},
    {{"aq4-p3-diagnostic_kernel_trace.csv", 1, true, 928, false, 32, 608}},
    {}};

// sq8-optimized-component-v0.1/profiler: two `-o` invocations with traces (component-m8: 12
// dispatches, 8 CK GEMMs + 2 quantize + 2 copies; component-m8-evicted: 22, the same with 8
// ullm_sq8_evict_cache and 2 more copies), and three counter-only invocations in counters/
// (separate processes 3857618, 3864521, 3865094) of the same programs. A GEMM component test,
// no model. Counter id i against trace id i+off, same kernel and grid:
//   component-m8: 12 of 12 at off 0 (1 at +-1);
//   component-m8-evicted-read128: 22 of 22 at 0;
//   component-m8-evicted-fetch: 20 of 22 at 0: ids 21 and 22 ran another CK GEMM instance
//   (the names differ from character 503 on), at the same place in the program.
const FolderTruth k_component{
    "uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler",
    {},
    {{"component-m8_agent_info.csv", "component-m8_domain_stats.csv",
      "component-m8_kernel_stats.csv", "component-m8_kernel_trace.csv",
      "component-m8_memory_copy_stats.csv", "component-m8_memory_copy_trace.csv",
      "counters/component-m8_agent_info.csv", "counters/component-m8_counter_collection.csv"},
     {"component-m8-evicted_agent_info.csv", "component-m8-evicted_domain_stats.csv",
      "component-m8-evicted_kernel_stats.csv", "component-m8-evicted_kernel_trace.csv",
      "component-m8-evicted_memory_copy_stats.csv", "component-m8-evicted_memory_copy_trace.csv",
      "counters/component-m8-evicted-fetch_agent_info.csv",
      "counters/component-m8-evicted-fetch_counter_collection.csv",
      "counters/component-m8-evicted-read128_agent_info.csv",
      "counters/component-m8-evicted-read128_counter_collection.csv"}},
    {{"component-m8_kernel_trace.csv", 1, false, 0, false, 0, 0},
     {"component-m8-evicted_kernel_trace.csv", 1, false, 0, false, 0, 0}},
    {{"counters/component-m8_counter_collection.csv", "component-m8_kernel_trace.csv", 0, 12},
     {"counters/component-m8-evicted-fetch_counter_collection.csv",
      "component-m8-evicted_kernel_trace.csv", 0, 20},
     {"counters/component-m8-evicted-read128_counter_collection.csv",
      "component-m8-evicted_kernel_trace.csv", 0, 22}}};

// sq8-decode-attention-rootcause/phase0-pmc-root: one process (564735) writing a kernel trace and
// counters in one invocation (the 530 counter rows carry the trace's own ids and start times). 319
// dispatches: a copyBuffer, then ullm_paged_decode_attn_f32 / split_partial / split_merge 106 times
// each (probe-summary.json: "excludes model layers"): an attention kernel probe, no model.
// Counters: 106 dispatches, ids 2-109, each at its own id (offset 0).
const FolderTruth k_decode_probe{
    "uLLM-project/2026-07-26/sq8-decode-attention-rootcause/phase0-pmc-root",
    {},
    {{"homelab1-WRX80-Creator/564735_agent_info.csv",
      "homelab1-WRX80-Creator/564735_counter_collection.csv",
      "homelab1-WRX80-Creator/564735_kernel_trace.csv"}},
    {{"homelab1-WRX80-Creator/564735_kernel_trace.csv", 1, false, 0, false, 0, 0}},
    {{"homelab1-WRX80-Creator/564735_counter_collection.csv",
      "homelab1-WRX80-Creator/564735_kernel_trace.csv", 0, 106}}};

// sq8_0-attention-optimization-u-v0.1/pmc: four rocprofv3 runs in four folders, four processes:
// probe-derived 1323914, probe-raw-gl2c 1323880, probe-raw-sq 1323859 (each a trace of 16
// ullm_sq8_0_pmc_probe_kernel launches and counters of the same invocation: same ids and start
// times), and target-derived 1330207 (counters only: 160 dispatches of
// ullm_cached_prefix_attn_f32_flash2, ids 1015-67453, a kernel filter on another program).
// Four separate captures; kernel probes, no model.
FolderTruth sq8_0_pmc() {
  const std::string p = "uLLM-project/2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc";
  FolderTruth t{p, {}, {}, {}, {}};
  for (const auto& [dir, pid] :
       std::vector<std::pair<std::string, std::string>>{{"probe-derived", "1323914"},
                                                        {"probe-raw-gl2c", "1323880"},
                                                        {"probe-raw-sq", "1323859"}}) {
    const std::string f = dir + "/data/homelab1-WRX80-Creator/" + pid;
    t.captures.push_back(
        {f + "_agent_info.csv", f + "_counter_collection.csv", f + "_kernel_trace.csv"});
    t.traces.push_back({f + "_kernel_trace.csv", 1, false, 0, false, 0, 0});
    t.counters.push_back({f + "_counter_collection.csv", f + "_kernel_trace.csv", 0, 16});
  }
  t.captures.push_back(
      {"target-derived/data/homelab1-WRX80-Creator/1330207_agent_info.csv",
       "target-derived/data/homelab1-WRX80-Creator/1330207_counter_collection.csv"});
  return t;
}

// gemma4-reader-attribution-v0.1/raw: one process (4108606), ullm-gemma4-resident --mode
// attention-profile --benchmark-prompt-tokens 128 (rocprof-n128.stderr). 24349 dispatches, ids
// 1-24349 consecutive. collections.Counter(n):
//   ullm_paged_decode_attn_f32_kernel 3584 = 28 x 128, ullm_gemma_full_attn_batched_512 7,
//   ullm_paged_kv_write_f32_kernel 1920 = 15 x 128, ullm_matvec_bf16_f32_kernel 1 (the lm head,
//   the very last dispatch), 18013 copyBuffer (the first 1442 dispatches are weight uploads).
// 28 sliding-window layers attending token by token plus 7 full-attention layers: 35 layers, one
// lm head: ONE forward pass over a 128-token prompt. The kv writes come in blocks of 128 starting
//   [b-a for a,b in zip(blocks,blocks[1:])] -> 1050, 1050, 1050, 1050, 410, (3 times)
// apart: 4 sliding layers and 1 full one, 4610 dispatches per 5 layers while the first 15 layers
// write the KV cache (the last 20 share it and launch less): the layers are not alike, no single
// dispatches-per-layer figure holds. Each layer's attention, in id order (a run of
// ullm_paged_decode_attn_f32_kernel launches no more than 4 apart is one sliding layer, S; a
// ullm_gemma_full_attn_batched_512 launch one full layer, F):
//   -> SSSSF SSSSF SSSSF SSSSF SSSSF SSSSF SSSSF (35 layers, 128 paged launches in each S),
//   attention starts 1050, 1050, 1050, 920, 540 apart in layers 1-15 (4610 per SSSSF block, 3
//   blocks) and 534, 534, 534, 532, 24 in layers 16-35 (2158 per block, 4 blocks); matmuls per
//   layer 9 (layers 1-14), 7 (15-34), 6 (35), 4 before layer 1. The host waits after every layer:
//     g=[int(r[i]['Start_Timestamp'])-int(r[i-1]['End_Timestamp']) for i in range(1,len(r))]
//   -> 21-30 ms gaps before a matmul of each layer (ids 2925, 3975, 5025, 6075, ...), 4.7 us
//   median: at period 4610 the best boundary offset (60% quantile of its gaps, 20.7 ms) has 4
//   rivals within 10% of it (20.5, 20.1, 20.1, 19.0 ms), 1050, 1050, 1050 and 410 dispatches
//   apart, one per layer of the block. So the
//   repetition of 4610 is a block of 5 layers of the one forward pass, bounded by host gaps no
//   larger than those after every layer: no step, no generation loop.
const FolderTruth k_gemma_reader{
    "uLLM-project/2026-07-28/gemma4-reader-attribution-v0.1/raw",
    {},
    {{"rocprof-n128/homelab1-WRX80-Creator/4108606_agent_info.csv",
      "rocprof-n128/homelab1-WRX80-Creator/4108606_kernel_trace.csv"}},
    {{"rocprof-n128/homelab1-WRX80-Creator/4108606_kernel_trace.csv", 1, false, 0, true, 35, 0}},
    {}};

// jhinpan/flydsl-kernel-profiling (the first copy of the same project): discover traces of the
// flash_attn_func (45 dispatches, ids 1-45, flash_attn_func_kernel_0 9 times among PyTorch
// kernels) and pa_mqa_logits_fp4 tests (532, ids 1-532), each its own invocation, and the
// agent_info of the `big` and `small` runs (their results.json are no format kprof reads).
// Kernel tests: no model.
FolderTruth flydsl_first() {
  FolderTruth t{"flydsl-kernel-profiling", {}, {}, {}, {}};
  for (const std::string ex : {"flash_attn_func", "pa_mqa_logits_fp4"}) {
    const std::string d = ex + "/compute_viewer/";
    t.captures.push_back({d + "discover_agent_info.csv", d + "discover_domain_stats.csv",
                          d + "discover_kernel_stats.csv", d + "discover_kernel_trace.csv"});
    t.captures.push_back({d + "big_agent_info.csv"});
    t.captures.push_back({d + "small_agent_info.csv"});
    t.traces.push_back({d + "discover_kernel_trace.csv", 1, false, 0, false, 0, 0});
  }
  return t;
}

// ROCm/rocprofiler-sdk source/docs/data: two examples of the documentation, not one run, although
// neither file name has an output prefix to tell them apart:
//   python3 -c "import csv;t=list(csv.DictReader(open('kernel_trace.csv')));
//     c=list(csv.DictReader(open('counter_collection.csv')));
//     f=lambda r,k:{x[k] for x in r};s=lambda r:(min(int(x['Start_Timestamp']) for x in r),
//     max(int(x['End_Timestamp']) for x in r));
//     print(len(t),f(t,'Thread_Id'),f(t,'Agent_Id'),s(t),'Process_Id' in t[0]);
//     print(len(c),f(c,'Process_Id'),f(c,'Thread_Id'),f(c,'Agent_Id'),s(c))"
//   -> 8 {'21228'} {'2'} (2414192765353337, 2414192765784969) False
//      4 {'15606'} {'15606'} {'Agent 1'} (3200098838431081, 3200098838927550)
// The trace has no Process_Id column; its dispatches were launched by thread 21228, the counted
// ones by thread 15606 of pid 15606, on another agent in another notation ("Agent 1" is the ROCm
// 7 form, the bare "2" that of ROCm <= 6.4), 9.1 days (786 * 10^12 ns) after the trace's last
// dispatch ended. One process writes the same thread, agent and times of a dispatch to both files
// (ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp), so these are two captures; a kernel
// test (four arithmetic kernels), no model.
const FolderTruth k_sdk_docs{"rocprofiler-sdk-docs",
                             {},
                             {{"kernel_trace.csv"}, {"counter_collection.csv"}},
                             {{"kernel_trace.csv", 1, false, 0, false, 0, 0}},
                             {}};

// sq8-r9700-attention-phase1-v0.1/decode: two rocprofv3 processes of one workload, the same
// roctx range "ullm.sq8.phase0.decode.steady.v1/repeat=0/cache_start=1028/steps=16" in both
// marker traces: default-trace (pid 1105281: stats, markers, copies; no kernel trace) and pmc
// (pid 1122884: counters of ullm_paged_decode_attn_f32_kernel only, a kernel filter). One
// workload, so its stats and its counter pass may share a run; no trace, nothing to join.
const FolderTruth k_sq8_decode{
    "uLLM-project/2026-07-26/sq8-r9700-attention-phase1-v0.1/decode",
    {},
    {{"default-trace/rocprof/sq8-attention-decode-default_agent_info.csv",
      "default-trace/rocprof/sq8-attention-decode-default_domain_stats.csv",
      "default-trace/rocprof/sq8-attention-decode-default_hip_api_stats.csv",
      "default-trace/rocprof/sq8-attention-decode-default_kernel_stats.csv",
      "default-trace/rocprof/sq8-attention-decode-default_marker_api_stats.csv",
      "default-trace/rocprof/sq8-attention-decode-default_marker_api_trace.csv",
      "default-trace/rocprof/sq8-attention-decode-default_memory_copy_stats.csv",
      "default-trace/rocprof/sq8-attention-decode-default_memory_copy_trace.csv",
      "pmc/rocprof/sq8-attention-decode-pmc_agent_info.csv",
      "pmc/rocprof/sq8-attention-decode-pmc_counter_collection.csv",
      "pmc/rocprof/sq8-attention-decode-pmc_marker_api_trace.csv"}},
    {},
    {}};

std::vector<FolderTruth> all_truths() {
  return {k_unified_viewer,
          k_unified_viewer_counters,
          k_tinygrad,
          rmsnorm("6e14a5f6aebc31c9/flydsl/nimrodmi350", {"1856988", "1858814"}),
          rmsnorm("6e14a5f6aebc31c9/triton/nimrodmi350", {"1857180", "1858978"}),
          rmsnorm("deb3b412a092b3aa/flydsl/nimrodmi350", {"1868395"}),
          rmsnorm("deb3b412a092b3aa/triton/nimrodmi350", {"1868573"}),
          discover("mla_decode"),
          discover("pa"),
          discover("moe_reduce"),
          discover("layernorm"),
          k_aq4,
          k_gemma_reader,
          flydsl_first(),
          k_sdk_docs,
          k_sq8_decode,
          k_component,
          k_decode_probe,
          sq8_0_pmc()};
}

// ---------------------------------------------------------------------------------------------
// kprof's claims.
// ---------------------------------------------------------------------------------------------

struct Claim {
  std::string capture;  // folder, or folder/file for a claim about one trace or counter pass
  std::string key;      // the claim in a short fixed form (not kprof's wording, which may change)
  std::string text;     // kprof's own words
  bool confident = true;
  std::string wrong;  // why the truth contradicts it; empty when it does not
};

// The path of `path` relative to `folder` (files of the truths are named that way).
std::string rel(const fs::path& folder, const std::string& path) {
  return fs::relative(fs::path(path), folder).generic_string();
}

bool summary_flags(const PhaseModel& pm) {
  const std::string s = structure_summary(pm);
  for (const char* w : {"uncertain", "unknown", "low confidence", "confidence low"})
    if (s.find(w) != std::string::npos) return true;
  return false;
}

const Finding* finding(const PhaseModel& pm, Topic t) {
  for (const auto& f : pm.findings)
    if (f.topic == t) return &f;
  return nullptr;
}

// Confident unless flagged: a claim the summary prints is flagged only by the summary itself;
// one printed only as evidence is flagged by confidence low.
bool confident(const PhaseModel& pm, Topic t, bool in_summary) {
  if (in_summary) return !summary_flags(pm);
  const Finding* f = finding(pm, t);
  return !f || f->confidence != Confidence::low;
}

void trace_claims(const std::string& capture, const PhaseModel& pm, const TraceTruth& truth,
                  std::vector<Claim>& out) {
  const std::string summary = structure_summary(pm);
  {
    Claim c{capture, "windows: " + std::to_string(pm.windows.size()), "", true, ""};
    if (const Finding* f = finding(pm, Topic::windows)) c.text = f->claim;
    if (pm.windows.size() != truth.windows)
      c.wrong = "the Dispatch_Ids form " + std::to_string(truth.windows) + " window(s)";
    out.push_back(c);
  }
  if (pm.step_period > 0) {
    Claim c{
        capture,
        "steps: " + std::to_string(pm.whole_steps()) + " x " + std::to_string(pm.step_period) +
            (pm.irregular_steps ? " + " + std::to_string(pm.irregular_steps) + " irregular" : ""),
        summary, confident(pm, Topic::steps, true), ""};
    size_t partial = 0;
    for (const auto& s : pm.steps)
      if (s.phase == Phase::partial) partial += s.end - s.begin;
    if (partial) c.key += " + " + std::to_string(partial) + " partial";
    if (!truth.generation)
      c.wrong = truth.layers ? "one forward pass, not a repeated step"
                             : "a kernel test, no forward pass repeats";
    else if (truth.step_period && truth.step_period != pm.step_period)
      c.wrong = "steps are " + std::to_string(truth.step_period) + " dispatches";
    out.push_back(c);
  }
  for (const auto& n : pm.notes) {
    if (n.text.find("not a generation loop") == std::string::npos) continue;
    Claim c{capture, "not a generation loop", n.line(), true, ""};
    if (truth.generation) c.wrong = "the windows repeat one step per generated token";
    out.push_back(c);
  }
  if (pm.layers > 0) {
    const bool in_summary = pm.step_period > 0;
    Claim c{capture,
            "layers: " + std::to_string(pm.layers) + " x " + std::to_string(pm.layer_period), "",
            confident(pm, Topic::layers, in_summary), ""};
    if (const Finding* f = finding(pm, Topic::layers)) c.text = f->claim;
    // Right when the count is the model's and the layers cover the pass's layer dispatches (a
    // layer period may be a mean: hybrid models' layers differ in length).
    if (truth.layers == 0)
      c.wrong = "no model runs: a kernel test has no layers";
    else if (truth.layers < 0)
      c.wrong = "no whole forward pass is in the trace to count layers in";
    else if (pm.layers != truth.layers ||
             pm.layer_period * static_cast<size_t>(pm.layers) != truth.layer_dispatches)
      c.wrong = std::to_string(truth.layers) + " layers in " +
                std::to_string(truth.layer_dispatches) + " dispatches per pass";
    out.push_back(c);
  }
  if (pm.prefill_steps > 0) {
    Claim c{capture, "prefill: " + std::to_string(pm.prefill_steps), summary,
            confident(pm, Topic::prefill, true), ""};
    if (!truth.prefill) c.wrong = "no prefill pass is in the trace";
    out.push_back(c);
  }
  if (pm.decode_steps > 0) {
    Claim c{capture, "decode: " + std::to_string(pm.decode_steps), summary,
            confident(pm, Topic::decode, true), ""};
    if (!truth.generation) c.wrong = "no generation loop is in the trace";
    out.push_back(c);
  }
}

// Every pair of the join against the truth's offset; counter dispatches with no trace dispatch at
// that offset must stay unmatched.
void join_claims(const std::string& capture, const JoinSummary& s, const JoinResult& r,
                 const CounterTruth& truth, std::vector<Claim>& out) {
  Claim c{capture,
          "join: " + std::to_string(s.matched) + " of " + std::to_string(s.counter_dispatches) +
              " matched (" + std::string(store::to_string(s.method)) + ")",
          join_check_text(s), s.reliable, ""};
  size_t off = 0;
  for (size_t i = 0; i < r.matches.size(); ++i) {
    const JoinMatch m = r.matches[i];
    off += m.trace.dispatch_id != m.counter.dispatch_id + truth.id_offset;
  }
  if (off)
    c.wrong = std::to_string(off) + " of " + std::to_string(r.matches.size()) +
              " pairs break the constant Dispatch_Id offset " + std::to_string(truth.id_offset) +
              " that matches " + std::to_string(truth.mapped) + " exactly";
  out.push_back(c);
}

int truth_group(const FolderTruth& t, const std::string& file) {
  for (size_t g = 0; g < t.captures.size(); ++g)
    if (t.captures[g].count(file)) return static_cast<int>(g);
  return -1;
}

std::vector<Claim> claims_of(const FolderTruth& truth) {
  std::vector<Claim> out;
  const fs::path folder = k_captures / truth.folder;
  test::TempDb tmp("truths");
  exec::IngestRequest req;
  req.db = tmp.path();
  if (truth.inputs.empty()) req.inputs = {folder.string()};
  for (const auto& f : truth.inputs) req.inputs.push_back((folder / f).string());
  const exec::IngestReport report = exec::ingest_capture(req);

  // Ingest: no run may hold files of two separate captures.
  for (const auto& run : report.runs) {
    std::set<int> groups;
    std::set<std::string> files;
    for (const auto& p : run.passes)
      for (const auto& f : p.files) {
        files.insert(rel(folder, f.path));
        const int g = truth_group(truth, rel(folder, f.path));
        if (g < 0)
          ADD_FAILURE() << truth.folder << ": ingested " << rel(folder, f.path)
                        << ", which no capture of the truth lists";
        groups.insert(g);
      }
    std::string names;
    for (const auto& f : files) names += (names.empty() ? "" : " + ") + f;
    Claim c{truth.folder, "run: " + names, "run " + run.name, true, ""};
    if (groups.size() > 1)
      c.wrong = std::to_string(groups.size()) + " separate captures in one run";
    out.push_back(c);
  }

  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  for (const auto& run : report.runs) {
    std::optional<Capture> cap;
    try {
      cap = load_capture(db, run.id);
    } catch (const Error&) {
      continue;  // no trace with dispatches (stats or counters only): no structure to claim
    }
    std::string trace_file;
    std::map<int64_t, std::string> counter_file;  // by pass ordinal
    for (const auto& p : run.passes)
      for (const auto& f : p.files) {
        if (f.kind == "kernel_trace") trace_file = rel(folder, f.path);
        if (f.kind == "counter_collection") counter_file[p.ordinal] = rel(folder, f.path);
      }
    const auto tt = std::find_if(truth.traces.begin(), truth.traces.end(),
                                 [&](const TraceTruth& t) { return t.trace == trace_file; });
    if (tt == truth.traces.end()) {
      ADD_FAILURE() << truth.folder << ": no truth for trace " << trace_file;
      continue;
    }
    trace_claims(truth.folder + "/" + trace_file, detect_phases(cap->trace, &cap->names), *tt, out);
    const ComputedJoins joins = compute_joins(*cap);
    for (const auto& s : joins.summaries) {
      const std::string& cf = counter_file[s.ordinal];
      const auto ct = std::find_if(truth.counters.begin(), truth.counters.end(),
                                   [&](const CounterTruth& t) { return t.counters == cf; });
      if (ct == truth.counters.end() || ct->trace != trace_file) continue;  // a merge: see runs
      join_claims(truth.folder + "/" + cf, s, joins.results.at(s.counter_pass_id), *ct, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The confident claims kprof gets wrong today. Each entry: capture, claim (the key above), truth,
// why kprof says it. A fix removes its entry.
// ---------------------------------------------------------------------------------------------
struct KnownWrong {
  std::string capture, claim, truth, why;
};
// What kprof still claims with confidence and the truth contradicts. The five wrong claims this
// test was written to catch (the llama.cpp prefill's aligned joins, its "3 layers x 140" and its
// "1 x 420 + 708 partial" step, the windowed decode's "not a generation loop", counter-only and
// stats-only captures merged into one run) are fixed, and each fix removed its entry here, as did
// the gemma4 reader's "2 x 4610" steps (a block of 5 layers of one pass) and the
// rocprofiler-sdk docs' two examples read as one run (prefix-less files of two processes). The list
// is empty: a confident claim any truth contradicts fails this test.
const std::vector<KnownWrong> kKnownConfidentWrongClaims = {};

std::string describe(const Claim& c) {
  return c.capture + ": " + c.key + " [" + c.text + "]: " + c.wrong;
}

TEST(RealCaptureTruths, NoConfidentClaimIsWrongBeyondTheKnownList) {
  std::set<std::pair<std::string, std::string>> wrong;
  std::vector<std::string> all;
  for (const auto& truth : all_truths()) {
    SCOPED_TRACE(truth.folder);
    for (const auto& c : claims_of(truth)) {
      all.push_back((c.confident ? "confident " : "flagged   ") + describe(c));
      if (c.confident && !c.wrong.empty()) wrong.insert({c.capture, c.key});
    }
  }
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& k : kKnownConfidentWrongClaims) known.insert({k.capture, k.claim});
  std::string every;
  for (const auto& line : all) every += "\n  " + line;
  for (const auto& w : wrong)
    EXPECT_TRUE(known.count(w)) << "confident and wrong: " << w.first << ": " << w.second
                                << "\nevery claim:" << every;
  for (const auto& k : known)
    EXPECT_TRUE(wrong.count(k)) << "no longer made (or no longer confident): " << k.first << ": "
                                << k.second << ": remove it from kKnownConfidentWrongClaims";
}

// The Dispatch_Id column of a kernel trace, read with a plain line split (not kprof's readers):
// it is the 6th field, and none of the five before it (Kind, Agent_Id, Queue_Id, Stream_Id,
// Thread_Id) holds a comma; rocprofv3 quotes numbers in some releases and not in others.
std::vector<int64_t> dispatch_ids(const fs::path& trace) {
  std::ifstream in(trace);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(
      line.rfind("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\"",
                 0),
      0u)
      << trace;
  std::vector<int64_t> ids;
  while (std::getline(in, line)) {
    size_t b = 0;
    for (int field = 0; field < 5; ++field) b = line.find(',', b) + 1;
    std::string id = line.substr(b, line.find(',', b) - b);
    std::erase(id, '"');
    ids.push_back(std::stoll(id));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The truths themselves, against the files: every file they name exists, and each trace's window
// count is its number of runs of consecutive Dispatch_Ids.
TEST(RealCaptureTruths, TruthsNameRealFilesAndTheirWindows) {
  for (const auto& truth : all_truths()) {
    const fs::path folder = k_captures / truth.folder;
    for (const auto& capture : truth.captures)
      for (const auto& f : capture) EXPECT_TRUE(fs::is_regular_file(folder / f)) << folder / f;
    for (const auto& t : truth.traces) {
      const auto ids = dispatch_ids(folder / t.trace);
      size_t windows = ids.empty() ? 0 : 1;
      for (size_t i = 1; i < ids.size(); ++i) windows += ids[i] != ids[i - 1] + 1;
      EXPECT_EQ(windows, t.windows) << folder / t.trace;
    }
    for (const auto& c : truth.counters) EXPECT_TRUE(fs::is_regular_file(folder / c.counters));
  }
}

}  // namespace
}  // namespace kprof::analysis
