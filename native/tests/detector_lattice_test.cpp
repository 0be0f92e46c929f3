// Lattice-stage tests on blob lists drawn directly (no image): the basis estimate bins the
// neighbour vectors by direction once and reuses the bins for every pair of histogram peaks it
// tries, so the bins must stay matched with their vectors at every orientation, across the
// histogram's wrap at +-90 degrees too.
#include <cmath>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"

namespace {

// The dots of a DotCode-like lattice: positions with row + col even, about half of them inked,
// rows and columns `pitch` px apart, turned by `degrees`, with a little jitter.
std::vector<dc::det::Blob> lattice(int rows, int cols, float pitch, float degrees, unsigned seed,
                                   std::vector<std::pair<int, int>>& cells) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.06f * pitch, 0.06f * pitch);
  const float th = degrees * 3.14159265f / 180, c = std::cos(th), s = std::sin(th);
  std::vector<dc::det::Blob> blobs;
  cells.clear();
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < cols; ++k) {
      if ((r + k) & 1) continue;
      // the border lines full (a symbol's edges hold dots), the inside about half
      if (r > 0 && k > 0 && r < rows - 1 && k < cols - 1 && rng() % 2) continue;
      const float gx = (k - cols / 2.0f) * pitch, gy = (r - rows / 2.0f) * pitch;
      dc::det::Blob b;
      b.x = 200 + c * gx - s * gy + jitter(rng);
      b.y = 200 + s * gx + c * gy + jitter(rng);
      b.d = 0.7f * pitch;
      b.area = static_cast<int>(b.d * b.d * 0.785f);
      b.w = b.h = static_cast<int>(b.d);
      b.depth = 80;
      blobs.push_back(b);
      cells.push_back({r, k});
    }
  return blobs;
}

}  // namespace

TEST("lattice: the basis is found at every orientation, across the direction histogram's wrap") {
  int fitted = 0, tried = 0;
  for (float degrees = 0; degrees < 180; degrees += 2.5f) {
    std::vector<std::pair<int, int>> cells;
    const std::vector<dc::det::Blob> blobs = lattice(13, 31, 5.0f, degrees, static_cast<unsigned>(degrees * 10), cells);
    dc::det::SpatialIndex index;
    index.build(blobs, 400, 400, 15.0f);
    std::vector<int> cluster(blobs.size());
    for (size_t k = 0; k < blobs.size(); ++k) cluster[k] = static_cast<int>(k);
    std::vector<uint8_t> used(blobs.size(), 0);
    dc::det::LatticeFit fit;
    ++tried;
    if (!dc::det::fitLattice(blobs, index, cluster, used, fit)) continue;
    // every dot grown, at grid positions that differ from the drawn ones by one orientation and
    // offset of the checkerboard (rows and columns may swap and flip)
    CHECK(fit.dots.size() == blobs.size());
    CHECK(std::fabs(fit.pitch - 5.0f) < 0.25f);
    const std::pair<int, int> a = cells[fit.dots[0].blob];
    const int r0 = fit.dots[0].row, c0 = fit.dots[0].col;
    int consistent[8] = {0};
    for (const dc::det::LatticeDot& d : fit.dots) {
      const int dr = cells[d.blob].first - a.first, dk = cells[d.blob].second - a.second;
      const int gr = d.row - r0, gc = d.col - c0;
      const int forms[8][2] = {{dr, dk}, {-dr, dk}, {dr, -dk}, {-dr, -dk}, {dk, dr}, {-dk, dr}, {dk, -dr}, {-dk, -dr}};
      for (int t = 0; t < 8; ++t) consistent[t] += forms[t][0] == gr && forms[t][1] == gc ? 1 : 0;
    }
    int best = 0;
    for (int t = 0; t < 8; ++t) best = std::max(best, consistent[t]);
    CHECK(best == static_cast<int>(fit.dots.size()));
    ++fitted;
  }
  CHECK(fitted == tried);
}

TEST("lattice: grown again with shorter steps, a lattice that ran on into dense noise keeps to its symbol") {
  // A 7 x 40 symbol and, four empty lines below it, a field of stray peaks as dense as the text
  // and glare beside a pack symbol leave: the growth's steps of three diagonals (six lines) reach
  // the field and run on across it; steps of at most two (four lines) do not.
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::vector<std::pair<int, int>> cells;
    const float pitch = 5.0f;
    std::vector<dc::det::Blob> blobs = lattice(7, 40, pitch, 0.0f, seed, cells);
    const size_t symbolDots = blobs.size();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> x(100, 300), y(200 + 7.5f * pitch, 380);
    for (int k = 0; k < 400; ++k) {
      dc::det::Blob b = blobs[0];
      b.x = x(rng);
      b.y = y(rng);
      blobs.push_back(b);
    }
    dc::det::SpatialIndex index;
    index.build(blobs, 400, 400, 15.0f);
    std::vector<int> cluster(symbolDots);
    for (size_t k = 0; k < symbolDots; ++k) cluster[k] = static_cast<int>(k);
    std::vector<uint8_t> used(blobs.size(), 0);
    const std::vector<uint8_t> before = used;
    dc::det::LatticeFit first;
    // (accepted: a lattice of about 40 x 40 lines that holds the field's peaks too)
    CHECK(dc::det::fitLattice(blobs, index, cluster, used, first));
    CHECK(first.farGrown > 0);
    CHECK(first.dots.size() > 2 * symbolDots);
    used = before;
    dc::det::LatticeFit again;
    CHECK(dc::det::regrowLattice(blobs, index, first, used, 2, again));
    CHECK(again.farGrown == 0);
    const int H = again.rowMax - again.rowMin + 1, W = again.colMax - again.colMin + 1;
    CHECK(std::min(H, W) == 7 && std::max(H, W) == 40);
    CHECK(again.dots.size() == symbolDots);
    for (const dc::det::LatticeDot& d : again.dots) CHECK(static_cast<size_t>(d.blob) < symbolDots);
  }
}
