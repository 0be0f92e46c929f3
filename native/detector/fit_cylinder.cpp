// Stage 3c: a lattice on a small cylinder, refitted with the cylinder's own geometry.
//
// A symbol wrapped round a vial or a can: along the wrapped axis the columns lie at
// x = c + R sin(phi0 + k dphi) (a near-orthographic view), so towards the silhouette they close
// up to a third of the centre pitch (70 degrees of half arc) and less. The blob growth and the
// line-by-line extension follow that from local fits, and near the edges, where one column step is
// two or three pixels, both drift: a dot gets the label of its neighbour column, the lattice looks
// one or two columns narrower than the symbol, and the decoder gets a grid shifted by a column
// along its edges. Here one model for the whole symbol is fitted instead:
//
//   p(k, j) = o + a sin(u) + d (cos(u) - 1) + b j,   u = (k - kc) dphi,
//
// with k the index along the wrapped axis, j across it; the phase of the centre column and the
// view's tilt and rotation are absorbed by the free image vectors o, a, d, b (sin(phi0 + u) and
// cos(phi0 + u) are combinations of sin u and cos u), so one parameter, dphi, is searched and the
// rest is linear least squares. The model is fitted on the middle of the grown lattice, every dot
// is relabelled to the model's nearest position (or dropped), and the lines beyond the lattice are
// searched at the model's positions, whose pitch keeps shrinking as the cylinder's does, up to the
// quiet zone or the silhouette. Run only on lattices that did not decode.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"

namespace dc {
namespace det {

// Basis functions scaled by dphi so that dphi -> 0 (a flat print) stays well conditioned:
// sin(u)/dphi -> (k - kc), (cos(u) - 1)/dphi^2 -> -(k - kc)^2 / 2.
void CylinderWrap::basis(double k, double j, double kc, double dphi, double f[4]) {
  const double t = k - kc;
  if (dphi < 1e-4) {
    f[1] = t;
    f[2] = -0.5 * t * t;
  } else {
    const double u = t * dphi;
    f[1] = std::sin(u) / dphi;
    f[2] = (std::cos(u) - 1) / (dphi * dphi);
  }
  f[0] = 1;
  f[3] = j;
}

PointF CylinderWrap::at(double k, double j) const {
  double f[4];
  basis(k, j, kc, dphi, f);
  double x = 0, y = 0, w = 1;
  for (int i = 0; i < 4; ++i) x += ax[i] * f[i], y += ay[i] * f[i];
  for (int i = 0; i < 3; ++i) w += persp[i] * f[i + 1];
  if (std::fabs(w) < 1e-6) w = 1e-6;
  return {static_cast<float>(mx + x / w), static_cast<float>(my + y / w)};
}

namespace {

// One step along k at k (central difference), and one step across.
PointF stepK(const CylinderWrap& m, double k, double j) {
  const PointF a = m.at(k + 0.5, j), b = m.at(k - 0.5, j);
  return {a.x - b.x, a.y - b.y};
}
PointF stepJ(const CylinderWrap& m, double k, double j) {
  const PointF a = m.at(k, j + 0.5), b = m.at(k, j - 0.5);
  return {a.x - b.x, a.y - b.y};
}

struct ModelPoint {
  double k, j, x, y, w;
};

// Weighted least squares of the linear part for a given dphi; returns the weighted mean squared
// misfit (pixels^2), or a negative value when singular.
double fitLinear(const std::vector<ModelPoint>& pts, CylinderWrap& m) {
  // Linear in the 11 unknowns once multiplied out: a . f - x (e . g) = x, b . f - y (e . g) = y
  // (image coordinates taken about the centroid, so the system stays well conditioned).
  constexpr int kN = 11;
  double S[kN * kN] = {0}, v[kN] = {0}, wsum = 0, mx = 0, my = 0;
  for (const ModelPoint& p : pts) mx += p.w * p.x, my += p.w * p.y, wsum += p.w;
  if (wsum <= 0) return -1;
  mx /= wsum;
  my /= wsum;
  // sin and cos per line, not per dot (the lattice's k are integers)
  double kLo = 1e9, kHi = -1e9;
  for (const ModelPoint& p : pts) kLo = std::min(kLo, p.k), kHi = std::max(kHi, p.k);
  std::vector<double> f1(static_cast<size_t>(kHi - kLo) + 1), f2(f1.size());
  for (size_t i = 0; i < f1.size(); ++i) {
    double f[4];
    CylinderWrap::basis(kLo + static_cast<double>(i), 0, m.kc, m.dphi, f);
    f1[i] = f[1];
    f2[i] = f[2];
  }
  auto basisOf = [&](const ModelPoint& p, double f[4]) {
    const size_t i = static_cast<size_t>(p.k - kLo);
    f[0] = 1, f[1] = f1[i], f[2] = f2[i], f[3] = p.j;
  };
  // The normal matrix by blocks (rx = (f, 0, -x g), ry = (0, f, -y g), g = f[1..3]): the f f'
  // block is shared by x and y, so each dot costs a few dozen products instead of 2 x 121.
  double A[16] = {0}, Bx[12] = {0}, By[12] = {0}, C[9] = {0}, fx[4] = {0}, fy[4] = {0}, gr[3] = {0};
  for (const ModelPoint& p : pts) {
    if (p.w <= 0) continue;
    double f[4];
    basisOf(p, f);
    const double x = p.x - mx, y = p.y - my, r2 = x * x + y * y, w = p.w;
    for (int a = 0; a < 4; ++a) {
      const double wf = w * f[a];
      for (int b = a; b < 4; ++b) A[a * 4 + b] += wf * f[b];
      for (int b = 0; b < 3; ++b) Bx[a * 3 + b] -= wf * x * f[b + 1], By[a * 3 + b] -= wf * y * f[b + 1];
      fx[a] += wf * x;
      fy[a] += wf * y;
    }
    for (int a = 0; a < 3; ++a) {
      for (int b = a; b < 3; ++b) C[a * 3 + b] += w * r2 * f[a + 1] * f[b + 1];
      gr[a] -= w * r2 * f[a + 1];
    }
  }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < a; ++b) A[a * 4 + b] = A[b * 4 + a];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < a; ++b) C[a * 3 + b] = C[b * 3 + a];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) S[a * kN + b] = S[(a + 4) * kN + b + 4] = A[a * 4 + b];
    for (int b = 0; b < 3; ++b) {
      S[a * kN + 8 + b] = S[(8 + b) * kN + a] = Bx[a * 3 + b];
      S[(a + 4) * kN + 8 + b] = S[(8 + b) * kN + a + 4] = By[a * 3 + b];
    }
    v[a] = fx[a];
    v[a + 4] = fy[a];
  }
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) S[(8 + a) * kN + 8 + b] = C[a * 3 + b];
    v[8 + a] = gr[a];
  }
  if (!solveLinear(S, v, kN)) return -1;
  std::copy(v, v + 4, m.ax);
  std::copy(v + 4, v + 8, m.ay);
  std::copy(v + 8, v + 11, m.persp);
  m.mx = mx;
  m.my = my;
  double err = 0;
  for (const ModelPoint& p : pts) {
    if (p.w <= 0) continue;
    double f[4];
    basisOf(p, f);
    double x = 0, y = 0, w = 1;
    for (int i = 0; i < 4; ++i) x += m.ax[i] * f[i], y += m.ay[i] * f[i];
    for (int i = 0; i < 3; ++i) w += m.persp[i] * f[i + 1];
    if (std::fabs(w) < 1e-6) w = 1e-6;
    const double ex = mx + x / w - p.x, ey = my + y / w - p.y;
    err += p.w * (ex * ex + ey * ey);
  }
  return err / wsum;
}

// Solves the symmetric positive 4 x 4 system S a = b for two right-hand sides at once (x and y
// share their normal matrix), by Cholesky; false when S is singular.
bool solveTwo4(const double S[16], double a[4], double b[4]) {
  double L[16] = {0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j <= i; ++j) {
      double v = S[i * 4 + j];
      for (int k = 0; k < j; ++k) v -= L[i * 4 + k] * L[j * 4 + k];
      if (i == j) {
        if (v <= 1e-12) return false;
        L[i * 4 + i] = std::sqrt(v);
      } else {
        L[i * 4 + j] = v / L[j * 4 + j];
      }
    }
  for (double* r : {a, b}) {
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < i; ++k) r[i] -= L[i * 4 + k] * r[k];
      r[i] /= L[i * 4 + i];
    }
    for (int i = 3; i >= 0; --i) {
      for (int k = i + 1; k < 4; ++k) r[i] -= L[k * 4 + i] * r[k];
      r[i] /= L[i * 4 + i];
    }
  }
  return true;
}

// The orthographic model's squared misfit for one dphi, from per-line moments (the basis depends
// on k only through sin and cos, so the normal equations sum over the lines, not the dots: the
// search over dphi costs a few dozen operations per line and value).
struct LineMoments {
  double k = 0, n = 0, sj = 0, sjj = 0, sx = 0, sy = 0, sxj = 0, syj = 0, sxx = 0, syy = 0;
};

double orthoMisfit(const std::vector<LineMoments>& lines, double kc, double dphi, double* coefX = nullptr,
                   double* coefY = nullptr) {
  double S[16] = {0}, bx[4] = {0}, by[4] = {0}, sxx = 0, syy = 0, n = 0;
  for (const LineMoments& l : lines) {
    double f[4];
    CylinderWrap::basis(l.k, 0, kc, dphi, f);
    const double f1 = f[1], f2 = f[2];
    const double row0[4] = {l.n, l.n * f1, l.n * f2, l.sj};
    const double row1[4] = {l.n * f1, l.n * f1 * f1, l.n * f1 * f2, f1 * l.sj};
    const double row2[4] = {l.n * f2, l.n * f1 * f2, l.n * f2 * f2, f2 * l.sj};
    const double row3[4] = {l.sj, f1 * l.sj, f2 * l.sj, l.sjj};
    for (int c = 0; c < 4; ++c) S[c] += row0[c], S[4 + c] += row1[c], S[8 + c] += row2[c], S[12 + c] += row3[c];
    bx[0] += l.sx, bx[1] += f1 * l.sx, bx[2] += f2 * l.sx, bx[3] += l.sxj;
    by[0] += l.sy, by[1] += f1 * l.sy, by[2] += f2 * l.sy, by[3] += l.syj;
    sxx += l.sxx, syy += l.syy, n += l.n;
  }
  if (n <= 0) return -1;
  double ax[4], ay[4];
  std::copy(bx, bx + 4, ax);
  std::copy(by, by + 4, ay);
  if (!solveTwo4(S, ax, ay)) return -1;
  if (coefX) std::copy(ax, ax + 4, coefX);
  if (coefY) std::copy(ay, ay + 4, coefY);
  // least squares: residual sum = sum x^2 - a . (sum f x)
  double rss = sxx + syy;
  for (int i = 0; i < 4; ++i) rss -= ax[i] * bx[i] + ay[i] * by[i];
  return std::max(0.0, rss) / n;
}

// The orthographic model (no perspective) of the weighted dots: dphi searched on a coarse grid
// and two finer rounds around the best. Cheap (per-line moments), so every lattice that did not
// read can afford it; the perspective follows only for those that look wrapped.
double fitOrtho(const std::vector<ModelPoint>& pts, double maxDphi, CylinderWrap& m, int rounds = 3) {
  // image coordinates about the centroid (no cancellation in sum x^2)
  double mx = 0, my = 0, wsum = 0;
  for (const ModelPoint& p : pts) mx += p.w * p.x, my += p.w * p.y, wsum += p.w;
  if (wsum <= 0) return -1;
  mx /= wsum;
  my /= wsum;
  std::vector<LineMoments> lines;
  for (const ModelPoint& p : pts) {
    if (p.w <= 0) continue;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const LineMoments& l) { return l.k == p.k; });
    if (it == lines.end()) {
      lines.emplace_back();
      it = lines.end() - 1;
      it->k = p.k;
    }
    const double x = p.x - mx, y = p.y - my;
    it->n += p.w, it->sj += p.w * p.j, it->sjj += p.w * p.j * p.j, it->sx += p.w * x, it->sy += p.w * y;
    it->sxj += p.w * x * p.j, it->syj += p.w * y * p.j, it->sxx += p.w * x * x, it->syy += p.w * y * y;
  }
  double best = -1, bestD = 0, lo = 0, hi = maxDphi;
  for (int round = 0; round < (maxDphi > 0 ? rounds : 0); ++round) {
    const int steps = round == 0 ? 16 : 6;
    for (int s = 0; s <= steps; ++s) {
      const double d = lo + (hi - lo) * s / steps;
      const double e = orthoMisfit(lines, m.kc, d);
      if (e >= 0 && (best < 0 || e < best)) best = e, bestD = d;
    }
    const double w = (hi - lo) / steps;
    lo = std::max(0.0, bestD - w);
    hi = std::min(maxDphi, bestD + w);
  }
  if (maxDphi > 0 && best < 0) return -1;
  m.dphi = bestD;
  m.mx = mx;
  m.my = my;
  std::fill(m.persp, m.persp + 3, 0.0);
  return orthoMisfit(lines, m.kc, bestD, m.ax, m.ay);
}

// The model with the camera's perspective, dphi searched within `range` of m's (the perspective
// moves it: the far side of the cylinder is smaller too), in three rounds of finer steps.
double fitPerspective(const std::vector<ModelPoint>& pts, double maxDphi, double range, CylinderWrap& m, int rounds = 3) {
  double best = -1, lo = std::max(0.0, m.dphi - range), hi = std::min(maxDphi, m.dphi + range);
  CylinderWrap chosen = m;
  for (int round = 0; round < rounds; ++round) {
    constexpr int kSteps = 8;
    for (int s = 0; s <= kSteps; ++s) {
      CylinderWrap t = m;
      t.dphi = lo + (hi - lo) * s / kSteps;
      const double e = fitLinear(pts, t);
      if (e >= 0 && (best < 0 || e < best)) best = e, chosen = t;
    }
    const double w = (hi - lo) / kSteps;
    lo = std::max(0.0, chosen.dphi - w);
    hi = std::min(maxDphi, chosen.dphi + w);
  }
  if (best < 0) return -1;
  m = chosen;
  return best;
}

// Weights 1 for the dots within 3 typical misfits of the model (at least 0.8 px), 0 for the rest:
// mislabelled edge dots lie a column step off, the others within a fraction of a pixel.
void trimOutliers(std::vector<ModelPoint>& pts, const CylinderWrap& m) {
  std::vector<float> res(pts.size());
  for (size_t n = 0; n < pts.size(); ++n) {
    const PointF q = m.at(pts[n].k, pts[n].j);
    res[n] = std::hypot(q.x - static_cast<float>(pts[n].x), q.y - static_cast<float>(pts[n].y));
  }
  std::vector<float> sorted = res;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const float tol = std::max(0.8f, 3.0f * sorted[sorted.size() / 2]);
  for (size_t n = 0; n < pts.size(); ++n) pts[n].w = res[n] <= tol ? 1.0 : 0.0;
}

constexpr float kDotScore = 0.6f;  // share of the lattice's dot contrast a found dot must reach
// ... on a line whose columns lie closer than kCompressedShare of the middle's and whose levels
// split in two (by a gap of kLevelGap of the contrast), at least kMinDotScore on the dark side
constexpr float kCompressedShare = 0.75f;
constexpr float kMinDotScore = 0.3f;
constexpr float kLevelGap = 0.2f;
constexpr int kQuietLines = 3;          // empty lines that end the symbol (its quiet zone)
constexpr float kMinColumnStep = 0.8f;  // pixels: closer columns are the silhouette, not readable
// Root mean misfit of the orthographic model, in pitches, beyond which a lattice is not taken for
// a wrapped one (a near camera leaves up to a quarter pitch, half a pitch or a little more when it
// is also pitched along the axis: the lines along it converge, which only the perspective model
// fits, and which the perspective fit must then explain within 0.2 pitch; decoys of empty frames
// miss more). At 0.5, 3 of 36 small-module vials seen from 4-4.5 radii, pitched 11-13 degrees,
// stopped here (the native test of near, pitched cylinders; cylinder-small 45 of the read-rate
// bench at 0.53, whose perspective fit then leaves 0.1 pitch); 0.75 reads no more of 700 renders.
constexpr double kMaxOrthoMisfit = 0.6;
constexpr double kMinFlatMisfitOrtho = 1.1;  // the same for the orthographic models, before the perspective
constexpr double kMinFlatMisfit = 1.5;       // a flat print's misfit (squared) over the wrap's, at least
constexpr double kMinHalfArc = 0.3;          // radians the grown lattice must span either side to be worth it

}  // namespace

bool fitCylinderLattice(const GreyImage& img, bool dark, std::vector<Blob>& blobs, LatticeFit& fit, CylinderWrap& wrap) {
  if (fit.dots.size() < 30 || fit.pitch < 2.0f) return false;
  const uint8_t xm = dark ? 0 : 0xFF;
  const int parity = (fit.dots[0].row + fit.dots[0].col) & 1;
  CylinderWrap best;
  double bestErr = -1;
  std::vector<ModelPoint> pts;
  // The wrapped axis is whichever of the two the model fits better.
  for (int axis = 0; axis < 2; ++axis) {
    CylinderWrap m;
    m.alongCols = axis == 0;
    const int kMin = m.alongCols ? fit.colMin : fit.rowMin, kMax = m.alongCols ? fit.colMax : fit.rowMax;
    const int span = kMax - kMin;
    if (span < 6) continue;
    m.kc = 0.5 * (kMin + kMax);
    pts.clear();
    for (const LatticeDot& d : fit.dots) {
      const double k = m.alongCols ? d.col : d.row, j = m.alongCols ? d.row : d.col;
      // The middle first: the edge dots are the ones whose labels may be wrong.
      const double w = std::fabs(k - m.kc) <= 0.25 * span ? 1.0 : 0.0;
      pts.push_back({k, j, blobs[d.blob].x, blobs[d.blob].y, w});
    }
    const double maxDphi = 3.0 / span;  // (the grown lattice spans at most about 170 degrees)
    double e = fitOrtho(pts, maxDphi, m, 1);
    // (the middle alone, on the coarse steps, already shows whether the lattice bends: most
    // decoys end here)
    if (e < 0 || m.dphi * span / 2 < 0.5 * kMinHalfArc || e > 4 * kMaxOrthoMisfit * kMaxOrthoMisfit * fit.pitch * fit.pitch)
      continue;
    for (int round = 0; round < 2 && e >= 0; ++round) {
      trimOutliers(pts, m);
      e = fitOrtho(pts, maxDphi, m, 2);
    }
    if (e < 0) continue;
    // Most lattices that did not read are not wrapped (decoys of an empty frame, flat prints
    // that failed elsewhere): the orthographic model already shows it, at little cost.
    CylinderWrap flat = m;
    double eFlat = fitOrtho(pts, 0, flat);
    DBG("cylinder axis %d: %zu dots pitch %.1f orthographic dphi %.3f half arc %.2f rms %.2f px, flat %.2f px\n", axis, fit.dots.size(), fit.pitch, m.dphi,
        m.dphi * span / 2, std::sqrt(e), std::sqrt(std::max(0.0, eFlat)));
    if (m.dphi * span / 2 < kMinHalfArc || e > kMaxOrthoMisfit * kMaxOrthoMisfit * fit.pitch * fit.pitch ||
        eFlat < kMinFlatMisfitOrtho * e)
      continue;
    e = fitPerspective(pts, maxDphi, 0.25 * maxDphi, m);
    if (e < 0) continue;
    for (int round = 0; round < 2 && e >= 0; ++round) {
      trimOutliers(pts, m);
      e = fitPerspective(pts, maxDphi, 0.05 * maxDphi, m, 2);
    }
    if (e < 0) continue;
    // The same dots on a flat print (dphi = 0: the model is then quadratic along k, with the
    // camera's perspective): a wrap must explain clearly more than that.
    flat = m;
    flat.dphi = 0;
    eFlat = fitLinear(pts, flat);
    DBG("cylinder axis %d: dphi %.3f half arc %.2f rms %.2f px, flat %.2f px\n", axis, m.dphi, m.dphi * span / 2,
        std::sqrt(std::max(0.0, e)), std::sqrt(std::max(0.0, eFlat)));
    if (eFlat >= 0 && eFlat < kMinFlatMisfit * e) continue;
    if (bestErr < 0 || e < bestErr) bestErr = e, best = m;
  }
  if (bestErr < 0) return false;
  const int kMin0 = best.alongCols ? fit.colMin : fit.rowMin, kMax0 = best.alongCols ? fit.colMax : fit.rowMax;
  const int jMin = best.alongCols ? fit.rowMin : fit.colMin, jMax = best.alongCols ? fit.rowMax : fit.colMax;
  // Only a lattice that is visibly wrapped: a flat one is the homography's.
  if (best.dphi * (kMax0 - kMin0) / 2 < kMinHalfArc || std::sqrt(bestErr) > 0.2 * fit.pitch) return false;

  // Relabel every dot to the model's nearest position of the lattice's parity; drop those that
  // fall between positions, and keep the closer of two dots on one position.
  std::unordered_map<int64_t, std::pair<int, float>> byPos;  // key -> (blob, squared distance)
  std::vector<int64_t> labels(fit.dots.size(), 0);
  std::vector<int> labelK(fit.dots.size(), 0), labelJ(fit.dots.size(), 0);
  std::vector<uint8_t> labelled(fit.dots.size(), 0);
  for (size_t n = 0; n < fit.dots.size(); ++n) {
    const LatticeDot& d = fit.dots[n];
    const Blob& b = blobs[d.blob];
    const int k0 = best.alongCols ? d.col : d.row, j0 = best.alongCols ? d.row : d.col;
    float bestD2 = 1e30f;
    int bk = k0, bj = j0;
    for (int k = k0 - 3; k <= k0 + 3; ++k)
      for (int j = j0 - 1; j <= j0 + 1; ++j) {
        const PointF q = best.at(k, j);
        const float d2 = (q.x - b.x) * (q.x - b.x) + (q.y - b.y) * (q.y - b.y);
        if (d2 < bestD2) bestD2 = d2, bk = k, bj = j;
      }
    if (((bk + bj) & 1) != parity) continue;
    const PointF sk = stepK(best, bk, bj), sj = stepJ(best, bk, bj);
    const float step = std::min(std::hypot(sk.x, sk.y), std::hypot(sj.x, sj.y));
    if (bestD2 > 0.35f * 0.35f * step * step) continue;
    const int64_t key = best.alongCols ? gridKey(bj, bk) : gridKey(bk, bj);
    labels[n] = key, labelK[n] = bk, labelJ[n] = bj, labelled[n] = 1;
    auto it = byPos.find(key);
    if (it == byPos.end() || it->second.second > bestD2) byPos[key] = {d.blob, bestD2};
  }
  LatticeFit out = fit;
  out.dots.clear();
  out.rowMin = out.colMin = 1 << 30;
  out.rowMax = out.colMax = -(1 << 30);
  std::vector<float> inks;
  const float rad0 = std::max(0.5f, 0.25f * fit.pitch);
  auto addDot = [&](int blob, int k, int j) {
    const int row = best.alongCols ? j : k, col = best.alongCols ? k : j;
    out.dots.push_back({blob, row, col});
    out.rowMin = std::min(out.rowMin, row);
    out.rowMax = std::max(out.rowMax, row);
    out.colMin = std::min(out.colMin, col);
    out.colMax = std::max(out.colMax, col);
  };
  // (in the lattice's order, so the result does not depend on the hash map's)
  for (size_t n = 0; n < fit.dots.size(); ++n) {
    if (!labelled[n]) continue;
    auto it = byPos.find(labels[n]);
    if (it == byPos.end() || it->second.first != fit.dots[n].blob) continue;
    const Blob& b = blobs[fit.dots[n].blob];
    addDot(fit.dots[n].blob, labelK[n], labelJ[n]);
    inks.push_back(sampleDisc(img, PointF{b.x, b.y}, rad0, xm));
  }
  if (out.dots.size() < 30) return false;
  std::nth_element(inks.begin(), inks.begin() + inks.size() / 2, inks.end());
  const float inkRef = inks[inks.size() / 2];
  // The ground that ink was measured on. A cylinder's shading multiplies the light, so on its dark
  // side dark ink is darker in proportion, and the ground there can come within a few levels of
  // the lattice's ink: the contrast expected there is the ground's share of the lattice's.
  float groundRef = 0;
  if (dark) {
    std::vector<float> grounds;
    for (const LatticeDot& d : out.dots) {
      const int k = best.alongCols ? d.col : d.row, j = best.alongCols ? d.row : d.col;
      float nb[4] = {sampleDisc(img, best.at(k - 1, j), rad0, xm), sampleDisc(img, best.at(k + 1, j), rad0, xm),
                     sampleDisc(img, best.at(k, j - 1), rad0, xm), sampleDisc(img, best.at(k, j + 1), rad0, xm)};
      std::sort(nb, nb + 4);
      grounds.push_back(0.5f * (nb[2] + nb[3]));
    }
    std::nth_element(grounds.begin(), grounds.begin() + grounds.size() / 2, grounds.end());
    groundRef = grounds[grounds.size() / 2];
  }
  float dotD = 0;
  {
    std::vector<float> ds;
    for (const LatticeDot& d : out.dots) ds.push_back(blobs[d.blob].d);
    std::nth_element(ds.begin(), ds.begin() + ds.size() / 2, ds.end());
    dotD = ds[ds.size() / 2];
  }

  // The ink level below which a position of line k is a dot, judged on the line itself, or -1 when
  // the line is a bar. A DotCode's off-parity positions are always empty, and they sit a whole
  // step apart across the line even where the columns close up to 2-3 px: their values are the
  // line's own empty level under its own shading, which the lattice's contrast misjudges on the
  // dark side of a cylinder. A column's dots lie well below that level; a bar (the silhouette, a
  // shadow, two columns merged) darkens the off-parity positions as much.
  auto offParityLevels = [&](int k) {
    std::vector<float> offV;
    for (int j = jMin; j <= jMax; ++j) {
      if (((k + j) & 1) == parity) continue;
      const PointF sk = stepK(best, k, j), sj = stepJ(best, k, j);
      const float rad = std::max(0.5f, std::min(rad0, 0.25f * std::min(std::hypot(sk.x, sk.y), std::hypot(sj.x, sj.y))));
      float v = 1e9f;
      for (int a = -1; a <= 1; ++a) v = std::min(v, sampleDisc(img, best.at(k + 0.1 * a, j), rad, xm));
      offV.push_back(v);
    }
    return offV;
  };
  auto lineThreshold = [&](int k, std::vector<float> dotV, float contrast) {
    std::vector<float> offV = offParityLevels(k);
    if (offV.size() < 4) return -1.0f;
    std::nth_element(offV.begin(), offV.begin() + offV.size() / 2, offV.end());
    // (the darker quarter of the line's candidates: on the shaded side a third of them and more
    // may be empty positions)
    std::nth_element(dotV.begin(), dotV.begin() + dotV.size() / 4, dotV.end());
    const float empty = offV[offV.size() / 2], ink = dotV[dotV.size() / 4];
    if (empty - ink < kDotScore * contrast) return -1.0f;
    const float mid = 0.5f * (empty + ink);
    size_t darkOff = 0;
    for (float v : offV) darkOff += v <= mid;
    DBG("  line %d: off-parity level %.0f ink %.0f contrast %.0f dark off-parity %zu of %zu\n", k, empty, ink, contrast, darkOff, offV.size());
    return darkOff * 6 <= offV.size() ? mid : -1.0f;
  };
  // Lines beyond the lattice along the wrapped axis, at the model's positions.
  const PointF midK = stepK(best, best.kc, 0.5 * (jMin + jMax));
  const float midStep = std::hypot(midK.x, midK.y);
  int added = 0;
  for (int dir = -1; dir <= 1; dir += 2) {
    int empties = 0;
    float lastStep = 1e9f;  // the previous line's closest column step
    for (int k = (dir < 0 ? kMin0 : kMax0) + dir;; k += dir) {
      int seen = 0, outside = 0;
      struct Found {
        float x, y, v, score;
        int j;
      };
      std::vector<Found> found;
      bool silhouette = false;
      std::vector<float> contrasts;
      bool shaded = false;  // (a position seen only with the shaded side's contrast)
      float kStepMin = 1e9f;
      std::vector<Found> cands;
      for (int j = jMin; j <= jMax; ++j) {
        if (((k + j) & 1) != parity) continue;
        const PointF p = best.at(k, j);
        if (p.x < 1 || p.y < 1 || p.x > img.width - 2 || p.y > img.height - 2) {
          ++outside;
          continue;
        }
        const PointF sk = stepK(best, k, j);
        const float kStep = std::hypot(sk.x, sk.y);
        if (kStep < kMinColumnStep) {
          silhouette = true;
          break;
        }
        kStepMin = std::min(kStepMin, kStep);
        const PointF sj = stepJ(best, k, j);
        const float rad = std::max(0.5f, std::min(rad0, 0.25f * std::min(kStep, std::hypot(sj.x, sj.y))));
        float nb[4] = {sampleDisc(img, best.at(k - 1, j), rad, xm), sampleDisc(img, best.at(k + 1, j), rad, xm),
                       sampleDisc(img, best.at(k, j - 1), rad, xm), sampleDisc(img, best.at(k, j + 1), rad, xm)};
        std::sort(nb, nb + 4);
        const float ground = 0.5f * (nb[2] + nb[3]);
        float contrast = ground - inkRef;
        if (contrast < 8 && groundRef > inkRef) contrast = ground * (1 - inkRef / groundRef), shaded = true;
        if (contrast < 8 || nb[3] >= 252) continue;
        ++seen;
        contrasts.push_back(contrast);
        float bestV = 1e9f, bx = p.x, by = p.y;
        for (int a = -3; a <= 3; ++a)
          for (int c = -3; c <= 3; ++c) {
            const PointF q = best.at(k + 0.1 * a, j + 0.1 * c);
            const float v = sampleDisc(img, q, rad, xm);
            if (v < bestV) bestV = v, bx = q.x, by = q.y;
          }
        cands.push_back({bx, by, bestV, (ground - bestV) / contrast, j});
      }
      // Where the columns close up (under kCompressedShare of the middle's step; 1-2 px for
      // modules of 3-4 px), a dot's darkest point is about as dark as nearer the middle, but its
      // ground, read a column step away, is darkened by the next columns' dots through the
      // camera's blur: its share of the lattice's contrast falls to 0.4-0.55 while the empty
      // positions stay near 0, and the 0.6 above ended the search columns short of the edge. The
      // line's own levels split it instead: its dots' darkest points lie together, its empty
      // positions' well above them. A gap in the sorted levels of at least kLevelGap of the
      // contrast, and twice any other gap between them, separates the two; quiet zones and flat
      // surroundings show no such gap.
      float score = kDotScore;
      float below = 1e9f;  // (levels under this are the line's dots)
      bool split = false;
      if (!silhouette && kStepMin < kCompressedShare * midStep && cands.size() >= 6) {
        std::vector<float> levels;
        levels.reserve(cands.size());
        for (const Found& f : cands) levels.push_back(f.v);
        std::sort(levels.begin(), levels.end());
        float gap = 0, other = 0, at = 0;
        for (size_t n = 1; n < levels.size(); ++n) {
          const float g = levels[n] - levels[n - 1];
          if (g > gap)
            other = gap, gap = g, at = 0.5f * (levels[n] + levels[n - 1]);
          else
            other = std::max(other, g);
        }
        std::vector<float> c = contrasts;
        std::nth_element(c.begin(), c.begin() + c.size() / 2, c.end());
        split = gap >= kLevelGap * c[c.size() / 2] && gap >= 2 * other;
        // The off-parity positions are empty in a DotCode: most must fall on the empty side (at
        // least half of them above the split level; the next columns' dots darken some through
        // the blur). Near the silhouette the surface's shading or the scene beyond it darkens one
        // end of a line, which splits its levels too, and there they go dark with the rest.
        if (split) {
          const std::vector<float> offV = offParityLevels(k);
          const size_t darkOff = static_cast<size_t>(std::count_if(offV.begin(), offV.end(), [at](float v) { return v <= at; }));
          split = offV.size() >= 4 && darkOff * 2 <= offV.size();
        }
        if (split) score = kMinDotScore, below = at;
        DBG("cylinder line %d: levels split by %.0f (next gap %.0f) at %.0f, contrast %.0f\n", k, gap, other, at, c[c.size() / 2]);
      }
      for (const Found& f : cands)
        if (f.score >= score && f.v < below) found.push_back(f);
      DBG("cylinder line %d: seen %d found %zu outside %d silhouette %d\n", k, seen, found.size(), outside, silhouette);
      // Outwards the columns only close up, to the silhouette. Lines one step apart can jump over
      // the short stretch where the model's step falls under kMinColumnStep (at 18 px modules a
      // line spans 0.2 rad of arc, the stretch 0.05 rad); beyond it the model's sine turns back
      // and its steps grow again over what is no longer the cylinder's front: the silhouette too.
      if (!silhouette && kStepMin > lastStep && lastStep < kCompressedShare * midStep) silhouette = true;
      lastStep = kStepMin;
      if (silhouette || outside > 0 || seen * 2 < (jMax - jMin + 1) / 2) break;
      // Nearly every position dark: a bar, a full column of the symbol (10 of 11 happens), or a
      // column on the shaded side whose empty positions pass the lattice's contrast. A line that
      // reached the darkest shade, where the scene beyond the cylinder may begin, is checked too.
      // (a line whose levels split in two shows its empty positions as light as its ground, which
      // neither the scene beyond the silhouette nor a shadow does: the shade's check is not needed)
      if ((seen >= 8 && found.size() * 10 > static_cast<size_t>(seen) * 9) || (!split && shaded && !found.empty())) {
        std::vector<float> dotV;
        dotV.reserve(found.size());
        for (const Found& f : found) dotV.push_back(f.v);
        std::nth_element(contrasts.begin(), contrasts.begin() + contrasts.size() / 2, contrasts.end());
        const float t = lineThreshold(k, dotV, contrasts[contrasts.size() / 2]);
        if (t < 0) break;
        found.erase(std::remove_if(found.begin(), found.end(), [t](const Found& f) { return f.v > t; }), found.end());
      }
      if (found.size() * 8 < static_cast<size_t>(seen)) found.clear();
      if (found.empty()) {
        if (++empties >= kQuietLines) break;
        continue;
      }
      empties = 0;
      for (const Found& f : found) {
        const Blob b = predictedDot(f.x, f.y, dotD, 1);
        blobs.push_back(b);
        addDot(static_cast<int>(blobs.size()) - 1, k, f.j);
      }
      ++added;
    }
  }
  DBG("cylinder: %zu -> %zu dots, %d lines added, lattice %dx%d\n", fit.dots.size(), out.dots.size(), added,
      out.rowMax - out.rowMin + 1, out.colMax - out.colMin + 1);
  fit = std::move(out);
  wrap = best;
  return true;
}

}  // namespace det
}  // namespace dc
