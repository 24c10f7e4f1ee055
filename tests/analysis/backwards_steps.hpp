// A hand-made phase model whose segment starts go back, shared by the outline's test
// (tests/analysis/outline_test.cpp) and the Perfetto export's (tests/report/perfetto_test.cpp).
// Three decode steps of the main stream in Dispatch_Id order. The second step's first dispatch
// (id 3) was enqueued after the first step's but, on a quieter queue, starts before both of its
// dispatches (50 < 100 and 300): a segment that started at its first dispatch would start before
// the previous one.
#pragma once

#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis::test {

inline PhaseModel backwards_steps_model() {
  auto d = [](int64_t id, int64_t start, int64_t end) {
    Dispatch x;
    x.dispatch_id = id;
    x.start_ns = start;
    x.end_ns = end;
    return x;
  };
  PhaseModel pm;
  for (const Dispatch& x :
       {d(1, 100, 200), d(2, 300, 400), d(3, 50, 700), d(4, 450, 550), d(5, 600, 800)})
    pm.order.push_back(x);
  pm.steps = {{0, 2, Phase::decode, 0}, {2, 4, Phase::decode, 0}, {4, 5, Phase::decode, 0}};
  return pm;
}

}  // namespace kprof::analysis::test
