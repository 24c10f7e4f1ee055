// analysis::outline_segments on a hand-made phase model whose segment starts go back: the
// segments it makes never start before the one before them and end between their start and the
// next start, so that the phase and step slices the Perfetto export makes of them nest (the
// export's side: PerfettoExport.EnclosingSlicesNestWhenAStepStartsBeforeThePreviousOne).
#include <gtest/gtest.h>

#include <vector>

#include "core/analysis/outline/run_outline.hpp"
#include "tests/analysis/backwards_steps.hpp"

namespace kprof::analysis {
namespace {

TEST(RunOutline, SegmentStartsNeverGoBack) {
  const PhaseModel pm = test::backwards_steps_model();
  const auto segs = outline_segments(pm);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < segs.size(); ++i) {
    EXPECT_LE(segs[i].start_ns, segs[i].end_ns) << i;
    if (i + 1 < segs.size()) {
      EXPECT_LE(segs[i].start_ns, segs[i + 1].start_ns) << i;
      EXPECT_LE(segs[i].end_ns, segs[i + 1].start_ns) << i;
    }
  }
  // The first step from its first start, cut where the second starts: at the first step's start,
  // since the second's first dispatch starts earlier (50) and its segment may not.
  EXPECT_EQ(segs[0].start_ns, 100);
  EXPECT_EQ(segs[0].end_ns, 100);
  EXPECT_EQ(segs[1].start_ns, 100);
  EXPECT_EQ(segs[1].end_ns, 600);  // its dispatches run to 700, cut at the third's start
  EXPECT_EQ(segs[2].start_ns, 600);
  EXPECT_EQ(segs[2].end_ns, 800);
  // What else a segment says is unchanged: first Dispatch_Id, numbered steps, dispatch counts.
  EXPECT_EQ(segs[1].first_id, 3);
  EXPECT_EQ(segs[2].step, 3);
  EXPECT_EQ(segs[1].dispatches, 2);
}

}  // namespace
}  // namespace kprof::analysis
