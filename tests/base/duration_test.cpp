#include "core/base/duration.hpp"

#include <gtest/gtest.h>

namespace kprof {

using std::chrono::milliseconds;

TEST(DurationTest, Parses) {
  EXPECT_EQ(parse_duration("30m"), milliseconds(1'800'000));
  EXPECT_EQ(parse_duration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(parse_duration("250ms"), milliseconds(250));
  EXPECT_EQ(parse_duration("90"), milliseconds(90'000));
  EXPECT_EQ(parse_duration("1.5s"), milliseconds(1500));
}

TEST(DurationTest, Rejects) {
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_duration("30x"));
  EXPECT_FALSE(parse_duration("m"));
  EXPECT_FALSE(parse_duration("10 m"));
  EXPECT_FALSE(parse_duration("1h30"));
}

// 1000000000000000h is 3.6e21 ms: it used to wrap to a negative count ("must be longer than 0").
TEST(DurationTest, TooLongForMillisecondsIsNotADuration) {
  EXPECT_FALSE(parse_duration("1000000000000000h"));
  EXPECT_FALSE(parse_duration("99999999999999999999999999999999s"));
  EXPECT_EQ(parse_duration_ms("1000000000000000h"), 3.6e21);
  EXPECT_EQ(parse_duration("1000000000000h"), milliseconds(3'600'000'000'000'000'000LL));
}

TEST(DurationTest, Formats) {
  EXPECT_EQ(format_duration(milliseconds(850)), "850ms");
  EXPECT_EQ(format_duration(milliseconds(4200)), "4.2s");
  EXPECT_EQ(format_duration(milliseconds(3723000)), "1h02m03s");
}

}  // namespace kprof
