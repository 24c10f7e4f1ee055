// Test-only builder of synthetic dispatch streams with known structure: an LLM-like run of one
// prefill step and N decode steps of L layers, host gaps between steps. Every figure a test asserts
// follows from the parameters here, not from the code under test.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/structure/capture.hpp"

namespace kprof::analysis::test {

struct Kernel {
  std::string name;
  int64_t prefill_grid;  // work-items in x during prefill
  int64_t decode_grid;   // during decode
  int64_t wg = 256;
  int64_t kernel_id_prefill = 0, kernel_id_decode = 0;
};

struct Workload {
  std::vector<Kernel> per_step_head;  // once per step, before the layers
  std::vector<Kernel> per_layer;      // in order, every layer
  std::vector<Kernel> per_step_tail;  // once per step, after the layers
  int layers = 4;
  int decode_steps = 5;
  int64_t kernel_ns = 1000;
  int64_t in_step_gap_ns = 200;
  int64_t step_gap_ns = 50000;
  int64_t pid = 100;
  int64_t agent = 2;
};

inline PassData build(const Workload& w, NameTable& names, int64_t pass_id = 1,
                      int64_t first_dispatch_id = 1) {
  PassData p;
  p.pass_id = pass_id;
  p.kind = store::PassKind::trace;
  int64_t t = 1'000'000, id = first_dispatch_id;
  auto emit = [&](const Kernel& k, bool prefill) {
    Dispatch d;
    d.dispatch_id = id++;
    d.pid = static_cast<int32_t>(w.pid);
    d.start_ns = t;
    d.end_ns = t + w.kernel_ns;
    t = d.end_ns + w.in_step_gap_ns;
    KernelShape s;
    s.name = names.intern(k.name);
    s.kernel_id = prefill ? k.kernel_id_prefill : k.kernel_id_decode;
    s.grid[0] = prefill ? k.prefill_grid : k.decode_grid;
    s.wg[0] = k.wg;
    s.vgpr = 80;
    s.sgpr = 48;
    s.agpr = 0;
    p.add(d, s, w.agent);
  };
  for (int s = 0; s <= w.decode_steps; ++s) {
    const bool prefill = s == 0;
    if (s > 0) t += w.step_gap_ns;
    for (const auto& k : w.per_step_head) emit(k, prefill);
    for (int l = 0; l < w.layers; ++l)
      for (const auto& k : w.per_layer) emit(k, prefill);
    for (const auto& k : w.per_step_tail) emit(k, prefill);
  }
  return p;
}

// Gives `d` (a dispatch of `p`, or one to be added to it) another kernel name, its launch shape
// otherwise unchanged.
inline void rename(PassData& p, Dispatch& d, uint32_t name) {
  KernelShape s = p.shape(d);
  s.name = d.name = name;
  d.shape = p.intern(s);
}

// A Qwen3-MoE-like layer: two fused_moe_kernel launches (gate/up, down) with distinct shapes.
inline Workload moe_like(int layers, int decode_steps) {
  Workload w;
  w.layers = layers;
  w.decode_steps = decode_steps;
  w.per_step_head = {{"embedding_kernel", 4096, 256, 256, 1, 1}};
  w.per_layer = {
      {"void vllm::rms_norm_kernel<c10::BFloat16, 1>(c10::BFloat16*, c10::BFloat16 const*)", 4096,
       256, 256, 2, 2},
      {"Cijk_Alik_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN_1LDSB0_GRVW8", 8192, 512, 256, 3, 3},
      {"kernel_unified_attention_2d", 2048, 128, 256, 4, 4},
      {"void vllm::rms_norm_kernel<c10::BFloat16, 1>(c10::BFloat16*, c10::BFloat16 const*)", 4096,
       256, 256, 2, 2},
      {"topkGatingSoftmax", 1024, 64, 256, 5, 5},
      {"fused_moe_kernel", 98304, 24576, 256, 10, 12},
      {"act_and_mul_kernel", 4096, 512, 256, 6, 6},
      {"fused_moe_kernel", 65536, 16384, 256, 11, 13},
  };
  w.per_step_tail = {{"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_logits", 16384, 1024, 256, 7, 7},
                     {"argmax_kernel", 256, 256, 256, 8, 8}};
  return w;
}

}  // namespace kprof::analysis::test
