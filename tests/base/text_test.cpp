#include "core/base/text.hpp"

#include <gtest/gtest.h>

#include <cstdio>

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

TEST(TextTest, JsonQuoteKeepsUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(json_quote("6,144 \xc3\x97 k"), "\"6,144 \xc3\x97 k\"");
  EXPECT_EQ(json_quote(std::string("a\xff", 2)), "\"a\xef\xbf\xbd\"");
}

// shell_join's output is what a shell hands back as argv: each case runs /bin/sh and compares.
TEST(TextTest, ShellJoinRoundTripsThroughSh) {
  const std::vector<std::vector<std::string>> cases = {
      {"rocprofv3", "--pmc", "A", "--kernel-include-regex", "gemm|attn", "--", "it's"},
      {"printf", "", "a b", "$HOME", "`x`", "\\", "*", "~", "#c", "x\ny"},
      {"A=B", "c=d"}};
  EXPECT_EQ(shell_join(cases[0]),
            "rocprofv3 --pmc A --kernel-include-regex 'gemm|attn' -- 'it'\\''s'");
  EXPECT_EQ(shell_join(cases[2]), "'A=B' c=d");
  for (const auto& argv : cases) {
    // `set -- LINE; printf '%s\0' "$@"` prints the words the shell split LINE into, NUL-ended.
    const std::string script = "set -- " + shell_join(argv) + "; printf '%s\\0' \"$@\"";
    FILE* p = ::popen(("/bin/sh -c " + shell_quote(script)).c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ASSERT_EQ(::pclose(p), 0);
    std::vector<std::string> words;
    for (size_t at = 0, end; (end = out.find('\0', at)) != std::string::npos; at = end + 1)
      words.push_back(out.substr(at, end - at));
    EXPECT_EQ(words, argv) << shell_join(argv);
  }
}

}  // namespace kprof

TEST(TextTest, InvalidUtf8AtFindsTheFirstBadByte) {
  EXPECT_EQ(kprof::invalid_utf8_at(""), std::string_view::npos);
  EXPECT_EQ(kprof::invalid_utf8_at("void gemm<float>(float*, int)"), std::string_view::npos);
  EXPECT_EQ(kprof::invalid_utf8_at("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            std::string_view::npos);
  EXPECT_EQ(kprof::invalid_utf8_at("bad\xff\xfename"), 3u);
  EXPECT_EQ(kprof::invalid_utf8_at("ab\xc3"), 2u);            // cut off after the lead byte
  EXPECT_EQ(kprof::invalid_utf8_at("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(kprof::invalid_utf8_at("x\xe0\x80\xaf"), 1u);     // overlong, 3 bytes
  EXPECT_EQ(kprof::invalid_utf8_at("\xed\xa0\x80"), 0u);      // a UTF-16 surrogate
  EXPECT_EQ(kprof::invalid_utf8_at("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(kprof::invalid_utf8_at("\xe2\x82x"), 0u);         // a continuation byte missing
  EXPECT_EQ(kprof::invalid_utf8_at("ok\x80"), 2u);            // a stray continuation byte
}
