// analysis::outline_segments on a hand-made phase model whose segment starts go back: the
// segments it makes never start before the one before them and end between their start and the
// next start, so that the phase and step slices the Perfetto export makes of them nest (the
// export's side: PerfettoExport.EnclosingSlicesNestWhenAStepStartsBeforeThePreviousOne).
#include <gtest/gtest.h>

#include <vector>

#include "core/analysis/run_outline.hpp"

namespace kprof::analysis {
namespace {

// Three decode steps of the main stream in Dispatch_Id order. The second step's first dispatch
// (id 3) was enqueued after the first step's but, on a quieter queue, starts before both of its
// dispatches (50 < 100 and 300): a segment that started at its first dispatch would start before
// the previous one.
struct BackwardsModel {
  std::vector<Dispatch> dispatches;
  PhaseModel pm;
  BackwardsModel() {
    auto d = [](int64_t id, int64_t start, int64_t end) {
      Dispatch x;
      x.dispatch_id = id;
      x.start_ns = start;
      x.end_ns = end;
      return x;
    };
    dispatches = {d(1, 100, 200), d(2, 300, 400), d(3, 50, 700), d(4, 450, 550), d(5, 600, 800)};
    for (const auto& x : dispatches) pm.order.push_back(x);
    pm.steps = {{0, 2, Phase::decode, 0}, {2, 4, Phase::decode, 0}, {4, 5, Phase::decode, 0}};
  }
};

TEST(RunOutline, SegmentStartsNeverGoBack) {
  const BackwardsModel m;
  const auto segs = outline_segments(m.pm);
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
