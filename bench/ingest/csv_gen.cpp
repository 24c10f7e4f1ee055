#include "bench/ingest/csv_gen.hpp"

#include <charconv>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace kprof::bench {

namespace {

std::vector<std::string> kernel_names() {
  std::vector<std::string> names = {
      "__amd_rocclr_copyBuffer",
      "__amd_rocclr_fillBufferAligned",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
      "std::array<char*, 1ul> >(int, at::native::FillFunctor<c10::BFloat16>, std::array<char*, "
      "1ul>)",
      "fused_moe_kernel",
      "void vllm::rms_norm_kernel<c10::BFloat16, 8, 1>(c10::BFloat16*, c10::BFloat16 const*, "
      "c10::BFloat16 const*, float, int, int)",
      "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1",
      "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm<ck::tensor_layout::gemm::RowMajor, "
      "ck::f8_ocp_t, float, 256, 128, 128, 64, 16, 16, 4, 4>, true, "
      "(ck::InMemoryDataOperationEnum)0, "
      "1, (ck::TailNumber)2>(ck::Argument&)",
      "_attn_fwd",
      "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::"
      "BFloat16>(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)",
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<"
      "float>, unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<"
      "float>, unsigned int, long, 4, 4>)",
  };
  return names;
}

class Out {
 public:
  explicit Out(const std::string& path) : m_f(std::fopen(path.c_str(), "wb")) {
    if (!m_f) throw std::runtime_error("cannot write " + path);
    m_buf.reserve(k_cap + 4096);
  }
  ~Out() {
    flush();
    std::fclose(m_f);
  }
  void s(std::string_view v) { m_buf.append(v); }
  void q(std::string_view v) {
    m_buf += '"';
    m_buf.append(v);
    m_buf += '"';
  }
  void i(int64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    m_buf.append(b, r.ptr);
  }
  void c() { m_buf += ','; }
  void end_row() {
    m_buf += '\n';
    if (m_buf.size() >= k_cap) flush();
  }
  // rocprofv3's counter value format (csv.hpp): >= 1 fixed 6 decimals, else scientific 8 digits.
  void value(double v) {
    char b[64];
    int n = v >= 1 ? std::snprintf(b, sizeof b, "%.6f", v) : std::snprintf(b, sizeof b, "%.8e", v);
    m_buf.append(b, static_cast<size_t>(n));
  }
  int64_t bytes() const { return m_written + static_cast<int64_t>(m_buf.size()); }

 private:
  void flush() {
    std::fwrite(m_buf.data(), 1, m_buf.size(), m_f);
    m_written += static_cast<int64_t>(m_buf.size());
    m_buf.clear();
  }
  static constexpr size_t k_cap = size_t{1} << 20;
  std::FILE* m_f;
  std::string m_buf;
  int64_t m_written = 0;
};

}  // namespace

int64_t write_kernel_trace(const std::string& path, int64_t rows, uint64_t seed) {
  const auto names = kernel_names();
  std::mt19937_64 rng(seed);
  Out o(path);
  o.s("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_"
      "Id\","
      "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
      "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
      "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_"
      "Z\"\n");
  int64_t t = 1'550'151'853'029'637;
  for (int64_t i = 1; i <= rows; ++i) {
    const size_t k = static_cast<size_t>(rng() % names.size());
    const int64_t dur = 1000 + static_cast<int64_t>(rng() % 200000);
    o.q("KERNEL_DISPATCH"), o.c(), o.q("Agent 2"), o.c(), o.i(1 + (i & 1)), o.c(), o.i(0), o.c();
    o.i(834304), o.c(), o.i(i), o.c(), o.i(static_cast<int64_t>(k) + 10), o.c(), o.q(names[k]);
    o.c(), o.i(i), o.c(), o.i(t), o.c(), o.i(t + dur), o.c(),
        o.i(static_cast<int64_t>(k % 4) * 4096);
    o.c(), o.i(0), o.c(), o.i(8 + static_cast<int64_t>(k) * 8), o.c(), o.i(k % 3 ? 0 : 64), o.c();
    o.i(16 + static_cast<int64_t>(k)), o.c(), o.i(256), o.c(), o.i(1), o.c(), o.i(1), o.c();
    o.i(256 * static_cast<int64_t>(1 + rng() % 4096)), o.c(), o.i(1 + static_cast<int64_t>(k % 2));
    o.c(), o.i(1);
    o.end_row();
    t += dur + static_cast<int64_t>(rng() % 5000);
  }
  return o.bytes();
}

int64_t write_counter_collection(const std::string& path, int64_t rows, int per_dispatch,
                                 uint64_t seed) {
  const auto names = kernel_names();
  static const char* const k_counters[] = {
      "GRBM_COUNT",           "GRBM_GUI_ACTIVE", "SQ_WAVES",    "SQ_INSTS_VALU",
      "SQ_INSTS_SALU",        "SQ_BUSY_CYCLES",  "TCC_HIT_sum", "TCC_MISS_sum",
      "TCP_TCC_READ_REQ_sum", "FETCH_SIZE",      "WRITE_SIZE",  "OccupancyPercent"};
  const int n_counters = static_cast<int>(sizeof k_counters / sizeof k_counters[0]);
  if (per_dispatch > n_counters) per_dispatch = n_counters;
  std::mt19937_64 rng(seed);
  Out o(path);
  o.s("\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
      "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\","
      "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\","
      "\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n");
  int64_t t = 3'200'098'838'431'081;
  int64_t written = 0;
  for (int64_t d = 1; written < rows; ++d) {
    const size_t k = static_cast<size_t>(rng() % names.size());
    const int64_t dur = 1000 + static_cast<int64_t>(rng() % 200000);
    const int64_t grid = 256 * static_cast<int64_t>(1 + rng() % 4096);
    for (int c = 0; c < per_dispatch && written < rows; ++c, ++written) {
      o.i(d), o.c(), o.i(d), o.c(), o.q("Agent 2"), o.c(), o.i(1), o.c(), o.i(15606), o.c();
      o.i(15606), o.c(), o.i(grid), o.c(), o.i(static_cast<int64_t>(k) + 10), o.c(), o.q(names[k]);
      o.c(), o.i(256), o.c(), o.i(0), o.c(), o.i(0), o.c(), o.i(8), o.c(), o.i(0), o.c(), o.i(16);
      o.c(), o.q(k_counters[c]), o.c();
      o.value(c == n_counters - 1 ? static_cast<double>(rng() % 1000) / 1000.0
                                  : static_cast<double>(rng() % 10'000'000));
      o.c(), o.i(t), o.c(), o.i(t + dur);
      o.end_row();
    }
    t += dur + static_cast<int64_t>(rng() % 5000);
  }
  return o.bytes();
}

}  // namespace kprof::bench
