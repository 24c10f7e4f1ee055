// A small model for the rocprofv3 test double (configs/sim/README.md): four kernels of 50 us, one
// `add` before the region (traced only where the tool has no region switch), then three steps of
// add, sub, mul, div inside it. Every figure simulated.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace kprof::exec::testing {

inline std::string write_region_ops_model(const std::filesystem::path& dir) {
  const std::string src = std::string(KPROF_SOURCE_DIR) + "/configs/sim/";
  const std::string k =
      ", grid: [1048576], gap_ns: 1000, duration_ns: 50000, flops: 1048576, "
      "bytes_read: 8388608, bytes_written: 4194304}\n";
  std::string m =
      "name: region-ops\narch: gfx942\nsystem: " + src +
      "mi300x-node\nstartup_ns: 0\nreruns: {duration_jitter: 0, reorder_probability: 0, "
      "correlation_skip_probability: 0}\ncounter_passes: {stretch: 1, overhead_ns: 0, gap_ns: 0}\n"
      "kernels:\n";
  int id = 17;
  for (const char* n : {"add", "sub", "mul", "div"})
    m += "  - {key: " + std::string(n) + ", kernel_id: " + std::to_string(id++) + ", name: \"" + n +
         "_kernel(float*, int)\", vgpr: 8, sgpr: 16, workgroup: [64, 1, 1]}\n";
  m += "x-blocks:\n  step: &step\n";
  for (const char* n : {"add", "sub", "mul", "div"}) m += "    - {kernel: " + std::string(n) + k;
  m += "sequence:\n  - region: outside\n    sequence:\n      - {kernel: add" + k +
       "  - {repeat: 3, sequence: *step}\n";
  const auto path = dir / "region-ops.yaml";
  std::ofstream(path) << m;
  return path.string();
}

}  // namespace kprof::exec::testing
