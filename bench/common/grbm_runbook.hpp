// The runbook bench/run_parallel and bench/slurm_parallel time: `sleep S` as the workload under
// the test double, no trace pass, and 10 GRBM counters that the planner packs into several
// counter passes (the GRBM block counts few events at once), so the passes can run in parallel.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace kprof::bench {

inline void write_grbm_runbook(const std::filesystem::path& file, const std::string& name,
                               const std::string& sleep_s, const std::string& sim_model) {
  std::ofstream(file)
      << "schema_version: 1\n"
         "name: "
      << name
      << "\n"
         "workload:\n"
         "  command: [sleep, \""
      << sleep_s
      << "\"]\n"
         "target:\n"
         "  arch: gfx942\n"
         "passes:\n"
         "  trace:\n"
         "    enabled: false\n"
         "  counters:\n"
         "    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, GRBM_CPC_BUSY,\n"
         "               GRBM_CPF_BUSY, GRBM_EA_BUSY, GRBM_SPI_BUSY, GRBM_TA_BUSY,\n"
         "               GRBM_TC_BUSY, GRBM_UTCL2_BUSY]\n"
         "sim:\n"
         "  model: "
      << sim_model << "\n";
}

}  // namespace kprof::bench
