// What the Slurm tests share: a scratch folder per test, reading a file whole, and the check that
// skips (or, with KPROF_REQUIRE_SLURM=1 as .ci/run sets, fails) a test that needs the loopback
// cluster (scripts/slurm-loopback, started by the ctest fixture `slurm`) when there is none.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/exec/launch/slurm_client.hpp"

namespace kprof::exec::testing {

inline std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A folder under the temporary directory, unique to this process and object, removed with it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

inline bool cluster_up(std::string& why) {
  const char* conf = std::getenv("SLURM_CONF");
  if (!SlurmClient::installed()) {
    why = "Slurm is not installed (sbatch not on PATH): apt-get install slurm-wlm munge";
  } else if (!conf || !std::filesystem::exists(conf)) {
    why =
        "no loopback cluster (SLURM_CONF unset or missing): run through ctest, whose fixture "
        "slurm_loopback_start starts it (needs root)";
  } else {
    return true;
  }
  return false;
}

}  // namespace kprof::exec::testing

#define REQUIRE_CLUSTER()                                   \
  do {                                                      \
    std::string why;                                        \
    if (!::kprof::exec::testing::cluster_up(why)) {         \
      const char* req = std::getenv("KPROF_REQUIRE_SLURM"); \
      if (req && std::string(req) == "1") FAIL() << why;    \
      GTEST_SKIP() << why;                                  \
    }                                                       \
  } while (0)
