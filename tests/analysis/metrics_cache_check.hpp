// Checks that DispatchMetricsCache (the export's per-dispatch metrics, bound once per sequence of
// counter ids) says of every trace dispatch exactly what dispatch_metrics says: the same values,
// FLOP type and input passes. Used on the simulated capture (gfx942, two counter passes) and on
// every real capture with counters whose arch has a hardware file; today the real ones with
// counters are gfx1201 or their join matches nothing, so the simulated capture is what checks it.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "core/analysis/metrics/metrics.hpp"

namespace kprof::analysis::test {

// The number of dispatches compared that had counters (0 says nothing was checked).
inline size_t expect_cache_matches_dispatch_metrics(const hw::Target& target,
                                                    const JoinedCounters& joined) {
  DispatchMetricsCache cache;
  size_t with_counters = 0;
  for (size_t k = 0; k < joined.by_dispatch.size(); ++k) {
    with_counters += !joined.by_dispatch[k].empty();
    const DispatchMetrics want = dispatch_metrics(target, joined, k);
    const DispatchMetrics got = cache(target, joined, k);
    EXPECT_EQ(got.mfma_flops, want.mfma_flops) << "dispatch " << k;
    EXPECT_EQ(got.valu_flops, want.valu_flops) << "dispatch " << k;
    EXPECT_EQ(got.bytes_read, want.bytes_read) << "dispatch " << k;
    EXPECT_EQ(got.bytes_written, want.bytes_written) << "dispatch " << k;
    EXPECT_EQ(got.dominant_type, want.dominant_type) << "dispatch " << k;
    EXPECT_EQ(got.flop_passes, want.flop_passes) << "dispatch " << k;
    EXPECT_EQ(got.byte_passes, want.byte_passes) << "dispatch " << k;
    if (::testing::Test::HasFailure()) break;  // one dispatch's diff is enough to read
  }
  return with_counters;
}

}  // namespace kprof::analysis::test
