// Video fusion, tracking: does a lattice seen in this frame continue a symbol seen in earlier
// frames, and where does its grid lie in that symbol's grid? A candidate must have the same
// polarity and a similar pitch, lie where the symbol was, and its corners must map into the
// track's grid by the track's last homography up to one of the 8 axis choices and a shift of a
// few positions (hand shake). The shift is then chosen by the presence values themselves: at the
// right placement the confident positions agree (DotCode data is masked, so any wrong placement,
// or another symbol, agrees on about half of them). A lattice that agrees too little starts a new
// track: two symbols are never fused.
#include <algorithm>
#include <cmath>

#include "detector/detector_internal.h"
#include "detector/frame_tracks.h"

namespace dc {
namespace fusion {

namespace {

// The tracking rules. Across frames: the hand moves a symbol by up to a few positions between
// frames; at the right placement the confident positions agree on 95% or more, at a wrong one or
// on another symbol on about half (0.8 leaves room for noise and partly washed positions).
// Within a frame the corners of a part lie within a position of where the frame's matched
// lattice puts them, and its overlap with what the track knows is often small (it shows what
// the glare hid before): no clear disagreement is asked, not agreement.
constexpr int kMinOverlap = 16;
// Across frames the shift is searched over 81 placements and several lattices and tracks. On 48
// positions an 80% agreement happens by chance about once in 10^5 comparisons (binomial tail);
// a smaller overlap (a narrow part of a small symbol between glare bands) must agree more (90%
// on at least 24 positions: about once in 10^4) and stand clear of every other shift.
constexpr int kMinOverlapAcross = 24;
constexpr int kSureOverlap = 48;
constexpr float kSmallOverlapAgreement = 0.9f;
constexpr float kRunnerUpMargin = 0.2f;
constexpr int kMaxGap = 16;
constexpr int kMaxSymbolSide = 204;  // 200 positions and a little margin

}  // namespace

MatchRules acrossFrames() {
  MatchRules r;
  r.minOverlap = kMinOverlapAcross;
  return r;
}

MatchRules withinFrame() {
  MatchRules r;
  r.shiftWindow = 1;
  r.maxCornerMisfit = 1.0;
  r.minAgreement = 0.65f;
  r.minOverlap = kMinOverlap;
  r.maxRunnerUp = 1.01f;
  r.trustGeometry = true;
  return r;
}

PointF Homography::map(double x, double y) const {
  const double w = h[6] * x + h[7] * y + h[8];
  const double s = std::abs(w) > 1e-12 ? 1.0 / w : 0.0;
  return PointF{static_cast<float>((h[0] * x + h[1] * y + h[2]) * s), static_cast<float>((h[3] * x + h[4] * y + h[5]) * s)};
}

bool Homography::fromPoints(const PointF src[4], const PointF dst[4]) {
  double M[64], v[8];
  for (int k = 0; k < 4; ++k) {
    const double x = src[k].x, y = src[k].y, u = dst[k].x, w = dst[k].y;
    double* a = &M[(2 * k) * 8];
    double* b = &M[(2 * k + 1) * 8];
    const double ra[8] = {x, y, 1, 0, 0, 0, -u * x, -u * y};
    const double rb[8] = {0, 0, 0, x, y, 1, -w * x, -w * y};
    std::copy(ra, ra + 8, a);
    std::copy(rb, rb + 8, b);
    v[2 * k] = u;
    v[2 * k + 1] = w;
  }
  if (!det::solveLinear(M, v, 8)) return false;
  for (int i = 0; i < 8; ++i)
    if (!std::isfinite(v[i])) return false;
  std::copy(v, v + 8, h);
  h[8] = 1;
  return true;
}

void latticeBox(const SampledLattice& lattice, float& x0, float& y0, float& x1, float& y1) {
  x0 = y0 = 1e30f;
  x1 = y1 = -1e30f;
  for (const PointF& p : lattice.corners) {
    x0 = std::min(x0, p.x);
    y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
}

Match matchTrack(const Track& track, const SampledLattice& lattice, const std::vector<float>& weights, const MatchRules& rules) {
  Match best;
  if (lattice.dark != track.dark || track.pitch <= 0) return best;
  const float ratio = lattice.pitch / track.pitch;
  if (!(ratio > 0.6f && ratio < 1.6f)) return best;
  // near where the track was last seen (its box grown by half its size each way)
  float x0, y0, x1, y1;
  latticeBox(lattice, x0, y0, x1, y1);
  const float gx = 0.5f * (track.x1 - track.x0), gy = 0.5f * (track.y1 - track.y0);
  if (x1 < track.x0 - gx || x0 > track.x1 + gx || y1 < track.y0 - gy || y0 > track.y1 + gy) return best;

  // The lattice's corners in track coordinates, by the track's last homography.
  const int R = lattice.grid.rows - 1, C = lattice.grid.cols - 1;
  const double local[4][2] = {{0, 0}, {0, static_cast<double>(C)}, {static_cast<double>(R), static_cast<double>(C)}, {static_cast<double>(R), 0}};
  double q[4][2];
  for (int k = 0; k < 4; ++k) {
    // (homographies map (col, row) as (x, y))
    const PointF t = track.fromImage.map(lattice.corners[k].x, lattice.corners[k].y);
    q[k][0] = t.y;
    q[k][1] = t.x;
  }
  // The axis choice whose corners fit best after a shift.
  double bestMisfit = 1e30;
  Placement guess;
  for (int s = 0; s < 8; ++s) {
    Placement p;
    p.swap = (s & 4) != 0;
    p.sr = (s & 1) ? -1 : 1;
    p.sc = (s & 2) ? -1 : 1;
    double off[2] = {0, 0}, mapped[4][2];
    for (int k = 0; k < 4; ++k) {
      const double a = p.swap ? local[k][1] : local[k][0], b = p.swap ? local[k][0] : local[k][1];
      mapped[k][0] = p.sr * a;
      mapped[k][1] = p.sc * b;
      off[0] += (q[k][0] - mapped[k][0]) / 4;
      off[1] += (q[k][1] - mapped[k][1]) / 4;
    }
    double misfit = 0;
    for (int k = 0; k < 4; ++k) {
      const double er = q[k][0] - mapped[k][0] - off[0], ec = q[k][1] - mapped[k][1] - off[1];
      misfit += er * er + ec * ec;
    }
    misfit = std::sqrt(misfit / 4);
    if (misfit < bestMisfit) {
      bestMisfit = misfit;
      guess = p;
      guess.dr = static_cast<int>(std::lround(off[0]));
      guess.dc = static_cast<int>(std::lround(off[1]));
    }
  }
  if (!(bestMisfit <= rules.maxCornerMisfit)) {
    return best;
  }

  // The shift, chosen by agreement of the confident positions inside the lattice's dot box.
  const int shiftParity = ((track.parity - lattice.parity) % 2 + 2) % 2;
  float runnerUp = 0;
  // Within a frame a part lies next to what the track covers, across a glare band at most
  // kMaxGap lines wide, and the whole stays within a DotCode's largest size.
  if (rules.trustGeometry) {
    int r0 = track.row0, r1 = track.row0 + track.rows - 1, c0 = track.col0, c1 = track.col0 + track.cols - 1;
    for (const int r : {lattice.boxRow0, lattice.boxRow0 + lattice.boxRows - 1})
      for (const int c : {lattice.boxCol0, lattice.boxCol0 + lattice.boxCols - 1}) {
        int tr, tc;
        guess.apply(r, c, tr, tc);
        if (tr < track.row0 - kMaxGap || tc < track.col0 - kMaxGap || tr >= track.row0 + track.rows + kMaxGap ||
            tc >= track.col0 + track.cols + kMaxGap)
          return best;
        r0 = std::min(r0, tr);
        r1 = std::max(r1, tr);
        c0 = std::min(c0, tc);
        c1 = std::max(c1, tc);
      }
    if (r1 - r0 >= kMaxSymbolSide || c1 - c0 >= kMaxSymbolSide) return best;
  }
  for (int ddr = -rules.shiftWindow; ddr <= rules.shiftWindow; ++ddr)
    for (int ddc = -rules.shiftWindow; ddc <= rules.shiftWindow; ++ddc) {
      Placement p = guess;
      p.dr += ddr;
      p.dc += ddc;
      if ((((p.dr + p.dc) % 2) + 2) % 2 != shiftParity) continue;
      double agree = 0, total = 0;
      int overlap = 0;
      for (int r = lattice.boxRow0; r < lattice.boxRow0 + lattice.boxRows; ++r)
        for (int c = lattice.boxCol0; c < lattice.boxCol0 + lattice.boxCols; ++c) {
          if (((r + c) & 1) != lattice.parity) continue;
          const float w = weights[static_cast<size_t>(r) * lattice.grid.cols + c];
          if (w < 0.2f) continue;
          int tr, tc;
          p.apply(r, c, tr, tc);
          const int ar = tr - track.row0, ac = tc - track.col0;
          if (ar < 0 || ac < 0 || ar >= track.rows || ac >= track.cols) continue;
          const size_t i = static_cast<size_t>(ar) * track.cols + ac;
          const float tw = track.sumW[i];
          if (tw < 0.3f) continue;
          const float tv = track.sumWV[i] / tw;
          if (std::abs(tv - 0.5f) < 0.15f) continue;
          const double k = std::min(w, std::min(1.0f, tw));
          total += k;
          ++overlap;
          if ((tv > 0.5f) == (lattice.grid.value[static_cast<size_t>(r) * lattice.grid.cols + c] > 0.5f)) agree += k;
        }
      if (overlap < rules.minOverlap || total <= 0) continue;
      const float a = static_cast<float>(agree / total);
      if (a > best.agreement) {
        runnerUp = std::max(runnerUp, best.agreement);
        best.agreement = a;
        best.overlap = overlap;
        best.placement = p;
      } else {
        runnerUp = std::max(runnerUp, a);
      }
    }
  best.ok = best.agreement >= rules.minAgreement && runnerUp < rules.maxRunnerUp;
  if (best.ok && !rules.trustGeometry && best.overlap < kSureOverlap)
    best.ok = best.agreement >= kSmallOverlapAgreement && best.agreement - runnerUp >= kRunnerUpMargin;
  if (!best.ok && best.overlap == 0 && rules.trustGeometry && ((((guess.dr + guess.dc) % 2) + 2) % 2) == shiftParity) {
    best.ok = true;  // nothing to compare: the geometry of this frame places it
    best.placement = guess;
    best.agreement = rules.minAgreement;
  }
  return best;
}

}  // namespace fusion
}  // namespace dc
