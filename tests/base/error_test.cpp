#include "core/base/error.hpp"

#include <gtest/gtest.h>

namespace kprof {

TEST(ErrorTest, OneLineWithPositionAndHint) {
  auto e =
      Error::input("unknown key 'comand'", "did you mean 'command'?", SourcePos{"rb.yaml", 4, 3});
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_STREQ(e.what(), "rb.yaml:4:3: unknown key 'comand' (did you mean 'command'?)");
}

TEST(ErrorTest, RuntimeWithoutPosition) {
  auto e = Error::runtime("rocprofv3 not found");
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_STREQ(e.what(), "rocprofv3 not found");
}

TEST(ErrorTest, CaretUnderColumn) {
  Diagnostic d{SourcePos{"f", 2, 5}, "expected a list", "", "key: value"};
  EXPECT_EQ(d.with_context(), "f:2:5: expected a list\n  key: value\n      ^");
}

TEST(ErrorTest, SeveralDiagnosticsJoinByLine) {
  Error e(ErrorKind::input,
          {Diagnostic{SourcePos{"a", 1, 1}, "x", "", ""}, Diagnostic{{}, "y", "z", ""}});
  EXPECT_STREQ(e.what(), "a:1:1: x\ny (z)");
  EXPECT_EQ(e.diagnostics().size(), 2u);
}

}  // namespace kprof
