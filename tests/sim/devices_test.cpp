// GPU visibility as ROCm applies it (core/sim/devices.hpp): ROCR_VISIBLE_DEVICES filters,
// HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES) indexes what is left, a list ends at its first
// entry that names no device.
#include "core/sim/devices.hpp"

#include <gtest/gtest.h>

namespace kprof::sim {
namespace {

std::vector<int> seen(const std::map<std::string, std::string>& env, int count = 8) {
  return visible_gpus(env, count, {"GPU-a", "GPU-b", "GPU-c", "GPU-d"}).gpus;
}

TEST(SimVisibility, RocrFiltersHipIndexesTheRest) {
  EXPECT_EQ(seen({}), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(seen({{"ROCR_VISIBLE_DEVICES", "3"}}), (std::vector<int>{3}));
  EXPECT_EQ(seen({{"ROCR_VISIBLE_DEVICES", "3"}, {"HIP_VISIBLE_DEVICES", "0"}}),
            (std::vector<int>{3}));
  // kprof's old --gpus 3: both variables set to 3 leaves nothing (index 3 of one device).
  EXPECT_TRUE(seen({{"ROCR_VISIBLE_DEVICES", "3"}, {"HIP_VISIBLE_DEVICES", "3"}}).empty());
  EXPECT_EQ(seen({{"ROCR_VISIBLE_DEVICES", "0"}, {"HIP_VISIBLE_DEVICES", "0"}}),
            (std::vector<int>{0}));  // why 0 worked by luck
  EXPECT_EQ(seen({{"HIP_VISIBLE_DEVICES", "5,2"}}), (std::vector<int>{5, 2}));
  EXPECT_EQ(seen({{"CUDA_VISIBLE_DEVICES", "6"}}), (std::vector<int>{6}));
  EXPECT_EQ(seen({{"CUDA_VISIBLE_DEVICES", "6"}, {"HIP_VISIBLE_DEVICES", "1"}}),
            (std::vector<int>{1}));  // HIP's own variable wins
  EXPECT_EQ(seen({{"ROCR_VISIBLE_DEVICES", "4,GPU-b,9,1"}}), (std::vector<int>{4, 1}));
  EXPECT_EQ(seen({{"ROCR_VISIBLE_DEVICES", "2,2,5"}}), (std::vector<int>{2, 5}));
  EXPECT_TRUE(seen({{"ROCR_VISIBLE_DEVICES", ""}}).empty());
  EXPECT_TRUE(seen({{"HIP_VISIBLE_DEVICES", "-1"}}).empty());
}

}  // namespace
}  // namespace kprof::sim
