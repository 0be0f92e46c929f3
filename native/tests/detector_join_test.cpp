// Two lattices of one short wide symbol split by a gap (a washed-out glare band), joined into one
// (joinLattices, join_lattices.cpp). The parts are drawn as the growth would give them: each in its
// own coordinates (its own origin, its rows and columns possibly swapped or counted the other
// way), the symbol seen in perspective so that the pitch changes along it.
#include <cmath>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"

namespace {

constexpr int kRows = 6, kCols = 64;

struct Part {
  dc::det::LatticeFit fit;
  std::vector<std::pair<int, int>> truth;  // each dot's symbol (row, col), in fit.dots order
};

struct Split {
  std::vector<dc::det::Blob> blobs;
  Part left, right;
};

// The symbol's positions of columns [0, gapFrom) and (gapTo, kCols): every one of its checkerboard
// parity inked at random; image point by a homography of tilt `tilt` (the far end smaller).
// The right part's coordinates are its symbol coordinates under `perm` and an offset.
Split draw(int gapFrom, int gapTo, float degrees, float tilt, int perm, unsigned seed, float pitch = 4.0f) {
  std::mt19937 rng(seed);
  Split s;
  const float th = degrees * 3.14159265f / 180, c = std::cos(th), sn = std::sin(th);
  auto at = [&](int r, int k) {
    const float gx = (k - kCols / 2.0f) * pitch, gy = (r - kRows / 2.0f) * pitch;
    const float w = 1.0f + tilt * gx / (kCols * pitch);  // perspective along the long axis
    const float x = gx / w, y = gy / w;
    return dc::PointF{400 + c * x - sn * y, 300 + sn * x + c * y};
  };
  // the right part's own labels: (row, col) -> perm -> + offset
  auto relabel = [&](int r, int k, int& rr, int& kk) {
    const int a = (perm & 4) ? k : r, b = (perm & 4) ? r : k;
    rr = ((perm & 1) ? -a : a) + 17;
    kk = ((perm & 2) ? -b : b) - 9;
  };
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < kCols; ++k) {
      if (((r + k) & 1) || (k >= gapFrom && k <= gapTo) || rng() % 9 < 4) continue;
      const dc::PointF p = at(r, k);
      const int blob = static_cast<int>(s.blobs.size());
      s.blobs.push_back(dc::det::predictedDot(p.x, p.y, 0.6f * pitch, 80));
      Part& part = k < gapFrom ? s.left : s.right;
      int rr = r, kk = k;
      if (&part == &s.right) relabel(r, k, rr, kk);
      part.fit.dots.push_back({blob, rr, kk});
      part.truth.push_back({r, k});
    }
  for (Part* part : {&s.left, &s.right}) {
    dc::det::LatticeFit& f = part->fit;
    f.rowMin = f.colMin = 1 << 20, f.rowMax = f.colMax = -(1 << 20);
    for (const dc::det::LatticeDot& d : f.dots) {
      f.rowMin = std::min(f.rowMin, d.row), f.rowMax = std::max(f.rowMax, d.row);
      f.colMin = std::min(f.colMin, d.col), f.colMax = std::max(f.colMax, d.col);
    }
    f.pitch = pitch;
    f.basisFound = true;
  }
  return s;
}

// Whether a joined lattice puts every dot of both parts where the symbol has it, up to one shift
// of the whole (the joined lattice is in the right part's coordinates).
bool rightJoin(const Split& s, const dc::det::LatticeFit& joined) {
  if (joined.dots.size() != s.left.fit.dots.size() + s.right.fit.dots.size()) return false;
  std::vector<std::pair<int, int>> truth = s.right.truth;
  truth.insert(truth.end(), s.left.truth.begin(), s.left.truth.end());
  // the map from symbol coordinates to joined ones, from the right part's first dot and a second
  // dot of another row and column, must hold for every dot
  const auto& d0 = joined.dots[0];
  for (size_t i = 0; i < joined.dots.size(); ++i) {
    const int dr = truth[i].first - truth[0].first, dk = truth[i].second - truth[0].second;
    const int jr = joined.dots[i].row - d0.row, jk = joined.dots[i].col - d0.col;
    // the relabelling is a signed permutation: |dr| + |dk| is kept, and so is the joined box
    if (std::abs(dr) + std::abs(dk) != std::abs(jr) + std::abs(jk)) return false;
  }
  const int rows = joined.rowMax - joined.rowMin + 1, cols = joined.colMax - joined.colMin + 1;
  return std::min(rows, cols) <= kRows && std::max(rows, cols) <= kCols;
}

}  // namespace

TEST("join: two parts of a short wide symbol either side of a washed-out band join with the right shift") {
  int first = 0, found = 0, tried = 0;
  unsigned seed = 1;
  for (const float degrees : {0.0f, 23.0f, 90.0f, 161.0f, 250.0f})
    for (const float tilt : {0.0f, 0.08f, -0.12f})
      for (const auto& [from, to] : {std::pair<int, int>{18, 30}, {25, 29}, {10, 40}})
        for (const int perm : {0, 3, 5, 6}) {
          const Split s = draw(from, to, degrees, tilt, perm, ++seed);
          std::vector<dc::det::LatticeFit> joined;
          ++tried;
          const bool any = dc::det::joinLattices(s.blobs, s.left.fit, s.blobs, s.right.fit, 0, joined);
          CHECK(any);
          CHECK(joined.size() <= 2);
          for (size_t i = 0; i < joined.size(); ++i)
            if (rightJoin(s, joined[i])) {
              ++found;
              if (i == 0) ++first;
              break;
            }
        }
  std::cerr << "  right shift among the candidates: " << found << " of " << tried << ", first: " << first << "\n";
  CHECK_EQ(found, tried);
  CHECK(first * 10 >= tried * 9);
}

TEST("join: lattices that are not parts of one line of a symbol are not joined") {
  std::vector<dc::det::LatticeFit> joined;
  // the same symbol's parts at different pitches (a lattice of text beside a symbol's part)
  {
    Split a = draw(18, 30, 10, 0, 0, 7, 4.0f);
    const Split b = draw(18, 30, 10, 0, 0, 7, 5.6f);
    // b's right part's blobs appended after a's: the same blob list, as one pass has
    const int base = static_cast<int>(a.blobs.size());
    a.blobs.insert(a.blobs.end(), b.blobs.begin(), b.blobs.end());
    dc::det::LatticeFit other = b.right.fit;
    for (dc::det::LatticeDot& d : other.dots) d.blob += base;
    other.pitch = 5.6f;
    CHECK(!dc::det::joinLattices(a.blobs, other, a.blobs, a.left.fit, 0, joined));
  }
  // a part turned against the other (a texture at another angle)
  {
    Split a = draw(18, 30, 0, 0, 0, 9);
    const Split b = draw(18, 30, 35, 0, 0, 9);
    const int base = static_cast<int>(a.blobs.size());
    a.blobs.insert(a.blobs.end(), b.blobs.begin(), b.blobs.end());
    dc::det::LatticeFit other = b.right.fit;
    for (dc::det::LatticeDot& d : other.dots) d.blob += base;
    CHECK(!dc::det::joinLattices(a.blobs, other, a.blobs, a.left.fit, 0, joined));
  }
  // two rows of print one above the other (the parts side by side across the short axis: the
  // joined lattice would be twice as tall as either)
  {
    Split a = draw(kCols, kCols, 0, 0, 0, 11);  // the whole symbol, one part
    Split b = draw(kCols, kCols, 0, 0, 0, 12);
    const int base = static_cast<int>(a.blobs.size());
    for (dc::det::Blob bl : b.blobs) {
      bl.y += 8 * 4.0f;  // two lines below the first symbol's last
      a.blobs.push_back(bl);
    }
    dc::det::LatticeFit other = b.left.fit;
    for (dc::det::LatticeDot& d : other.dots) d.blob += base, d.row += 30;
    CHECK(!dc::det::joinLattices(a.blobs, other, a.blobs, a.left.fit, 0, joined));
  }
}
