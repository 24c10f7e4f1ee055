#include "core/base/text.hpp"

#include <gtest/gtest.h>

namespace kprof {

TEST(TextTest, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(TextTest, NearestNamesOrdersByDistanceThenName) {
  std::vector<std::string> c{"command", "cwd", "env", "shell", "timeout"};
  EXPECT_EQ(nearest_names("comand", c), (std::vector<std::string>{"command"}));
  EXPECT_EQ(nearest_names("xyzzy-long-name", c), std::vector<std::string>{});
  EXPECT_EQ(nearest_names("TCC_HIT", {"TCC_HIT_sum", "TCC_MISS", "TCC_HIT"}, 2),
            (std::vector<std::string>{"TCC_HIT", "TCC_MISS"}));
}

TEST(TextTest, DidYouMean) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"a"}), "did you mean 'a'?");
  EXPECT_EQ(did_you_mean({"a", "b", "c"}), "did you mean 'a', 'b' or 'c'?");
}

TEST(TextTest, SplitTrimJoin) {
  EXPECT_EQ(split("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(trim("  x y \t"), "x y");
  EXPECT_EQ(join({"a", "b"}, ", "), "a, b");
  EXPECT_TRUE(iequals("Kernel_Name", "kernel_name"));
  EXPECT_TRUE(starts_with_icase("Agent 2", "agent"));
}

}  // namespace kprof

namespace kprof {

TEST(TextTest, JsonQuoteEscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("x\ny\tz\r"), "\"x\\ny\\tz\\r\"");
  EXPECT_EQ(json_quote(std::string("\x01", 1)), "\"\\u0001\"");
  EXPECT_EQ(json_quote("void k<float>(float*, int)"), "\"void k<float>(float*, int)\"");
}

}  // namespace kprof
