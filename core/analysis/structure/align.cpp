#include "core/analysis/structure/align.hpp"

#include <algorithm>
#include <cassert>

namespace kprof::analysis {
namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

struct Snake {
  long x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // forward coordinates of the middle snake
  long d = 0;                           // edit distance of the whole sub-problem
};

// Furthest-reaching x per diagonal k in [-r, r], widened as a search reaches more diagonals. The
// search at edit distance d reads and writes diagonals -d-1 .. d+1 only, and d stays small when the
// sequences nearly agree (a counter pass is the trace's kernels with a few extra or missing), so
// the memory follows the edit distance rather than the lengths: arrays of 2(N+M) entries each, as
// before, took 64 MiB at 1M dispatches per side and 640 MiB at 10M (export_bench --counters 1,
// heaptrack). Every entry is written before it is read (Myers 1986, section 4b), so widening keeps
// the values and never needs to clear them.
class Diagonals {
 public:
  void widen(long r) {
    if (r <= m_r) return;
    const long nr = std::max(r, 2 * m_r);
    std::vector<long> v(static_cast<size_t>(2 * nr + 1), 0);
    std::copy(m_v.begin(), m_v.end(), v.begin() + (nr - m_r));
    m_v.swap(v);
    m_r = nr;
  }
  long& operator[](long k) {
    assert(k >= -m_r && k <= m_r);
    return m_v[static_cast<size_t>(k + m_r)];
  }

 private:
  std::vector<long> m_v = std::vector<long>(1, 0);
  long m_r = 0;
};

// `Seq`: a sequence read by index (a span, or a range of a SpillVector); `Emit`: called with each
// matched pair (i, j), in order.
template <class Seq, class Emit>
class Myers {
 public:
  Myers(const Seq& a, size_t na, const Seq& b, size_t nb, Emit& emit)
      : m_a(a), m_b(b), m_na(na), m_nb(nb), m_emit(emit) {}

  void run() { solve(0, static_cast<long>(m_na), 0, static_cast<long>(m_nb)); }

 private:
  // Aligns a[alo, ahi) with b[blo, bhi), appending matches in order.
  void solve(long alo, long ahi, long blo, long bhi) {
    // Common prefix and suffix cost nothing and shrink the search.
    while (alo < ahi && blo < bhi && at(m_a, alo) == at(m_b, blo)) emit(alo++, blo++);
    long suffix = 0;
    while (alo < ahi - suffix && blo < bhi - suffix &&
           at(m_a, ahi - 1 - suffix) == at(m_b, bhi - 1 - suffix))
      ++suffix;
    const long sa = ahi - suffix, sb = bhi - suffix;
    if (alo < sa && blo < sb) {
      const Snake s = middle_snake(alo, sa, blo, sb);
      // After stripping, both sides non-empty and differing at both ends means D >= 2, so each
      // half has a strictly smaller D and the recursion ends.
      assert(s.d >= 2);
      solve(alo, alo + s.x0, blo, blo + s.y0);
      for (long x = s.x0, y = s.y0; x < s.x1; ++x, ++y) emit(alo + x, blo + y);
      solve(alo + s.x1, sa, blo + s.y1, sb);
    }
    for (long k = 0; k < suffix; ++k) emit(sa + k, sb + k);
  }

  static uint32_t at(const Seq& s, long i) { return s[static_cast<size_t>(i)]; }
  void emit(long i, long j) { m_emit(static_cast<size_t>(i), static_cast<size_t>(j)); }

  // Myers section 4b. Coordinates relative to (alo, blo); n, m the sub-problem sizes.
  Snake middle_snake(long alo, long ahi, long blo, long bhi) {
    const long n = ahi - alo, m = bhi - blo;
    const long delta = n - m;
    const bool odd = (delta & 1) != 0;
    const long dmax = (n + m + 1) / 2;
    auto A = [&](long x) { return m_a[static_cast<size_t>(alo + x)]; };
    auto B = [&](long y) { return m_b[static_cast<size_t>(blo + y)]; };
    auto Ar = [&](long x) { return m_a[static_cast<size_t>(ahi - 1 - x)]; };
    auto Br = [&](long y) { return m_b[static_cast<size_t>(bhi - 1 - y)]; };
    Diagonals& vf = m_vf;
    Diagonals& vb = m_vb;
    vf.widen(1);
    vb.widen(1);
    vf[1] = 0;
    vb[1] = 0;
    for (long d = 0; d <= dmax; ++d) {
      vf.widen(d + 1);
      vb.widen(d + 1);
      for (long k = -d; k <= d; k += 2) {
        long x = (k == -d || (k != d && vf[k - 1] < vf[k + 1])) ? vf[k + 1] : vf[k - 1] + 1;
        long y = x - k;
        const long x0 = x, y0 = y;
        while (x < n && y < m && A(x) == B(y)) ++x, ++y;
        vf[k] = x;
        const long kr = delta - k;  // the same diagonal seen from the reverse search
        if (odd && kr >= -(d - 1) && kr <= d - 1 && vf[k] + vb[kr] >= n) {
          return Snake{x0, y0, x, y, 2 * d - 1};
        }
      }
      for (long k = -d; k <= d; k += 2) {
        long x = (k == -d || (k != d && vb[k - 1] < vb[k + 1])) ? vb[k + 1] : vb[k - 1] + 1;
        long y = x - k;
        const long x0 = x, y0 = y;
        while (x < n && y < m && Ar(x) == Br(y)) ++x, ++y;
        vb[k] = x;
        const long kf = delta - k;
        if (!odd && kf >= -d && kf <= d && vb[k] + vf[kf] >= n) {
          return Snake{n - x, m - y, n - x0, m - y0, 2 * d};
        }
      }
    }
    assert(false && "middle snake always exists");
    return Snake{};
  }

  const Seq& m_a;
  const Seq& m_b;
  size_t m_na, m_nb;
  Emit& m_emit;
  Diagonals m_vf, m_vb;
};

// [begin, begin + n) of a spilled sequence, read by index from 0.
struct SpillRange {
  const SpillVector<uint32_t>& v;
  size_t begin;
  uint32_t operator[](size_t i) const { return v[begin + i]; }
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> lcs_pairs(std::span<const uint32_t> a,
                                                     std::span<const uint32_t> b) {
  Pairs out;
  out.reserve(std::min(a.size(), b.size()));
  auto emit = [&](size_t i, size_t j) {
    out.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(j));
  };
  Myers<std::span<const uint32_t>, decltype(emit)>(a, a.size(), b, b.size(), emit).run();
  return out;
}

void lcs_for_each(const SpillVector<uint32_t>& a, size_t a_begin, size_t a_end,
                  const SpillVector<uint32_t>& b, size_t b_begin, size_t b_end,
                  const std::function<void(size_t, size_t)>& emit) {
  const SpillRange ra{a, a_begin}, rb{b, b_begin};
  Myers<SpillRange, const std::function<void(size_t, size_t)>>(ra, a_end - a_begin, rb,
                                                               b_end - b_begin, emit)
      .run();
}

size_t lcs_length_quadratic(std::span<const uint32_t> a, std::span<const uint32_t> b) {
  std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace kprof::analysis
