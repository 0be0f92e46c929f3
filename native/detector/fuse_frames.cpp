// Video fusion, fusing: each frame's presence values enter its symbol's track weighted by how sure
// that frame was of each position; the track's fused grid is decoded like any sampled grid.
//
// Weights: a value near 0.5 (the sampler's erasure) carries nothing, a clear 0 or 1 carries
// fully; a position washed out by glare carries nothing (a dark dot under a clipped highlight
// looks empty; a light dot's ground clipped white is glare, sample_grid already makes it an
// erasure). Blur lowers the lattice's contrast, and the driver scales the whole frame by it.
#include <algorithm>
#include <cmath>

#include "detector/detector_internal.h"
#include "detector/frame_tracks.h"
#include "dotcode/grid_orientation.h"

namespace dc {
namespace fusion {

namespace {

// Grey level from which a pixel counts as clipped by glare.
constexpr int kClipped = 250;
// Distance from 0.5 below which a sampled value is worth nothing (inside the decoder's erasure
// margin of 0.15, minus a little), and from which it is worth fully.
constexpr float kNoConfidence = 0.1f;
constexpr float kFullConfidence = 0.45f;
// Fused weight behind a position from which its fused value stands as it is (less: pulled
// towards 0.5, so one weak glimpse is not taken for a sure dot).
constexpr float kSureWeight = 0.6f;
// Largest track grid side (DotCode symbols have at most 200; the rest is margin).
constexpr int kMaxSide = 260;
// Extent hypotheses tried per fused decode.
constexpr size_t kMaxHypotheses = 10;

size_t cellIndex(const Track& t, int row, int col) {
  return static_cast<size_t>(row - t.row0) * t.cols + (col - t.col0);
}

bool inside(const Track& t, int row, int col) {
  return row >= t.row0 && col >= t.col0 && row < t.row0 + t.rows && col < t.col0 + t.cols;
}

// Grows the track's sums to cover [r0, r1] x [c0, c1] (within kMaxSide a side).
void cover(Track& t, int r0, int r1, int c0, int c1) {
  if (t.rows > 0 && inside(t, r0, c0) && inside(t, r1, c1)) return;
  const int nr0 = t.rows > 0 ? std::min(t.row0, r0) : r0, nc0 = t.rows > 0 ? std::min(t.col0, c0) : c0;
  const int nr1 = t.rows > 0 ? std::max(t.row0 + t.rows - 1, r1) : r1, nc1 = t.rows > 0 ? std::max(t.col0 + t.cols - 1, c1) : c1;
  const int rows = nr1 - nr0 + 1, cols = nc1 - nc0 + 1;
  if (rows > kMaxSide || cols > kMaxSide) return;
  std::vector<float> wv(static_cast<size_t>(rows) * cols, 0.0f), w(static_cast<size_t>(rows) * cols, 0.0f);
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < t.cols; ++c) {
      const size_t from = static_cast<size_t>(r) * t.cols + c;
      const size_t to = static_cast<size_t>(r + t.row0 - nr0) * cols + (c + t.col0 - nc0);
      wv[to] = t.sumWV[from];
      w[to] = t.sumW[from];
    }
  t.row0 = nr0;
  t.col0 = nc0;
  t.rows = rows;
  t.cols = cols;
  t.sumWV.swap(wv);
  t.sumW.swap(w);
}

// The symbol's extents to try, most likely first: where the fused grid's sure dots end (every
// edge of a DotCode holds a dot), then one line more or less on a side or two, as the detector's
// own hypotheses (rows + cols must be odd).
void extents(const Track& t, std::vector<Extent>& out) {
  out.clear();
  if (t.lastExtent) out.push_back(*t.lastExtent);
  int r0 = 1 << 30, r1 = -(1 << 30), c0 = 1 << 30, c1 = -(1 << 30);
  for (int r = t.row0; r < t.row0 + t.rows; ++r)
    for (int c = t.col0; c < t.col0 + t.cols; ++c) {
      if (((r + c) & 1) != t.parity || fusedValue(t, r, c) < 0.65f) continue;
      r0 = std::min(r0, r);
      r1 = std::max(r1, r);
      c0 = std::min(c0, c);
      c1 = std::max(c1, c);
    }
  if (r1 < r0) return;
  // What the frames saw on one line of the box: sure dots and sure positions (dot or empty).
  auto line = [&](bool row, int k, int& dots, int& known, int& all) {
    dots = known = all = 0;
    for (int m = row ? c0 : r0; m <= (row ? c1 : r1); ++m) {
      const int r = row ? k : m, c = row ? m : k;
      if (((r + c) & 1) != t.parity) continue;
      ++all;
      const float v = fusedValue(t, r, c);
      if (v >= 0.65f) ++dots;
      if (v >= 0.65f || v <= 0.35f) ++known;
    }
  };
  // The box can hold more than the symbol: the label's edge beyond the quiet zone samples as a
  // line of dots, a glint as a stray one. A DotCode is surrounded by a quiet zone: the band of
  // lines between two runs of at least two lines seen empty that holds the most dots is the symbol.
  auto band = [&](bool row) {
    int& lo = row ? r0 : c0;
    int& hi = row ? r1 : c1;
    int bestLo = lo, bestHi = hi, bestDots = -1, segLo = lo, segDots = 0, empties = 0;
    for (int k = lo; k <= hi + 1; ++k) {
      int dots = 0, known = 0, all = 0;
      if (k <= hi) line(row, k, dots, known, all);
      const bool empty = k > hi || (dots == 0 && known >= 0.4 * all);
      empties = empty ? empties + 1 : 0;
      if (k > hi || empties == 2) {
        const int segHi = k > hi ? hi : k - 2;
        if (segDots > bestDots && segHi >= segLo) {
          bestDots = segDots;
          bestLo = segLo;
          bestHi = segHi;
        }
        segDots = 0;
      }
      if (empty && empties >= 2) segLo = k + 1;
      segDots += dots;
    }
    lo = bestLo;
    hi = bestHi;
  };
  band(true);
  band(false);
  band(true);
  // A stray dot at the box's edge (a glint): lines the frames saw mostly empty are cut off (a
  // DotCode line holds dots at about half of its positions; a line the glare hid is unknown, not
  // empty, and stays).
  auto outside = [&](bool row, int k) {
    int dots, known, all;
    line(row, k, dots, known, all);
    return known >= 0.4 * all && dots <= 0.3 * known;
  };
  for (bool cut = true; cut && r1 - r0 >= 4 && c1 - c0 >= 4;) {
    cut = false;
    if (outside(true, r0)) ++r0, cut = true;
    if (outside(true, r1)) --r1, cut = true;
    if (outside(false, c0)) ++c0, cut = true;
    if (outside(false, c1)) --c1, cut = true;
  }
  auto add = [&](int top, int bottom, int left, int right) {
    const Extent e{r0 - top, r1 - r0 + 1 + top + bottom, c0 - left, c1 - c0 + 1 + left + right};
    if (e.rows < 5 || e.cols < 5 || e.rows > 200 || e.cols > 200 || ((e.rows + e.cols) & 1) == 0) return;
    for (const Extent& x : out)
      if (x.row0 == e.row0 && x.rows == e.rows && x.col0 == e.col0 && x.cols == e.cols) return;
    if (out.size() < kMaxHypotheses) out.push_back(e);
  };
  if (((r1 - r0 + c1 - c0) & 1) == 1) {  // rows + cols odd
    add(0, 0, 0, 0);
    add(1, 0, 1, 0);
    add(1, 0, 0, 1);
    add(0, 1, 1, 0);
    add(0, 1, 0, 1);
  } else {
    add(1, 0, 0, 0);
    add(0, 1, 0, 0);
    add(0, 0, 1, 0);
    add(0, 0, 0, 1);
    add(-1, 0, 0, 0);
    add(0, -1, 0, 0);
  }
}

// Image corners of a decoded extent in the symbol's canonical order TL, TR, BR, BL (landscape,
// as the detector reports them: docs/detector.md "Corners").
void cornersOf(const Track& t, const Extent& e, int orientation, PointF out[4]) {
  GridTransform g;
  g.t = orientation & 7;
  g.inRows = e.rows;
  g.inCols = e.cols;
  const int R = g.rows() - 1, C = g.cols() - 1;
  int canon[4][2] = {{0, 0}, {0, C}, {R, C}, {R, 0}};
  const int shift = R > C ? ((R + 1) % 2 == 1 ? 3 : 1) : 0;
  for (int k = 0; k < 4; ++k) {
    const int* q = canon[(k + shift) % 4];
    const int src = g.sourceIndex(q[0], q[1]);
    const int row = e.row0 + src / e.cols, col = e.col0 + src % e.cols;  // (the source position, whole)
    out[k] = t.toImage.map(col, row);
  }
}

}  // namespace

void positionWeights(const GreyImage& image, const SampledLattice& lattice, const Homography& toImage,
                     std::vector<float>& weights) {
  const int R = lattice.grid.rows, C = lattice.grid.cols;
  const size_t n = static_cast<size_t>(R) * C;
  std::vector<uint8_t> clipped(n, 0);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const PointF p = toImage.map(c, r);
      if (p.x < 0 || p.y < 0 || p.x >= image.width || p.y >= image.height) continue;
      clipped[static_cast<size_t>(r) * C + c] = det::bilinear(image, p.x, p.y, 0) >= kClipped ? 1 : 0;
    }
  weights.assign(n, 0.0f);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const size_t i = static_cast<size_t>(r) * C + c;
      bool washed = lattice.dark && clipped[i];
      if (!lattice.dark)
        for (const int d : {-1, 1}) {
          if (r + d >= 0 && r + d < R && clipped[i + static_cast<size_t>(d) * C]) washed = true;
          if (c + d >= 0 && c + d < C && clipped[i + d]) washed = true;
        }
      if (washed) continue;
      const float sure = (std::abs(lattice.grid.value[i] - 0.5f) - kNoConfidence) / (kFullConfidence - kNoConfidence);
      weights[i] = std::min(1.0f, std::max(0.0f, sure));
    }
}

void addObservation(Track& track, const SampledLattice& lattice, const Placement& placement,
                    const std::vector<float>& weights, float frameWeight, int frame) {
  const int R = lattice.grid.rows, C = lattice.grid.cols;
  int r0 = 1 << 30, r1 = -(1 << 30), c0 = 1 << 30, c1 = -(1 << 30);
  for (const int r : {0, R - 1})
    for (const int c : {0, C - 1}) {
      int tr, tc;
      placement.apply(r, c, tr, tc);
      r0 = std::min(r0, tr);
      r1 = std::max(r1, tr);
      c0 = std::min(c0, tc);
      c1 = std::max(c1, tc);
    }
  cover(track, r0, r1, c0, c1);
  Observation obs;
  obs.frame = frame;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      if (((r + c) & 1) != lattice.parity) continue;
      const size_t i = static_cast<size_t>(r) * C + c;
      const float w = weights[i] * frameWeight;
      if (w <= 0) continue;
      int tr, tc;
      placement.apply(r, c, tr, tc);
      if (!inside(track, tr, tc)) continue;
      const size_t k = cellIndex(track, tr, tc);
      track.sumWV[k] += w * lattice.grid.value[i];
      track.sumW[k] += w;
      obs.row.push_back(tr);
      obs.col.push_back(tc);
      obs.wv.push_back(w * lattice.grid.value[i]);
      obs.w.push_back(w);
    }
  track.observations.push_back(std::move(obs));
}

void forgetOld(Track& track, int frame, int maxFrames) {
  while (!track.observations.empty() &&
         (track.observations.front().frame <= frame - maxFrames || static_cast<int>(track.observations.size()) > 4 * maxFrames)) {
    const Observation& o = track.observations.front();
    for (size_t k = 0; k < o.row.size(); ++k) {
      if (!inside(track, o.row[k], o.col[k])) continue;
      const size_t i = cellIndex(track, o.row[k], o.col[k]);
      track.sumWV[i] = std::max(0.0f, track.sumWV[i] - o.wv[k]);
      track.sumW[i] = std::max(0.0f, track.sumW[i] - o.w[k]);
    }
    track.observations.pop_front();
  }
}

float frameCoverage(const Track& track, const Extent& e, int frame) {
  std::vector<uint8_t> seen(static_cast<size_t>(e.rows) * e.cols, 0);
  for (const Observation& o : track.observations) {
    if (o.frame != frame) continue;
    for (size_t k = 0; k < o.row.size(); ++k) {
      const int r = o.row[k] - e.row0, c = o.col[k] - e.col0;
      if (r >= 0 && c >= 0 && r < e.rows && c < e.cols && o.w[k] > 0) seen[static_cast<size_t>(r) * e.cols + c] = 1;
    }
  }
  int n = 0, all = 0;
  for (int r = 0; r < e.rows; ++r)
    for (int c = 0; c < e.cols; ++c) {
      if (((e.row0 + r + e.col0 + c) & 1) != track.parity) continue;
      ++all;
      n += seen[static_cast<size_t>(r) * e.cols + c];
    }
  return all ? static_cast<float>(n) / static_cast<float>(all) : 0.0f;
}

int framesOf(const Track& track) {
  int frames = 0, last = -1;
  for (const Observation& o : track.observations) {
    if (o.frame != last) ++frames;
    last = o.frame;
  }
  return frames;
}

float fusedValue(const Track& track, int row, int col) {
  if (((row + col) & 1) != track.parity) return 0.0f;  // off the lattice: always empty in a DotCode
  if (!inside(track, row, col)) return 0.5f;           // never seen: an erasure
  const size_t i = cellIndex(track, row, col);
  const float w = track.sumW[i];
  if (w <= 1e-6f) return 0.5f;
  const float mean = std::min(1.0f, std::max(0.0f, track.sumWV[i] / w));
  return 0.5f + (mean - 0.5f) * std::min(1.0f, w / kSureWeight);
}

std::optional<FusedSymbol> decodeTrack(Track& track, int& decodes) {
  if (decodes <= 0) return std::nullopt;
  // A fused grid that changed little since its last failed decode fails again (a dotted texture
  // tracked frame after frame, a symbol the frames have not shown more of): at least 1% of its
  // positions must have turned sure or changed side. A track that read before is always tried.
  std::vector<int8_t> now(track.sumW.size());
  int changed = 0, positions = 0;
  for (int r = 0; r < track.rows; ++r)
    for (int c = 0; c < track.cols; ++c) {
      const int row = track.row0 + r, col = track.col0 + c;
      if (((row + col) & 1) != track.parity) continue;
      const float v = fusedValue(track, row, col);
      const int8_t k = v >= 0.65f ? 1 : v <= 0.35f ? -1
                                                   : 0;
      now[static_cast<size_t>(r) * track.cols + c] = k;
      ++positions;
      const int pr = row - track.lastTriedRow0, pc = col - track.lastTriedCol0;
      const bool known = !track.lastTried.empty() && pr >= 0 && pc >= 0 && pc < track.lastTriedCols &&
          static_cast<size_t>(pr) * track.lastTriedCols + pc < track.lastTried.size();
      if (!known || track.lastTried[static_cast<size_t>(pr) * track.lastTriedCols + pc] != k) ++changed;
    }
  if (!track.hasText && changed < std::max(2, positions / 100)) return std::nullopt;
  std::vector<Extent> hyps;
  extents(track, hyps);
  DotGrid grid;
  for (const Extent& e : hyps) {
    grid.rows = e.rows;
    grid.cols = e.cols;
    grid.value.resize(static_cast<size_t>(e.rows) * e.cols);
    for (int r = 0; r < e.rows; ++r)
      for (int c = 0; c < e.cols; ++c) grid.value[static_cast<size_t>(r) * e.cols + c] = fusedValue(track, e.row0 + r, e.col0 + c);
    if (decodes-- <= 0) return std::nullopt;  // the rest next frame (the grid is not marked as tried)
    std::optional<DotCodeSymbol> sym = decodeDotGrid(grid);
    if (!sym && decodes > 0) {
      // As the detector does: the same grid with hard decisions is one more hypothesis under the
      // decoder's unchanged rules (an erasure costs a check word even where its side was right).
      bool soft = false;
      for (float& v : grid.value)
        if (v > 0.35f && v < 0.65f && v != 0.5f) {
          soft = true;
          v = v > 0.5f ? 1.0f : 0.0f;
        }
      if (soft) {
        --decodes;
        sym = decodeDotGrid(grid);
      }
    }
    if (!sym) continue;
    FusedSymbol out;
    out.symbol = std::move(*sym);
    out.extent = e;
    cornersOf(track, e, out.symbol.orientation, out.corners);
    track.lastExtent = e;
    return out;
  }
  track.lastTried.swap(now);
  track.lastTriedRow0 = track.row0;
  track.lastTriedCol0 = track.col0;
  track.lastTriedCols = track.cols;
  return std::nullopt;
}

}  // namespace fusion
}  // namespace dc
