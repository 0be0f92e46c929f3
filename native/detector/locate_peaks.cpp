// Stage 1, second method: candidate dots as local maxima of a centre-surround response.
//
// Thresholding (locate_dots.cpp) needs dots that stand apart from each other: at 2-4 px per
// module, with blur, dots of 1.5-3 px touch their diagonal neighbours and a threshold either
// merges them into chains or loses the faint ones (tobacco packs: light dots a few grey levels
// above a small dark panel, under cellophane). A dot is still the brightest (or darkest) point of
// its surroundings, so the maxima of a lightly smoothed image minus its local mean find one
// candidate per dot whatever its neighbours do, with a sub-pixel centre.
#include <algorithm>
#include <cmath>

#include "detector/detector_internal.h"

namespace dc {
namespace det {

namespace {

// tr^2/det of the Hessian for eigenvalues in ratio r is (r+1)^2/r; r = 4 here.
constexpr float kRidgeLimit = 25.0f / 4.0f;

constexpr int kHistBins = 16 * 256;

inline int windowCount(int i, int n, int r) { return std::min(n - 1, i + r) - std::max(0, i - r) + 1; }

// Marks (ws.keep) the peaks that lie midway between two other peaks. On a lattice most dots do (a DotCode
// fills about half of its positions, so a dot has both neighbours along some lattice direction
// more often than not); in the noise of a textured desk or cellophane, where peaks are as strong
// as the dots, a peak is rarely the midpoint of two others. Lines (text strokes) pass too; the
// lattice fit sorts those out.
void markSupported(int W, int H, float radius, PeakWorkspace& ws, std::vector<Blob>& peaks) {
  if (peaks.size() < 3) return;
  SpatialIndex index;
  index.build(peaks, W, H, std::max(4.0f, radius));
  ws.keep.assign(peaks.size(), 0);
  std::vector<int> near;
  for (size_t i = 0; i < peaks.size(); ++i) {
    const Blob& p = peaks[i];
    near.clear();
    index.forEachNear(p.x, p.y, radius, [&](int j) {
      if (static_cast<size_t>(j) != i) near.push_back(j);
    });
    bool found = false;
    for (size_t a = 0; a < near.size() && !found; ++a) {
      const Blob& q = peaks[near[a]];
      const float ax = q.x - p.x, ay = q.y - p.y;
      const float len = std::sqrt(ax * ax + ay * ay);
      const float tol = 0.2f * len + 0.7f;
      // the partner sits at p - (q - p)
      if (index.nearest(p.x - ax, p.y - ay, tol, peaks) >= 0) found = true;
    }
    ws.keep[i] = found ? 1 : 0;
  }
}

}  // namespace

bool locatePeaks(const GreyImage& img, const PeakParams& p, PeakWorkspace& ws, std::vector<Blob>& out) {
  out.clear();
  const int W = img.width, H = img.height;
  if (W < 5 || H < 5) return true;
  const size_t N = static_cast<size_t>(W) * H;
  // Smoothed image (binomial 3x3, x16): a horizontal pass (x4) then a vertical one.
  ws.tmp.resize(N);
  for (int y = 0; y < H; ++y) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    int32_t* t = &ws.tmp[static_cast<size_t>(y) * W];
    t[0] = 3 * row[0] + row[1];
    for (int x = 1; x < W - 1; ++x) t[x] = row[x - 1] + 2 * row[x] + row[x + 1];
    t[W - 1] = row[W - 2] + 3 * row[W - 1];
  }
  ws.smooth.resize(N);
  for (int y = 0; y < H; ++y) {
    const int32_t* a = &ws.tmp[static_cast<size_t>(std::max(0, y - 1)) * W];
    const int32_t* b = &ws.tmp[static_cast<size_t>(y) * W];
    const int32_t* c = &ws.tmp[static_cast<size_t>(std::min(H - 1, y + 1)) * W];
    int32_t* o = &ws.smooth[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) o[x] = a[x] + 2 * b[x] + c[x];
  }
  // Local mean over the surround box: running sums along rows, then down columns.
  const int R = p.surround;
  ws.a.resize(N);
  for (int y = 0; y < H; ++y) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    int32_t* t = &ws.a[static_cast<size_t>(y) * W];
    int32_t acc = 0;
    for (int x = 0; x <= std::min(R, W - 1); ++x) acc += row[x];
    for (int x = 0; x < W; ++x) {
      t[x] = acc;
      if (x + R + 1 < W) acc += row[x + R + 1];
      if (x - R >= 0) acc -= row[x - R];
    }
  }
  ws.box.assign(N, 0);
  {
    std::vector<int32_t>& acc = ws.colAcc;
    acc.assign(W, 0);
    for (int y = 0; y <= std::min(R, H - 1); ++y) {
      const int32_t* t = &ws.a[static_cast<size_t>(y) * W];
      for (int x = 0; x < W; ++x) acc[x] += t[x];
    }
    for (int y = 0; y < H; ++y) {
      int32_t* o = &ws.box[static_cast<size_t>(y) * W];
      for (int x = 0; x < W; ++x) o[x] = acc[x];
      if (y + R + 1 < H) {
        const int32_t* t = &ws.a[static_cast<size_t>(y + R + 1) * W];
        for (int x = 0; x < W; ++x) acc[x] += t[x];
      }
      if (y - R >= 0) {
        const int32_t* t = &ws.a[static_cast<size_t>(y - R) * W];
        for (int x = 0; x < W; ++x) acc[x] -= t[x];
      }
    }
  }
  // Response: how far the smoothed pixel stands out of its surround, in the dots' polarity (x16).
  ws.resp.resize(N);
  ws.invCount.resize(W);
  const int sign = p.dark ? -1 : 1;
  int32_t hist[kHistBins] = {0};
  for (int x = 0; x < W; ++x) ws.invCount[x] = 16.0f / static_cast<float>(windowCount(x, W, R));
  ws.rowInv.resize(W);
  for (int y = 0; y < H; ++y) {
    const float invY = 1.0f / static_cast<float>(windowCount(y, H, R));
    for (int x = 0; x < W; ++x) ws.rowInv[x] = invY * ws.invCount[x];
    const int32_t* sm = &ws.smooth[static_cast<size_t>(y) * W];
    const int32_t* b = &ws.box[static_cast<size_t>(y) * W];
    int16_t* o = &ws.resp[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) {
      const int32_t v = sign * (sm[x] - static_cast<int32_t>(static_cast<float>(b[x]) * ws.rowInv[x] + 0.5f));
      o[x] = static_cast<int16_t>(v);  // |v| <= 16 * 255
    }
    if (y % 3 == 2)
      for (int x = 2; x < W - 2; x += 3) ++hist[std::min(kHistBins - 1, std::abs(static_cast<int>(o[x])))];
  }
  // Noise floor: the median absolute response (most pixels are not dots).
  int32_t noise = 0;
  {
    int64_t total = 0;
    for (int i = 0; i < kHistBins; ++i) total += hist[i];
    int64_t acc = 0;
    for (int i = 0; i < kHistBins; ++i) {
      acc += hist[i];
      if (2 * acc >= total) {
        noise = i;
        break;
      }
    }
  }
  const int32_t thr = std::max<int32_t>(static_cast<int32_t>(p.minContrast * 16), static_cast<int32_t>(p.noiseK * noise));
  // Local maxima above the floor, one candidate each.
  for (int y = 1; y < H - 1; ++y) {
    const int16_t* r0 = &ws.resp[static_cast<size_t>(y - 1) * W];
    const int16_t* r1 = &ws.resp[static_cast<size_t>(y) * W];
    const int16_t* r2 = &ws.resp[static_cast<size_t>(y + 1) * W];
    for (int x = 1; x < W - 1; ++x) {
      const int16_t v = r1[x];
      if (v < thr) continue;
      // strict on one side, non-strict on the other: a plateau of two gives one maximum
      if (v <= r1[x - 1] || v < r1[x + 1] || v <= r0[x - 1] || v <= r0[x] || v <= r0[x + 1] || v < r2[x - 1] || v < r2[x] ||
          v < r2[x + 1])
        continue;
      // A dot is a blob, not a ridge: text strokes, panel edges and glare streaks have maxima
      // all along them, but their curvature across the line is strong and along it weak. The
      // Hessian of the smoothed image must curve both ways alike (eigenvalue ratio below
      // kMaxCurvatureRatio), the test SIFT uses against edge responses.
      {
        const int32_t* s0 = &ws.smooth[static_cast<size_t>(y - 1) * W];
        const int32_t* s1 = &ws.smooth[static_cast<size_t>(y) * W];
        const int32_t* s2 = &ws.smooth[static_cast<size_t>(y + 1) * W];
        const float dxx = static_cast<float>(sign * (s1[x - 1] + s1[x + 1] - 2 * s1[x]));
        const float dyy = static_cast<float>(sign * (s0[x] + s2[x] - 2 * s1[x]));
        const float dxy = 0.25f * static_cast<float>(sign * (s2[x + 1] + s0[x - 1] - s0[x + 1] - s2[x - 1]));
        const float det = dxx * dyy - dxy * dxy, tr = dxx + dyy;
        if (tr >= 0 || det <= 0 || tr * tr > kRidgeLimit * det) continue;
      }
      // sub-pixel centre: a parabola through the three values along each axis
      const float dx = 0.5f * (r1[x - 1] - r1[x + 1]) / std::max(1.0f, static_cast<float>(r1[x - 1] - 2 * v + r1[x + 1]) * -1.0f);
      const float dy = 0.5f * (r0[x] - r2[x]) / std::max(1.0f, static_cast<float>(r0[x] - 2 * v + r2[x]) * -1.0f);
      // size: the pixels of the 5x5 window above half the peak
      int area = 0;
      for (int yy = std::max(0, y - 2); yy <= std::min(H - 1, y + 2); ++yy)
        for (int xx = std::max(0, x - 2); xx <= std::min(W - 1, x + 2); ++xx)
          if (2 * ws.resp[static_cast<size_t>(yy) * W + xx] >= v) ++area;
      Blob b;
      b.x = x + 0.5f + std::max(-0.5f, std::min(0.5f, -dx));
      b.y = y + 0.5f + std::max(-0.5f, std::min(0.5f, -dy));
      b.area = area;
      b.d = std::sqrt(4.0f * area / 3.14159265f);
      b.w = b.h = static_cast<int>(std::lround(b.d));
      b.depth = v / 16;
      out.push_back(b);
      if (static_cast<int>(out.size()) >= p.maxPeaks) return false;
    }
  }
  if (p.supportRadius > 0) markSupported(img.width, img.height, p.supportRadius, ws, out);
  return true;
}

}  // namespace det
}  // namespace dc
