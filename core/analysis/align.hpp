// Sequence alignment of interned kernel identities: the longest common subsequence of two id
// sequences, found with Myers' O((N+M)D) difference algorithm in its linear-space form (E. W.
// Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1986, section 4b: the
// "middle snake" bisection). D is the number of inserted plus deleted kernels, so two passes of the
// same workload that differ by a few lazy-init or allocator kernels align in near-linear time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace kprof::analysis {

// Matched index pairs (i into a, j into b), strictly increasing in both. The pairs form one longest
// common subsequence; among equally long ones the choice is Myers' (deterministic).
std::vector<std::pair<uint32_t, uint32_t>> lcs_pairs(std::span<const uint32_t> a,
                                                     std::span<const uint32_t> b);

// Length of the LCS by the textbook O(N*M) dynamic programme. Only for tests and tiny inputs: it is
// the independent check that lcs_pairs finds a longest subsequence.
size_t lcs_length_quadratic(std::span<const uint32_t> a, std::span<const uint32_t> b);

}  // namespace kprof::analysis
