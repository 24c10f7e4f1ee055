#include "core/sim/counters.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>

namespace kprof::sim {

namespace {

uint64_t mix(uint64_t x) {
  // splitmix64 finalizer: a reproducible per-(dispatch, counter) random stream, independent of the
  // order in which values are asked for.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

double seeded_noise(uint64_t seed, const DispatchRecord& r, const std::string& counter,
                    double rel_sigma) {
  const uint64_t h = mix(seed ^ mix(r.dispatch_id) ^ std::hash<std::string>{}(counter));
  // Sum of uniforms: bell-shaped, bounded at +-2 sigma*sqrt(3), never negative for small sigma.
  const double u = unit(h) + unit(mix(h)) - 1.0;
  return 1.0 + rel_sigma * u * 2.449;
}

// The launch's size in the units the counters count.
struct DispatchShape {
  double threads, wg_threads, workgroups, waves;
  double cycles;  // resident, at the modelled engine clock
  double mops;
};

DispatchShape dispatch_shape(const DispatchRecord& r, const KernelSymbol& s, double clock_mhz) {
  const PlannedDispatch& d = *r.plan;
  DispatchShape sh;
  sh.threads = double(d.grid[0]) * d.grid[1] * d.grid[2];
  sh.wg_threads = double(s.workgroup[0]) * s.workgroup[1] * s.workgroup[2];
  sh.workgroups = std::ceil(sh.threads / sh.wg_threads);
  sh.waves = sh.workgroups * std::ceil(sh.wg_threads / 64.0);  // wave64 on gfx942
  // Cycles the dispatch was resident, at the modelled engine clock.
  sh.cycles = double(r.end - r.start) * clock_mhz / 1000.0;
  sh.mops = d.flops / 512.0;  // FLOPs = 512 x MFMA_MOPS (rocprofiler-compute roofline_calc.py)
  return sh;
}

// Wave and instruction counts: exact (the hardware counts these deterministically), no noise.
std::optional<double> instruction_count(const std::string& n, const PlannedDispatch& d,
                                        const KernelSymbol& s, const DispatchShape& sh) {
  if (n == "SQ_WAVES" || n == "SPI_CSN_WAVE" || n == "TA_TOTAL_WAVEFRONTS") return sh.waves;
  if (n == "SPI_CSN_NUM_THREADGROUPS") return sh.workgroups;
  if (n == "SQ_ITEMS") return sh.threads;
  if (n == "SQ_WAVES_EQ_64") return sh.wg_threads >= 64 ? sh.waves : 0;
  if (n == "SQ_WAVES_LT_64" || n == "SQ_WAVES_LT_48" || n == "SQ_WAVES_LT_32" ||
      n == "SQ_WAVES_LT_16")
    return sh.wg_threads < 64 ? sh.waves : 0;
  if (n.rfind("SQ_INSTS_VALU_MFMA_MOPS_", 0) == 0) {
    const std::string t = n.substr(24);  // BF16, F16, F32, F64, I8, F8
    std::string want = s.mfma;
    for (auto& c : want) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return t == want ? sh.mops : 0;
  }
  if (n.rfind("SQ_INSTS_VALU_MFMA_", 0) == 0) {
    // One 32x32x8 MFMA instruction per wave is 16384 FLOPs = 32 MOPS.
    const std::string t = n.substr(19);
    std::string want = s.mfma;
    for (auto& c : want) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return t == want ? std::round(sh.mops / 32.0) : 0;
  }
  if (n == "SQ_INSTS_MFMA") return s.mfma.empty() ? 0 : std::round(sh.mops / 32.0);
  const double vector_flops = s.mfma.empty() ? d.flops : 0.0;
  // FLOPs of vector kernels are FP32 FMAs: 128 FLOPs per wave instruction (64 lanes x 2).
  if (n == "SQ_INSTS_VALU_FMA_F32") return std::round(vector_flops / 128.0);
  if (n == "SQ_INSTS_VALU_MUL_F32" || n == "SQ_INSTS_VALU_ADD_F32") return std::round(sh.waves * 6);
  if (n.rfind("SQ_INSTS_VALU_", 0) == 0 && (has(n, "F16") || has(n, "F64"))) return 0;
  const double vmem_rd = std::round(d.bytes_read / 1024.0);  // dwordx4 loads: 64 lanes x 16 B
  const double vmem_wr = std::round(d.bytes_written / 1024.0);
  const double valu =
      std::round(sh.waves * 40 + vector_flops / 128.0 + (s.mfma.empty() ? 0 : sh.mops / 32.0));
  const double salu = std::round(sh.waves * 24);
  const double smem = std::round(sh.waves * 6);
  const double lds = s.lds > 0 ? std::round(sh.waves * 32) : 0;
  if (n == "SQ_INSTS_VALU") return valu;
  if (n == "SQ_INSTS_SALU") return salu;
  if (n == "SQ_INSTS_SMEM") return smem;
  if (n == "SQ_INSTS_LDS") return lds;
  if (n == "SQ_INSTS_VMEM_RD") return vmem_rd;
  if (n == "SQ_INSTS_VMEM_WR") return vmem_wr;
  if (n == "SQ_INSTS_VMEM" || n == "SQ_INSTS_FLAT") return vmem_rd + vmem_wr;
  if (n == "SQ_INSTS") return valu + salu + smem + lds + vmem_rd + vmem_wr + sh.waves * 4;

  return std::nullopt;
}

std::optional<double> l2_count(const std::string& n, const DispatchRecord& r, const KernelSymbol& s,
                               uint64_t seed) {
  const PlannedDispatch& d = *r.plan;
  const auto noise = [&](const std::string& c, double rel_sigma) {
    return seeded_noise(seed, r, c, rel_sigma);
  };
  // Memory traffic at the L2/EA boundary. Reads: 60% of bytes in 128 B requests (TCC_BUBBLE on
  // gfx942), 38% in 64 B, 2% in 32 B, so FETCH_SIZE's SDK25 expression
  // (BUBBLE*128 + (RDREQ-BUBBLE-RDREQ_32B)*64 + RDREQ_32B*32)/1024 gives bytes_read/1024 KB.
  // Writes: 95% in 64 B requests, 5% in 32 B, so WRITE_SIZE gives bytes_written/1024 KB.
  const double rd = d.bytes_read * noise("TCC_RD", 0.004);
  const double wr = d.bytes_written * noise("TCC_WR", 0.004);
  const double req128 = std::round(rd * 0.60 / 128.0);
  const double req64 = std::round(rd * 0.38 / 64.0);
  const double req32 = std::round(rd * 0.02 / 32.0);
  const double wr64 = std::round(wr * 0.95 / 64.0);
  const double wr32 = std::round(wr * 0.05 / 32.0);
  if (n == "TCC_BUBBLE") return req128;
  if (n == "TCC_EA0_RDREQ") return req128 + req64 + req32;
  if (n == "TCC_EA0_RDREQ_32B") return req32;
  if (n == "TCC_EA0_WRREQ") return wr64 + wr32;
  if (n == "TCC_EA0_WRREQ_64B") return wr64;
  if (n == "TCC_EA0_WR_UNCACHED_32B") return 0;
  // L2 requests: the misses are the EA requests above; hits follow the kernel's modelled hit rate.
  const double misses = req128 + req64 + req32 + wr64 + wr32;
  const double hit = std::min(0.99, std::max(0.0, s.l2_hit));
  const double hits = std::round(misses * hit / (1.0 - hit));
  if (n == "TCC_MISS") return misses;
  if (n == "TCC_HIT") return hits;
  if (n == "TCC_REQ") return hits + misses;
  if (n == "TCC_READ") return std::round((hits + misses) * rd / std::max(1.0, rd + wr));
  if (n == "TCC_WRITE") return std::round((hits + misses) * wr / std::max(1.0, rd + wr));
  if (n == "TCC_EA0_ATOMIC" || n == "TCC_ATOMIC") return 0;
  return std::nullopt;
}

}  // namespace

CounterRequest resolve_counters(const hw::Target& target, const std::vector<std::string>& names) {
  CounterRequest req;
  for (const auto& n : names) {
    if (target.known(n) || target.kind_of(n) == hw::CounterKind::channel)
      req.found.push_back(n);
    else
      req.missing.push_back(n);
  }
  req.occupancy = target.occupancy(req.found);
  return req;
}

CounterModel::CounterModel(const hw::Target& target, const Model& model, uint64_t seed)
    : m_target(target), m_model(model), m_seed(seed) {}

double CounterModel::noise(const DispatchRecord& r, const std::string& counter,
                           double rel_sigma) const {
  return seeded_noise(m_seed, r, counter, rel_sigma);
}

int CounterModel::values_per_dispatch(const std::string& counter) const {
  const hw::Block* b = m_target.block_of(hw::Event{counter, ""});
  return b ? std::max(1, b->values_per_dispatch) : 1;
}

double CounterModel::base_value(const DispatchRecord& r, const hw::Event& e) const {
  const PlannedDispatch& d = *r.plan;
  const KernelSymbol& s = m_model.symbols[d.symbol];
  const std::string& n = e.counter;
  const DispatchShape sh = dispatch_shape(r, s, m_model.clock_mhz);
  const int vpd = values_per_dispatch(n);

  if (!e.flag.empty()) {
    // accumulate(X, HIGH_RES): the per-cycle level of X integrated over the dispatch.
    return sh.waves * sh.cycles * 0.25 * noise(r, n + e.flag, 0.02);
  }
  if (const auto v = instruction_count(n, d, s, sh)) return *v;
  if (const auto v = l2_count(n, r, s, m_seed)) return *v;

  // Cycle counters, summed over the block's instances (GRBM: one per XCD; SQ: per SE; TCC: per
  // channel). GRBM_GUI_ACTIVE / 8 is then the dispatch's cycle count, as rocprofiler-compute reads
  // it.
  const double per_instance = sh.cycles * vpd;
  if (n == "GRBM_COUNT" || n == "GRBM_GUI_ACTIVE" || n == "SQ_CYCLES" || n == "TCC_CYCLE" ||
      n == "TCA_CYCLE")
    return std::round(per_instance * noise(r, n, 0.002));
  if (n == "SQ_BUSY_CYCLES") return std::round(per_instance * 0.95 * noise(r, n, 0.01));
  if (n == "SQ_BUSY_CU_CYCLES") return std::round(per_instance * 9.5 * 0.9 * noise(r, n, 0.01));
  if (n == "SQ_VALU_MFMA_BUSY_CYCLES") {
    // Busy share of the matrix cores: FLOPs over what the peak would do in the same time.
    const double peak = m_target.peaks().matrix_bf16_flops;
    const double secs = double(r.end - r.start) * 1e-9;
    const double share = peak > 0 && secs > 0 ? std::min(1.0, d.flops / (peak * secs)) : 0.0;
    return std::round(sh.cycles * m_target.peaks().cus * 4 * share * noise(r, n, 0.01));
  }
  // Everything else is not modelled from the workload: a busy/cycle fraction that is stable per
  // counter name, or a small per-wave count. Plausible magnitudes, but no meaning beyond that.
  const double f = 0.2 + 0.7 * unit(mix(std::hash<std::string>{}(n)));
  if (has(n, "STALL")) return std::round(per_instance * 0.05 * f * noise(r, n, 0.02));
  if (has(n, "BUSY") || has(n, "CYCLE") || has(n, "ACTIVE"))
    return std::round(per_instance * f * noise(r, n, 0.01));
  if (has(n, "LEVEL")) return std::round(sh.waves * sh.cycles * 0.1 * f);
  return std::round(sh.waves * 4 * f * noise(r, n, 0.01));
}

std::optional<double> CounterModel::value(const DispatchRecord& r,
                                          const std::string& counter) const {
  const auto fetch = [&](const hw::Event& e) -> std::optional<double> { return base_value(r, e); };
  if (m_target.kind_of(counter) == hw::CounterKind::channel) {
    // X[n] is one of the block's channels: an even share of the summed value, with some spread.
    const auto br = counter.find('[');
    const std::string base = counter.substr(0, br);
    return std::round(base_value(r, hw::Event{base, ""}) / values_per_dispatch(base) *
                      noise(r, counter, 0.05));
  }
  return m_target.evaluate(counter, fetch);
}

}  // namespace kprof::sim
