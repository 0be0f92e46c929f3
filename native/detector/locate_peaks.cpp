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

// Separable box sum of radius r over a W x H plane of int32 (edges clamped by shrinking the window;
// the count plane says how many pixels each sum holds).
void boxSums(const std::vector<int32_t>& in, std::vector<int32_t>& tmp, std::vector<int32_t>& out, int W, int H, int r) {
  tmp.resize(in.size());
  out.resize(in.size());
  for (int y = 0; y < H; ++y) {
    const int32_t* row = &in[static_cast<size_t>(y) * W];
    int32_t* t = &tmp[static_cast<size_t>(y) * W];
    int32_t acc = 0;
    for (int x = 0; x <= std::min(r, W - 1); ++x) acc += row[x];
    for (int x = 0; x < W; ++x) {
      t[x] = acc;
      const int add = x + r + 1, sub = x - r;
      if (add < W) acc += row[add];
      if (sub >= 0) acc -= row[sub];
    }
  }
  for (int x = 0; x < W; ++x) {
    int32_t acc = 0;
    for (int y = 0; y <= std::min(r, H - 1); ++y) acc += tmp[static_cast<size_t>(y) * W + x];
    for (int y = 0; y < H; ++y) {
      out[static_cast<size_t>(y) * W + x] = acc;
      const int add = y + r + 1, sub = y - r;
      if (add < H) acc += tmp[static_cast<size_t>(add) * W + x];
      if (sub >= 0) acc -= tmp[static_cast<size_t>(sub) * W + x];
    }
  }
}

// tr^2/det of the Hessian for eigenvalues in ratio r is (r+1)^2/r; r = 4 here.
constexpr float kRidgeLimit = 25.0f / 4.0f;

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
  // Smoothed image (binomial 3x3, x16) and the local mean over the surround box (x16).
  ws.a.resize(N);
  for (int y = 0; y < H; ++y) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    int32_t* o = &ws.a[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) o[x] = row[x];
  }
  ws.smooth.resize(N);
  for (int y = 0; y < H; ++y) {
    const int y0 = std::max(0, y - 1), y1 = std::min(H - 1, y + 1);
    const int32_t* r0 = &ws.a[static_cast<size_t>(y0) * W];
    const int32_t* r1 = &ws.a[static_cast<size_t>(y) * W];
    const int32_t* r2 = &ws.a[static_cast<size_t>(y1) * W];
    int32_t* o = &ws.smooth[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) {
      const int x0 = std::max(0, x - 1), x2 = std::min(W - 1, x + 1);
      const int32_t c0 = r0[x0] + 2 * r1[x0] + r2[x0];
      const int32_t c1 = r0[x] + 2 * r1[x] + r2[x];
      const int32_t c2 = r0[x2] + 2 * r1[x2] + r2[x2];
      o[x] = c0 + 2 * c1 + c2;
    }
  }
  const int R = p.surround;
  boxSums(ws.a, ws.tmp, ws.box, W, H, R);
  // Response: how far the smoothed pixel stands out of its surround, in the dots' polarity (x16).
  ws.resp.resize(N);
  const int sign = p.dark ? -1 : 1;
  for (int y = 0; y < H; ++y) {
    const int cy = windowCount(y, H, R);
    const int32_t* s = &ws.smooth[static_cast<size_t>(y) * W];
    const int32_t* b = &ws.box[static_cast<size_t>(y) * W];
    int16_t* o = &ws.resp[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) {
      const int cnt = cy * windowCount(x, W, R);
      const int32_t mean16 = (b[x] * 16 + cnt / 2) / cnt;
      const int32_t v = sign * (s[x] - mean16);
      o[x] = static_cast<int16_t>(std::max(-32767, std::min(32767, v)));
    }
  }
  // Noise floor: the spread of the response over the image (most pixels are not dots).
  std::vector<int16_t>& sample = ws.sample;
  sample.clear();
  for (int y = 2; y < H - 2; y += 3)
    for (int x = 2; x < W - 2; x += 3) sample.push_back(static_cast<int16_t>(std::abs(ws.resp[static_cast<size_t>(y) * W + x])));
  int32_t noise = 0;
  if (!sample.empty()) {
    std::nth_element(sample.begin(), sample.begin() + sample.size() / 2, sample.end());
    noise = sample[sample.size() / 2];
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
