// Stage 4: map grid positions to the image and sample dot presence.
//
// The map is a homography fitted to the lattice dots (perspective) plus a smooth residual field
// interpolated from the dots' own misfits (cylinder curvature, lens distortion). Presence is the
// darkness at a position relative to the local ground and ink levels: the ground is measured at
// the four off-lattice neighbours (always empty in a DotCode), the ink at nearby lattice dots, so
// gradients, low contrast and highlights are compensated locally. Values near 0.5 are weak and
// become erasures for the decoder.
#include <algorithm>
#include <cmath>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"

namespace dc {
namespace det {

// Solves the n x n system M x = v in place (Gaussian elimination, partial pivoting).
bool solveLinear(double* M, double* v, int n, double* v2) {
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(M[r * n + c]) > std::fabs(M[piv * n + c])) piv = r;
    if (std::fabs(M[piv * n + c]) < 1e-12) return false;
    if (piv != c) {
      for (int k = 0; k < n; ++k) std::swap(M[c * n + k], M[piv * n + k]);
      std::swap(v[c], v[piv]);
      if (v2) std::swap(v2[c], v2[piv]);
    }
    for (int r = c + 1; r < n; ++r) {
      double f = M[r * n + c] / M[c * n + c];
      if (f == 0) continue;
      for (int k = c; k < n; ++k) M[r * n + k] -= f * M[c * n + k];
      v[r] -= f * v[c];
      if (v2) v2[r] -= f * v2[c];
    }
  }
  for (double* rhs : {v, v2}) {
    if (!rhs) continue;
    for (int c = n - 1; c >= 0; --c) {
      double s = rhs[c];
      for (int k = c + 1; k < n; ++k) s -= M[c * n + k] * rhs[k];
      rhs[c] = s / M[c * n + c];
    }
  }
  return true;
}

namespace {

// Homography (col,row) -> (x,y) by linear least squares with h22 = 1, on the given points.
bool fitHomography(const std::vector<double>& gc, const std::vector<double>& gr, const std::vector<double>& px,
                   const std::vector<double>& py, const std::vector<uint8_t>& keep, double h[9]) {
  double M[64] = {0}, v[8] = {0};
  int n = 0;
  for (size_t k = 0; k < gc.size(); ++k) {
    if (!keep[k]) continue;
    ++n;
    const double c = gc[k], r = gr[k], x = px[k], y = py[k];
    const double rx[8] = {c, r, 1, 0, 0, 0, -x * c, -x * r};
    const double ry[8] = {0, 0, 0, c, r, 1, -y * c, -y * r};
    for (int i = 0; i < 8; ++i) {
      v[i] += rx[i] * x + ry[i] * y;
      for (int j = 0; j < 8; ++j) M[i * 8 + j] += rx[i] * rx[j] + ry[i] * ry[j];
    }
  }
  if (n < 6) return false;
  if (!solveLinear(M, v, 8)) return false;
  for (int i = 0; i < 8; ++i) h[i] = v[i];
  h[8] = 1;
  return true;
}

}  // namespace

PointF GridMapper::project(float row, float col) const {
  if (wrapped_) return wrap_.atGrid(row, col);
  // h_ works on normalised grid coordinates; see fit()
  const double c = col, r = row;
  const double w = h_[6] * c + h_[7] * r + h_[8];
  PointF p;
  if (std::fabs(w) < 1e-9) return p;
  p.x = static_cast<float>((h_[0] * c + h_[1] * r + h_[2]) / w);
  p.y = static_cast<float>((h_[3] * c + h_[4] * r + h_[5]) / w);
  return p;
}

// Mean homography misfit (share of the pitch) from which a print is mapped by local affine fits.
constexpr double kBentMisfit = 0.12;
// A dot the homography misses by more than this share of the pitch is left out of that mean.
constexpr double kStrayDot = 0.4;

bool GridMapper::fit(const std::vector<Blob>& blobs, const LatticeFit& lattice) {
  const size_t n = lattice.dots.size();
  if (n < 6) return false;
  // Normalise: grid coordinates around the centre, image coordinates around the centroid, so the
  // normal equations stay well conditioned. The final matrix is composed back.
  double mc = 0, mr = 0, mx = 0, my = 0;
  for (const LatticeDot& d : lattice.dots) {
    mc += d.col;
    mr += d.row;
    mx += blobs[d.blob].x;
    my += blobs[d.blob].y;
  }
  mc /= n;
  mr /= n;
  mx /= n;
  my /= n;
  const double gs = std::max(1.0, 0.5 * std::max(lattice.rowMax - lattice.rowMin, lattice.colMax - lattice.colMin));
  const double is = std::max(1.0, gs * lattice.pitch);
  std::vector<double> gc(n), gr(n), px(n), py(n);
  for (size_t k = 0; k < n; ++k) {
    gc[k] = (lattice.dots[k].col - mc) / gs;
    gr[k] = (lattice.dots[k].row - mr) / gs;
    px[k] = (blobs[lattice.dots[k].blob].x - mx) / is;
    py[k] = (blobs[lattice.dots[k].blob].y - my) / is;
  }
  std::vector<uint8_t> keep(n, 1);
  double hn[9];
  for (int round = 0; round < 2; ++round) {
    if (!fitHomography(gc, gr, px, py, keep, hn)) return false;
    if (round == 1) break;
    // drop gross outliers (a wrong lattice assignment) before the final fit
    std::vector<double> err(n);
    for (size_t k = 0; k < n; ++k) {
      double w = hn[6] * gc[k] + hn[7] * gr[k] + 1;
      double ex = (hn[0] * gc[k] + hn[1] * gr[k] + hn[2]) / w - px[k];
      double ey = (hn[3] * gc[k] + hn[4] * gr[k] + hn[5]) / w - py[k];
      err[k] = std::sqrt(ex * ex + ey * ey) * is;
    }
    for (size_t k = 0; k < n; ++k) keep[k] = err[k] < std::max(1.0, 0.8 * lattice.pitch);
  }
  // Compose: x = mx + is * Hn(T(c, r)), T = ((c - mc)/gs, (r - mr)/gs).
  // Hn(u,v) = (a u + b v + c0)/(g u + h v + 1). Substituting u = (c - mc)/gs etc. gives a 3x3
  // matrix acting on (c, r, 1); then scale and translate the output.
  double T[9] = {1 / gs, 0, -mc / gs, 0, 1 / gs, -mr / gs, 0, 0, 1};
  double S[9] = {is, 0, mx, 0, is, my, 0, 0, 1};
  double A[9], B[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      A[i * 3 + j] = 0;
      for (int k = 0; k < 3; ++k) A[i * 3 + j] += hn[i * 3 + k] * T[k * 3 + j];
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      B[i * 3 + j] = 0;
      for (int k = 0; k < 3; ++k) B[i * 3 + j] += S[i * 3 + k] * A[k * 3 + j];
    }
  for (int i = 0; i < 9; ++i) h_[i] = B[i];

  // On a cylinder the homography is not the base map, and its misfit at the edges is no outlier.
  if (wrapped_)
    for (size_t k = 0; k < n; ++k) {
      const LatticeDot& d = lattice.dots[k];
      const PointF p = project(static_cast<float>(d.row), static_cast<float>(d.col));
      keep[k] = std::hypot(blobs[d.blob].x - p.x, blobs[d.blob].y - p.y) < std::max(1.0, 0.4 * lattice.pitch);
    }
  // Residual field on the grid (with a margin for the extent hypotheses).
  const int margin = 3;
  r0_ = lattice.rowMin - margin;
  c0_ = lattice.colMin - margin;
  rows_ = lattice.rowMax - lattice.rowMin + 1 + 2 * margin;
  cols_ = lattice.colMax - lattice.colMin + 1 + 2 * margin;
  const size_t cells = static_cast<size_t>(rows_) * cols_;
  resX_.assign(cells, 0);
  resY_.assign(cells, 0);
  std::vector<float> wsum(cells, 0);
  const int R = 3;
  for (size_t k = 0; k < n; ++k) {
    if (!keep[k]) continue;
    const LatticeDot& d = lattice.dots[k];
    PointF p = project(static_cast<float>(d.row), static_cast<float>(d.col));
    const float ex = blobs[d.blob].x - p.x, ey = blobs[d.blob].y - p.y;
    for (int dr = -R; dr <= R; ++dr)
      for (int dcol = -R; dcol <= R; ++dcol) {
        int rr = d.row + dr - r0_, cc = d.col + dcol - c0_;
        if (rr < 0 || cc < 0 || rr >= rows_ || cc >= cols_) continue;
        float w = 1.0f / (1.0f + dr * dr + dcol * dcol);
        size_t idx = static_cast<size_t>(rr) * cols_ + cc;
        resX_[idx] += w * ex;
        resY_[idx] += w * ey;
        wsum[idx] += w;
      }
  }
  for (size_t i = 0; i < cells; ++i)
    if (wsum[i] > 0) {
      // shrink towards zero where few dots support the estimate
      float w = wsum[i] + 0.3f;
      resX_[i] /= w;
      resY_[i] /= w;
    }
  // Strongly curved surfaces (a symbol wrapped round a small cylinder, up to 70 degrees either
  // side: the columns near the edges are a third as wide as in the middle) bend the lattice far
  // beyond what a homography plus a smoothed residual follows. There every position is mapped by
  // an affine map fitted to the dots around it (moving least squares), which follows any smooth
  // bend. Flat prints keep the homography: its global fit is steadier. A few dots taken in at wrong
  // positions (the peaks of a text stroke or a glint beside a pack symbol) raise the mean misfit of
  // a flat print too, and the local fits they then tilt moved a pack symbol's edge line by up to
  // 3.6 pitches; a lattice whose dots within kStrayDot of a pitch fit the homography is noted
  // (bentByStrays), and the driver reads it again with the homography map when it did not read
  // (keepFlatOverStrays: as the only map, it lost one of 24 crease-glint scenes).
  double misfit = 0, inMisfit = 0;
  int kept = 0, inliers = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!keep[k]) continue;
    const LatticeDot& d = lattice.dots[k];
    const PointF p = project(static_cast<float>(d.row), static_cast<float>(d.col));
    const double e = std::hypot(blobs[d.blob].x - p.x, blobs[d.blob].y - p.y);
    misfit += e;
    ++kept;
    if (e > kStrayDot * lattice.pitch) continue;
    inMisfit += e;
    ++inliers;
  }
  misfit_ = kept > 0 && lattice.pitch > 0 ? static_cast<float>(misfit / kept / lattice.pitch) : 0.0f;
  const bool bent = !wrapped_ && kept > 0 && misfit / kept > kBentMisfit * lattice.pitch;
  bentByStrays_ = bent && inMisfit <= kBentMisfit * lattice.pitch * inliers;
  if (bent && !(bentByStrays_ && flatOverStrays_)) fitLocalAffine(blobs, lattice);
  return true;
}

void GridMapper::fitLocalAffine(const std::vector<Blob>& blobs, const LatticeFit& lattice) {
  const int R = 3, span = 2 * R + 1;
  // dots by grid cell of the table, which has a border of R empty cells: the neighbourhood loops
  // below then need no bounds tests (this fit runs on every lattice that bends, the decoy
  // lattices of frames without a symbol among them)
  const int pc = cols_ + 2 * R;
  std::vector<int32_t> at(static_cast<size_t>(rows_ + 2 * R) * pc, -1);
  for (const LatticeDot& d : lattice.dots) {
    const int rr = d.row - r0_, cc = d.col - c0_;
    if (rr >= 0 && cc >= 0 && rr < rows_ && cc < cols_) at[static_cast<size_t>(rr + R) * pc + cc + R] = d.blob;
  }
  // per offset (dr, dc): the weight w times v_i v_j and times v_i, v = (1, dr, dc), evaluated as
  // the sums below always did (w * v_i * v_j), so the fit is bit for bit what it was
  constexpr int np = 3;
  double wvv[span * span][np * np], wv[span * span][np];
  for (int dr = -R; dr <= R; ++dr)
    for (int dcol = -R; dcol <= R; ++dcol) {
      const int o = (dr + R) * span + dcol + R;
      const double w = 1.0 / ((1.0 + dr * dr + dcol * dcol) * (1.0 + dr * dr + dcol * dcol));
      const double v[3] = {1.0, static_cast<double>(dr), static_cast<double>(dcol)};
      for (int i = 0; i < np; ++i) {
        for (int j = 0; j < np; ++j) wvv[o][i * np + j] = w * v[i] * v[j];
        wv[o][i] = w * v[i];
      }
    }
  for (int rr = 0; rr < rows_; ++rr)
    for (int cc = 0; cc < cols_; ++cc) {
      // Weighted least squares of x (and y) over the dots around, affine in the grid offsets
      // (dr, dc); a quadratic term measured no better on the cylinder samples.
      const int32_t* win = &at[static_cast<size_t>(rr) * pc + cc];  // the window's top left
      int count = 0, rMin = R, rMax = -R, cMin = R, cMax = -R;
      for (int dr = -R; dr <= R; ++dr)
        for (int dcol = -R; dcol <= R; ++dcol) {
          if (win[(dr + R) * pc + dcol + R] < 0) continue;
          ++count;
          rMin = std::min(rMin, dr);
          rMax = std::max(rMax, dr);
          cMin = std::min(cMin, dcol);
          cMax = std::max(cMax, dcol);
        }
      if (count < 5 || rMax - rMin < 2 || cMax - cMin < 2) continue;
      double S[9] = {0}, bx[3] = {0}, by[3] = {0};
      for (int dr = -R; dr <= R; ++dr)
        for (int dcol = -R; dcol <= R; ++dcol) {
          const int b = win[(dr + R) * pc + dcol + R];
          if (b < 0) continue;
          const int o = (dr + R) * span + dcol + R;
          for (int i = 0; i < np; ++i) {
            for (int j = 0; j < np; ++j) S[i * np + j] += wvv[o][i * np + j];
            bx[i] += wv[o][i] * blobs[b].x;
            by[i] += wv[o][i] * blobs[b].y;
          }
        }
      if (!solveLinear(S, bx, np, by)) continue;  // (x and y share the normal matrix)
      const PointF p = project(static_cast<float>(rr + r0_), static_cast<float>(cc + c0_));
      const size_t idx = static_cast<size_t>(rr) * cols_ + cc;
      resX_[idx] = static_cast<float>(bx[0] - p.x);
      resY_[idx] = static_cast<float>(by[0] - p.y);
    }
}

PointF GridMapper::map(float row, float col) const {
  PointF p = project(row, col);
  if (rows_ > 0) {
    int rr = roundHalfAway(row) - r0_, cc = roundHalfAway(col) - c0_;
    rr = std::min(std::max(rr, 0), rows_ - 1);
    cc = std::min(std::max(cc, 0), cols_ - 1);
    size_t idx = static_cast<size_t>(rr) * cols_ + cc;
    p.x += resX_[idx];
    p.y += resY_[idx];
  }
  return p;
}

namespace {

float median(std::vector<float>& v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

void calibrateLevels(SampleContext& ctx, const std::vector<Blob>& blobs, const LatticeFit& lattice) {
  const uint8_t xm = ctx.dark ? 0 : 0xFF;
  const float rad = std::max(0.5f, 0.25f * ctx.pitch);
  std::vector<float> inks, grounds;
  for (const LatticeDot& d : lattice.dots) {
    inks.push_back(sampleDisc(*ctx.img, PointF{blobs[d.blob].x, blobs[d.blob].y}, rad, xm));
    // the off-lattice position to the right is always empty
    grounds.push_back(sampleDisc(*ctx.img, ctx.mapper->map(static_cast<float>(d.row), static_cast<float>(d.col + 1)), rad, xm));
  }
  ctx.darkLevel = median(inks);
  ctx.lightLevel = median(grounds);
  std::vector<float> ds;
  ds.reserve(lattice.dots.size());
  for (const LatticeDot& d : lattice.dots) ds.push_back(blobs[d.blob].d);
  ctx.dotD = median(ds);
}

// Dark dots: how far towards the ground the positions' own dot level may lift the lattice dots'.
constexpr float kDarkLocalShare = 0.5f;

// Values of positions without a lattice dot nearby that are erased rather than read.
constexpr float kUnanchoredLow = 0.2f, kUnanchoredHigh = 0.8f;

// Sampled levels this close to the ends of the range are clipped (glare, a blown-out highlight).
constexpr float kSaturated = 252.0f;

DotGrid sampleGrid(const SampleContext& ctx, const LatticeFit& lattice, int rowMin, int rows, int colMin, int cols, DotGrid* evidence) {
  const GreyImage& img = *ctx.img;
  const uint8_t xm = ctx.dark ? 0 : 0xFF;
  const float rad = std::max(0.5f, 0.25f * ctx.pitch);
  // intensities over the grid plus a one-position border (the border is quiet zone)
  const int er = rows + 2, ec = cols + 2;
  std::vector<float> I(static_cast<size_t>(er) * ec);
  for (int r = 0; r < er; ++r)
    for (int c = 0; c < ec; ++c)
      I[static_cast<size_t>(r) * ec + c] =
          sampleDisc(img, ctx.mapper->map(static_cast<float>(rowMin + r - 1), static_cast<float>(colMin + c - 1)), rad, xm);
  // local ink level: splat the lattice dots' centre intensities over nearby positions
  std::vector<float> ink(static_cast<size_t>(er) * ec, 0), inkW(static_cast<size_t>(er) * ec, 0);
  std::vector<int32_t> dotBlob(static_cast<size_t>(er) * ec, -1);
  const int R = 3;
  // (the splat's weights, 1 / (1 + squared distance), once instead of a division per term)
  float splat[2 * R + 1][2 * R + 1];
  for (int dr = -R; dr <= R; ++dr)
    for (int dc2 = -R; dc2 <= R; ++dc2) splat[dr + R][dc2 + R] = 1.0f / (1.0f + dr * dr + dc2 * dc2);
  for (const LatticeDot& d : lattice.dots) {
    const int r = d.row - rowMin + 1, c = d.col - colMin + 1;
    if (r < 0 || c < 0 || r >= er || c >= ec) continue;
    dotBlob[static_cast<size_t>(r) * ec + c] = d.blob;
    const float v = I[static_cast<size_t>(r) * ec + c];
    // (the window's rows and columns within the grid, so the inner loop tests nothing)
    const int r0 = std::max(r - R, 0), r1 = std::min(r + R, er - 1), c0 = std::max(c - R, 0), c1 = std::min(c + R, ec - 1);
    for (int rr = r0; rr <= r1; ++rr) {
      const float* w = splat[rr - r + R];
      float* inkRow = ink.data() + static_cast<size_t>(rr) * ec;
      float* inkWRow = inkW.data() + static_cast<size_t>(rr) * ec;
      for (int cc = c0; cc <= c1; ++cc) {
        inkRow[cc] += w[cc - c + R] * v;
        inkWRow[cc] += w[cc - c + R];
      }
    }
  }
  DotGrid g;
  g.rows = rows;
  g.cols = cols;
  g.value.assign(static_cast<size_t>(rows) * cols, 0.0f);
  if (evidence && ctx.dark) *evidence = g;  // (light dots: the grid itself; see the header)
  const float globalRatio = ctx.lightLevel > 1 ? ctx.darkLevel / ctx.lightLevel : 0.5f;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (((rowMin + r + colMin + c) & 1) != ctx.parity) continue;
      const int er0 = r + 1, ec0 = c + 1;
      float nb[4] = {I[static_cast<size_t>(er0 - 1) * ec + ec0], I[static_cast<size_t>(er0 + 1) * ec + ec0],
                     I[static_cast<size_t>(er0) * ec + ec0 - 1], I[static_cast<size_t>(er0) * ec + ec0 + 1]};
      // Ground: for dark dots the two lightest of the four (least touched by blur). For light
      // dots the lighter of the two opposite pairs' means: a pair's mean is unbiased under a
      // linear gradient of the light, and at the edge of a glare patch over light dots the two
      // lightest sat on the dark side and read the glare's slope as dots (synthetic packs 71 ->
      // 74 of 100). On dark dots the pairs cost the frame fusion test a sequence under a white
      // glare band, so they stay light-dot only.
      const float pairGround = std::max(0.5f * (nb[0] + nb[1]), 0.5f * (nb[2] + nb[3]));
      float lowest, second, highest;
      lowestAndHighestTwo(nb, lowest, second, highest);
      const float ground = ctx.dark ? 0.5f * (second + highest) : pairGround;
      const size_t idx = static_cast<size_t>(er0) * ec + ec0;
      float inkLevel = inkW[idx] > 0.2f ? ink[idx] / inkW[idx] : ground * globalRatio;
      // Past the lattice's own box (the positions a short wide lattice samples beyond its ends,
      // where glare or a crease stopped its growth) no lattice dot gives the ink level, and the
      // lattice's typical ratio to the ground is only a guess there: under a glare slope it read
      // faint end dots as confident empties. Light dots take the level from the positions
      // themselves: of the 13 lattice positions within two steps, about 7 are dots in any
      // DotCode content, so the mean of the second and third most inked is a dot's level (the
      // most inked one may be a glint). (Inside the box the lattice's dots give it, and the ink
      // share of lattice_evidence.cpp is left as it was.) Synthetic packs 78 -> 80 of seeds
      // 1-100, 160 -> 165 of 101-300.
      const int gr = rowMin + r, gc = colMin + c;
      const bool outside = gr < lattice.rowMin || gr > lattice.rowMax || gc < lattice.colMin || gc > lattice.colMax;
      const bool anchored = inkW[idx] > 0.2f;
      float local = -1;  // (the positions' own dot level; -1: fewer than 9 of them sampled)
      if (ctx.dark || (outside && !anchored)) {
        // (most positions of a short wide lattice's sampling lie out here: the three lowest are
        // kept as the values come, where a partial sort cost a call and a heap per position)
        LowestThree low;
        for (int dr = -2; dr <= 2; ++dr)
          for (int dc2 = -2; dc2 <= 2; ++dc2) {
            const int rr = er0 + dr, cc = ec0 + dc2;
            if (((dr + dc2) & 1) || rr < 1 || cc < 1 || rr >= er - 1 || cc >= ec - 1) continue;
            low.add(I[static_cast<size_t>(rr) * ec + cc]);
          }
        if (low.n >= 9) local = 0.5f * (low.v[1] + low.v[2]);
      }
      if (!ctx.dark && outside && !anchored && local >= 0) inkLevel = local;
      // Dark dots (inkjet dots on a carton, small and unevenly inked: pack-dark) take the level
      // from the positions themselves as well. Near lattice dots, the lighter of the two: the
      // lattice's dots are the strongest of the print (the peaks pass accepts what stands out),
      // and a weaker dot among weaker neighbours read as a confident empty against them. The
      // positions can lift the level at most halfway to the ground (kDarkLocalShare): where two
      // steps around hold fewer than three dots (a symbol's sparse corner), the second and third
      // most inked are empty, and their level, the ground's, turned the empty positions there
      // into erasures (the native stage test's 2.5 px render: one such position, 13 positions of
      // which one held a dot). Far from every lattice dot, where the positions show dots (their
      // level at least halfway from the ground to the lattice's typical ratio), their level
      // replaces that ratio and the value is kept, not erased as a guess; where they show none
      // (a glare band clipped white, the quiet zone) the guess and its erasure stay (taking the
      // ground's level there lost a sequence of the frame fusion test, "a symbol no single frame
      // shows whole"). The lattice evidence (lattice_evidence.cpp) is judged on the lattice's
      // own level (`evidence`): the positions' level would read the text, textures and specks of
      // empty frames as fuller lattices and let their decoys through to their hypotheses and
      // extension.
      const float inkOld = inkLevel;
      bool measured = false;  // (the level is the positions' own: no guess to erase)
      if (ctx.dark && local >= 0) {
        const float halfway = ground - kDarkLocalShare * (ground - inkLevel);
        if (anchored) {
          inkLevel = std::max(inkLevel, std::min(local, halfway));
        } else if (local <= halfway) {
          inkLevel = local;
          measured = true;
        }
      }
      auto valueAt = [&](float ink, bool guess) {
        const float contrast = ground - ink;
        float v;
        if (contrast < 8)
          v = 0.5f;
        else
          v = (ground - I[idx]) / contrast;
        // No lattice dot within three positions (past the grown lattice: glare washed the dots
        // out, or the quiet zone): the dot level is only the lattice's typical ratio, so a value
        // far from both ends is a guess, and becomes an erasure.
        if (!anchored && guess && v > kUnanchoredLow && v < kUnanchoredHigh) v = 0.5f;
        // Glare over light dots: where an off-lattice neighbour (always empty in a DotCode) is
        // clipped white, the light is not the print's (a streak reads as ink in the light dots'
        // polarity), so the position becomes an erasure, which costs Reed-Solomon half what a
        // guessed dot costs. (Clipped white paper around dark dots is only bright light.)
        if (!ctx.dark && lowest <= 255 - kSaturated) v = 0.5f;
        // Stray ink: a speck (a blob much smaller than the lattice's dots) or a blob off its
        // position that makes a position only partly dark is weak evidence, whether or not the
        // lattice took it (specks of dot size pass the lattice's checks). It becomes an erasure
        // (costs Reed-Solomon one check word) instead of a confident error (two). Full-strength
        // positions, and positions with no blob at all (dots merged by blur), keep their value.
        if (v > 0.5f && v < 0.9f && ctx.blobs && ctx.index && ctx.dotD > 0) {
          const PointF p = ctx.mapper->map(static_cast<float>(rowMin + r), static_cast<float>(colMin + c));
          const int k = dotBlob[idx] >= 0 ? dotBlob[idx] : ctx.index->nearest(p.x, p.y, 0.5f * ctx.pitch, *ctx.blobs);
          if (k >= 0) {
            const Blob& b = (*ctx.blobs)[k];
            const float dx = b.x - p.x, dy = b.y - p.y;
            const bool off = ctx.pitch >= 4 && dx * dx + dy * dy > 0.04f * ctx.pitch * ctx.pitch;
            if (b.d < 0.7f * ctx.dotD || off) v = 0.5f;
          }
          DBG("  weakdot v%.2f at (%.1f,%.1f) blob %d lattice %d d%.1f/%.1f off %.2f\n", v, p.x, p.y, k, dotBlob[idx] >= 0,
              k >= 0 ? (*ctx.blobs)[k].d : 0.f, ctx.dotD, k >= 0 ? std::hypot((*ctx.blobs)[k].x - p.x, (*ctx.blobs)[k].y - p.y) / ctx.pitch : 0.f);
        }
        return std::min(1.0f, std::max(0.0f, v));
      };
      const float v = valueAt(inkLevel, !measured);
      g.value[static_cast<size_t>(r) * cols + c] = v;
      if (evidence && ctx.dark && !outside) evidence->value[static_cast<size_t>(r) * cols + c] = inkLevel == inkOld ? v : valueAt(inkOld, true);
    }
  return g;
}

// A crease in the cellophane over a pack lights a thin straight line (a third to most of a
// module wide) across the symbol, usually from edge to edge of its short side. The lattice
// positions under it read as confident dots whether printed or not: 5-10 wrong positions per
// crease, each costing Reed-Solomon two check words. Along such a line the image is lit nearly
// all the way (a line of the lattice's own directions, or any other, crosses dots only here and
// there: they cover well under half of it), and much more of it than of the same line moved by
// most of a step either way. The image is resampled over the symbol's short side (quarter steps
// along the long axis, half steps across) and thresholded at 40% of the way from the ground
// to the dots; every line through it (slopes up to kGlintMaxSlope steps along the long axis per
// line across) is scored by the share of it that is lit. The dot-like lattice positions within
// half a step of a line found become erasures, most of which cost nothing: one unknown bit of a
// 5-of-9 codeword is settled by its weight.
constexpr int kGlintSlopes = 17;        // slopes -2 .. 2 in steps of 0.25
constexpr int kGlintOffset = 3;         // the neighbouring lines: 0.75 of a step away
constexpr float kGlintLevel = 0.4f;     // lit: this share of the way from the ground to the dots
constexpr float kGlintLitShare = 0.7f;  // share of a crease's line that is lit
constexpr float kGlintExcess = 0.3f;    // ... more than of either neighbouring line
constexpr int kMaxGlintLines = 3;
constexpr int kGlintMargin = 6;  // lines searched past the lattice's ends

int eraseGlintLines(const SampleContext& ctx, const LatticeFit& lattice, bool alongCols, int rowMin, int colMin, DotGrid& all) {
  if (ctx.dark || ctx.lightLevel - ctx.darkLevel < 8) return 0;
  const GreyImage& img = *ctx.img;
  // (v, u): short-axis and long-axis grid lines; the short side is the lattice's own.
  const int v0 = alongCols ? lattice.rowMin : lattice.colMin, v1 = alongCols ? lattice.rowMax : lattice.colMax;
  // (the long side: the lattice's own and kGlintMargin lines either way, within what was sampled)
  const int uFirst = alongCols ? colMin : rowMin, uEnd = uFirst + (alongCols ? all.cols : all.rows);
  const int u0 = std::max(uFirst, (alongCols ? lattice.colMin : lattice.rowMin) - kGlintMargin);
  const int L = std::min(uEnd, (alongCols ? lattice.colMax : lattice.rowMax) + kGlintMargin + 1) - u0;
  const int S = v1 - v0 + 1;
  if (S < 5 || L < 8) return 0;
  const int nv = 2 * S + 1, nu = 4 * (L - 1) + 1;
  const float vs = v0 - 0.5f, vMid = 0.5f * (v0 + v1);
  // (dark form: the ground is the higher level)
  const float litBelow = ctx.lightLevel - kGlintLevel * (ctx.lightLevel - ctx.darkLevel);
  // the map at whole steps along the long axis and every other sample across; the samples
  // between are interpolated (the map is nearly affine over a step)
  std::vector<PointF> at(static_cast<size_t>(S + 1) * L);
  for (int m = 0; m <= S; ++m)
    for (int k = 0; k < L; ++k) {
      const float v = vs + m, u = static_cast<float>(u0 + k);
      at[static_cast<size_t>(m) * L + k] = alongCols ? ctx.mapper->map(v, u) : ctx.mapper->map(u, v);
    }
  std::vector<uint8_t> lit(static_cast<size_t>(nv) * nu);
  for (int j = 0; j < nv; ++j) {
    const PointF* a = &at[static_cast<size_t>(j / 2) * L];
    const PointF* b = j % 2 ? a + L : a;  // (odd rows: halfway to the next)
    for (int k = 0; k < L; ++k) {
      const PointF p{0.5f * (a[k].x + b[k].x), 0.5f * (a[k].y + b[k].y)};
      const int kn = std::min(k + 1, L - 1);
      const PointF d{0.5f * (a[kn].x + b[kn].x) - p.x, 0.5f * (a[kn].y + b[kn].y) - p.y};
      for (int t = 0; t < 4 && 4 * k + t < nu; ++t)
        lit[static_cast<size_t>(j) * nu + 4 * k + t] = bilinear(img, p.x + 0.25f * t * d.x, p.y + 0.25f * t * d.y, 0xFF) < litBelow;
    }
  }
  // lit samples along every line, by slope and by where it crosses the middle of the short side
  // (a line that leaves the sampled grid scores 0)
  std::vector<uint16_t> count(static_cast<size_t>(kGlintSlopes) * nu, 0);
  std::vector<int> shift(nv);
  for (int si = 0; si < kGlintSlopes; ++si) {
    const float slope = -2.0f + 0.25f * si;
    int lo = 0, hi = nu;
    for (int j = 0; j < nv; ++j) {
      shift[j] = static_cast<int>(std::lround(4 * slope * (vs + 0.5f * j - vMid)));
      lo = std::max(lo, -shift[j]);
      hi = std::min(hi, nu - shift[j]);
    }
    uint16_t* c = &count[static_cast<size_t>(si) * nu];
    for (int j = 0; j < nv; ++j) {
      // (the row's start, then offset inside [lo, hi): a pointer shifted before the plane is UB)
      const uint8_t* row = &lit[static_cast<size_t>(j) * nu];
      const int sj = shift[j];
      for (int i = lo; i < hi; ++i) c[i] += row[i + sj];
    }
    for (int i = 0; i < nu; ++i)
      if (i < lo || i >= hi) c[i] = 0;
  }
  // how much more of each line is lit than of either neighbour
  std::vector<int> excess(count.size(), 0);
  const int minLit = static_cast<int>(std::ceil(kGlintLitShare * nv)), minExcess = static_cast<int>(std::ceil(kGlintExcess * nv));
  for (int si = 0; si < kGlintSlopes; ++si)
    for (int i = kGlintOffset; i + kGlintOffset < nu; ++i) {
      const uint16_t* c = &count[static_cast<size_t>(si) * nu];
      if (c[i] < minLit) continue;
      excess[static_cast<size_t>(si) * nu + i] = c[i] - std::max(c[i - kGlintOffset], c[i + kGlintOffset]);
    }
  std::vector<size_t> toErase;
  for (int line = 0; line < kMaxGlintLines; ++line) {
    const size_t best = static_cast<size_t>(std::max_element(excess.begin(), excess.end()) - excess.begin());
    if (excess[best] < minExcess) break;
    const int si = static_cast<int>(best / nu), ic = static_cast<int>(best % nu);
    const float slope = -2.0f + 0.25f * si, uc = u0 + 0.25f * ic;
    DBG("  glint line slope %.2f at %.2f lit %d of %d, %d more than beside it\n", slope, uc, count[best], nv, excess[best]);
    // the same crease, scored at a neighbouring slope or offset, is not a second line
    for (int sj = 0; sj < kGlintSlopes; ++sj)
      for (int i = 0; i < nu; ++i) {
        const float sl = -2.0f + 0.25f * sj, u = u0 + 0.25f * i;
        bool near = true;
        for (float v : {static_cast<float>(v0), static_cast<float>(v1)})
          near = near && std::fabs(u + sl * (v - vMid) - (uc + slope * (v - vMid))) <= 1.0f;
        if (near) excess[static_cast<size_t>(sj) * nu + i] = 0;
      }
    for (int v = v0; v <= v1; ++v) {
      const float u = uc + slope * (v - vMid);
      for (int k = static_cast<int>(std::ceil(u - 0.5f)); k <= static_cast<int>(std::floor(u + 0.5f)); ++k) {
        const int r = alongCols ? v : k, c = alongCols ? k : v;
        if (((r + c) & 1) != ctx.parity || r < rowMin || c < colMin || r >= rowMin + all.rows || c >= colMin + all.cols) continue;
        const size_t idx = static_cast<size_t>(r - rowMin) * all.cols + (c - colMin);
        if (all.value[idx] > 0.35f && all.value[idx] != 0.5f) toErase.push_back(idx);
      }
    }
  }
  for (size_t idx : toErase) all.value[idx] = 0.5f;
  return static_cast<int>(toErase.size());
}

}  // namespace det
}  // namespace dc
