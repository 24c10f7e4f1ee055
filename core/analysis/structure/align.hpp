// Sequence alignment of interned kernel identities: the longest common subsequence of two id
// sequences, found with Myers' O((N+M)D) difference algorithm in its linear-space form (E. W.
// Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1986, section 4b: the
// "middle snake" bisection). D is the number of inserted plus deleted kernels, so two passes of the
// same workload that differ by a few lazy-init or allocator kernels align in near-linear time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "core/base/spill_vector.hpp"

namespace kprof::analysis {

// Matched index pairs (i into a, j into b), strictly increasing in both. The pairs form one longest
// common subsequence; among equally long ones the choice is Myers' (deterministic).
std::vector<std::pair<uint32_t, uint32_t>> lcs_pairs(std::span<const uint32_t> a,
                                                     std::span<const uint32_t> b);

// The same pairs for a[a_begin, a_end) and b[b_begin, b_end) of spilled sequences, handed to
// `emit` in order (indices relative to a_begin and b_begin) instead of collected: the join of a
// pass read from the database. The search reads forward from each sub-problem's start
// and backward from its end, so a few blocks of each sequence serve it.
void lcs_for_each(const SpillVector<uint32_t>& a, size_t a_begin, size_t a_end,
                  const SpillVector<uint32_t>& b, size_t b_begin, size_t b_end,
                  const std::function<void(size_t, size_t)>& emit);

// Length of the LCS by the textbook O(N*M) dynamic programme. Only for tests and tiny inputs: it is
// the independent check that lcs_pairs finds a longest subsequence.
size_t lcs_length_quadratic(std::span<const uint32_t> a, std::span<const uint32_t> b);

}  // namespace kprof::analysis
