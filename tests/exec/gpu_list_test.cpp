#include "core/exec/node/gpu_list.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"

namespace kprof::exec {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_gpu_list(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "no error";
}

TEST(GpuList, ReadsIndicesInOrder) {
  EXPECT_EQ(parse_gpu_list("0,1,2,3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_gpu_list(" 7 , 2"), (std::vector<int>{7, 2}));
  EXPECT_EQ(parse_gpu_list("5"), (std::vector<int>{5}));
}

// `kprof resume` used to accept all of these (std::stoi stops at the first non-digit).
TEST(GpuList, RejectsWhatIsNotOneIndexEach) {
  for (const char* bad : {"1x", "-1", "+1", "", "0,,1", "0x1", "1.5", "99999999999"})
    EXPECT_NE(error_of(bad).find("is not a GPU index"), std::string::npos) << bad;
  EXPECT_NE(error_of("0,1,0").find("--gpus: GPU 0 listed twice"), std::string::npos);
}

}  // namespace
}  // namespace kprof::exec
