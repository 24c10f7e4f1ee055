// SpillVector (core/base/spill_vector.hpp): what is appended is read back, by any index, whether
// it is held in memory or spilled to the temporary file, and a spill file that cannot be made says
// where and what to do.
#include "core/base/spill_vector.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <random>
#include <string>

#include "core/base/error.hpp"

namespace kprof {
namespace {

struct Record {
  int64_t a;
  uint32_t b;
};

TEST(SpillVector, UnboundedIsAVector) {
  SpillVector<uint32_t> v;
  for (uint32_t i = 0; i < 1000; ++i) v.push_back(i * 3);
  EXPECT_FALSE(v.bounded());
  EXPECT_FALSE(v.spilled());
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_EQ(v[999], 2997u);
  EXPECT_EQ(v.slice(10, 13), (std::vector<uint32_t>{30, 33, 36}));
}

TEST(SpillVector, SpilledValuesReadBackInAnyOrderWhileAppending) {
  // 256 bytes: blocks of 2 records, so a read pattern of any shape crosses blocks and evicts.
  SpillVector<Record> v(256);
  std::vector<Record> want;
  std::mt19937_64 rng(7);
  for (uint32_t i = 0; i < 5000; ++i) {
    const Record r{static_cast<int64_t>(rng()), i};
    v.push_back(r);
    want.push_back(r);
    // Reads while the vector grows: the block being appended, and earlier ones from the file.
    const size_t at = rng() % want.size();
    ASSERT_EQ(v[at].a, want[at].a);
    ASSERT_EQ(v[at].b, want[at].b);
  }
  EXPECT_TRUE(v.spilled());
  // A forward scan and a scan that compares with a value one "period" back.
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(v[i].b, want[i].b);
  for (size_t i = 847; i < want.size(); ++i) {
    ASSERT_EQ(v[i].a, want[i].a);
    ASSERT_EQ(v[i - 847].a, want[i - 847].a);
  }
  for (size_t i = want.size(); i-- > 0;) ASSERT_EQ(v[i].a, want[i].a);
  // Moved, it keeps its file and values.
  SpillVector<Record> moved = std::move(v);
  EXPECT_EQ(moved.size(), want.size());
  EXPECT_EQ(moved[1234].b, 1234u);
}

TEST(SpillVector, UnderItsBoundNothingIsWritten) {
  SpillVector<uint64_t> v(size_t{1} << 20);
  for (uint64_t i = 0; i < 100; ++i) v.push_back(i);
  EXPECT_TRUE(v.bounded());
  EXPECT_FALSE(v.spilled());
  EXPECT_EQ(v.back(), 99u);
}

TEST(SpillVector, AFolderWithoutRoomIsNamedWithTheFix) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent/kprof-spill-test", 1);
  SpillVector<uint64_t> v(64);
  try {
    for (uint64_t i = 0; i < 100; ++i) v.push_back(i);
    ADD_FAILURE() << "no spill file can be made there, yet nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    const std::string line = e.diagnostics().at(0).line();
    EXPECT_NE(line.find("/nonexistent/kprof-spill-test"), std::string::npos) << line;
    EXPECT_NE(line.find("TMPDIR"), std::string::npos) << line;
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

}  // namespace
}  // namespace kprof
