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
#include <cstring>

#include "detector/detector_internal.h"
#include "detector/wide_vectors.h"

namespace dc {
namespace det {

namespace {

// tr^2/det of the Hessian for eigenvalues in ratio r is (r+1)^2/r; r = 4 here.
constexpr float kRidgeLimit = 25.0f / 4.0f;

constexpr int kHistBins = 16 * 256;
// The widest surround box (2R+1) whose sum over (2R+1)^2 pixels of 255 fits 16 bits.
constexpr int kMaxSpan = 15;

inline int windowCount(int i, int n, int r) { return std::min(n - 1, i + r) - std::max(0, i - r) + 1; }

template <class T>
void growTo(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// The common radius (3) from the sums of neighbouring pixel pairs, pair[x] = row[x] + row[x + 1]:
// the binomial (1 2 1) at x is pair[x - 1] + pair[x], the 7-wide box pair[x - 3] + pair[x - 1] +
// pair[x + 1] + row[x + 3] (four terms instead of seven). Interior columns of both: the binomial
// for 1 <= x < W - 1, the box for 3 <= x < W - 3. Always inlined: GCC does not inline a plain
// function into computeResponse's AVX2 clone (wide_vectors.h), whose widest loops these are.
__attribute__((always_inline)) inline void binomialAndBox3(const uint8_t* row, uint16_t* pair, uint16_t* hb, uint16_t* hx, int W) {
  for (int x = 0; x < W - 1; ++x) pair[x] = static_cast<uint16_t>(row[x] + row[x + 1]);
  for (int x = 1; x < W - 1; ++x) hb[x] = static_cast<uint16_t>(pair[x - 1] + pair[x]);
  for (int x = 3; x < W - 3; ++x) hx[x] = static_cast<uint16_t>(pair[x - 3] + pair[x - 1] + pair[x + 1] + row[x + 3]);
}

// hx[x] = the sum of row[x - R .. x + R] for R <= x < W - R.
void boxRowInterior(const uint8_t* row, uint16_t* hx, int W, int R) {
  for (int x = R; x < W - R; ++x) hx[x] = 0;
  for (int k = -R; k <= R; ++k)
    for (int x = R; x < W - R; ++x) hx[x] = static_cast<uint16_t>(hx[x] + row[x + k]);
}

// hx[x] for the R columns at each end, where the window is shrunk to the row: running sums
// (one add or subtract per column instead of a window's worth).
void boxRowBorders(const uint8_t* row, uint16_t* hx, int W, int R) {
  if (W <= 2 * R) {  // (every column is a border column)
    for (int x = 0; x < W; ++x) {
      uint16_t acc = 0;
      for (int k = std::max(0, x - R); k <= std::min(W - 1, x + R); ++k) acc = static_cast<uint16_t>(acc + row[k]);
      hx[x] = acc;
    }
    return;
  }
  uint16_t acc = 0;
  for (int k = 0; k < R; ++k) acc = static_cast<uint16_t>(acc + row[k]);
  for (int x = 0; x < R; ++x) hx[x] = acc = static_cast<uint16_t>(acc + row[x + R]);
  acc = 0;
  for (int k = W - 2 * R; k < W; ++k) acc = static_cast<uint16_t>(acc + row[k]);
  for (int x = W - R; x < W; ++x) {
    hx[x] = acc;
    acc = static_cast<uint16_t>(acc - row[x - R]);
  }
}

// out[x] = 1 where r[x] reaches thr and is a maximum along its row, strict towards the left and
// non-strict towards the right (a plateau of two gives one maximum); the first and last columns
// are never one. A plain loop the compiler vectorises: most of a row is below the floor or beside
// a higher neighbour, so the caller tests the rest of the 3x3 window on few pixels. Out of line
// with an AVX2 clone (wide_vectors.h): the scan that calls it is scalar and gains nothing wider.
DC_WIDE_VECTORS void rowMaxMask(const int16_t* r, int16_t thr, uint8_t* out, int n) {
  out[0] = 0;
  for (int x = 1; x < n - 1; ++x) out[x] = ((r[x] >= thr) & (r[x] > r[x - 1]) & (r[x] >= r[x + 1])) ? 1 : 0;
  if (n > 1) out[n - 1] = 0;
}

// The response where the surround is whole: mean16 = (box * m + 2^15) >> 16 with one
// multiplier below 2^16 and a box sum below 2^16, so a 16 x 16 -> 32 bit product (SSE2 and NEON
// have it; a 32-bit lane multiply is SSE4.1).
// Not inlined on purpose: GCC turns the two halves below into the 16-bit high and low multiplies
// (pmulhuw, pmullw) only when m reaches the loop as a 16-bit parameter; inlined into the caller,
// where m is a conversion of the 32-bit multiplier, it widens every lane to 32 bits again (the
// peak response's largest loop: about 2.4 instructions per pixel instead of under 1). Its AVX2
// clone (wide_vectors.h) takes 16 lanes per multiply.
__attribute__((noinline)) DC_WIDE_VECTORS void responseRow(const uint16_t* sm, const uint16_t* box, uint16_t m, int sign, int16_t* o, int x0,
                                                           int x1) {
  // (box * m + 2^15) >> 16 = the product's high half, plus one when its low half is 2^15 or more
  // (the two halves as separate 16-bit products)
  if (sign > 0) {
    for (int x = x0; x < x1; ++x) {
      const uint16_t hi = static_cast<uint16_t>((static_cast<uint32_t>(box[x]) * m) >> 16);
      const uint16_t lo = static_cast<uint16_t>(static_cast<uint32_t>(box[x]) * m);
      o[x] = static_cast<int16_t>(sm[x] - static_cast<uint16_t>(hi + (lo >> 15)));
    }
  } else {
    for (int x = x0; x < x1; ++x) {
      const uint16_t hi = static_cast<uint16_t>((static_cast<uint32_t>(box[x]) * m) >> 16);
      const uint16_t lo = static_cast<uint16_t>(static_cast<uint32_t>(box[x]) * m);
      o[x] = static_cast<int16_t>(static_cast<uint16_t>(hi + (lo >> 15)) - sm[x]);
    }
  }
}

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

// The response kept by a read of the other polarity on the same pixels, or null.
const PeakWorkspace::KeptResponse* keptTwin(const GreyImage& img, bool dark, const PeakWorkspace& ws) {
  for (const PeakWorkspace::KeptResponse& k : ws.kept)
    if (k.data == img.data && k.w == img.width && k.h == img.height && k.stride == img.stride && k.dark != dark) return &k;
  return nullptr;
}

// The smoothed image (x16), the response (x16, in the dots' polarity) and its median absolute
// value of a read of the other polarity, made current: the smoothed image as it is, the response
// negated (o = sign * (smooth - mean) for either sign).
int32_t takeTwin(const PeakWorkspace::KeptResponse& k, PeakWorkspace& ws) {
  const size_t N = k.smooth.size();
  growTo(ws.smooth, N);
  growTo(ws.resp, N);
  std::copy(k.smooth.begin(), k.smooth.end(), ws.smooth.begin());
  const int16_t* from = k.resp.data();
  int16_t* to = ws.resp.data();
  for (size_t i = 0; i < N; ++i) to[i] = static_cast<int16_t>(-from[i]);
  return k.noise;
}

// Computes the smoothed image and the response into ws (rows W apart) and returns the noise
// floor's median absolute response.
DC_WIDE_VECTORS int32_t computeResponse(const GreyImage& img, const PeakParams& p, PeakWorkspace& ws) {
  const int W = img.width, H = img.height;
  const size_t N = static_cast<size_t>(W) * H;
  // Horizontal passes per row: binomial (1 2 1) and the box sum of the surround (2R+1 wide,
  // shrunk at the borders). 16-bit planes so the loops vectorise. The planes only grow: a
  // smaller region after a larger one must not pay for zero-filling what it does not use.
  const int R = std::max(1, std::min({p.surround, std::min(W, H) / 2 - 1, kMaxSpan / 2}));
  growTo(ws.hBinom, N);
  growTo(ws.hBox, N);
  growTo(ws.pair, static_cast<size_t>(W));
  for (int y = 0; y < H; ++y) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    uint16_t* hb = &ws.hBinom[static_cast<size_t>(y) * W];
    uint16_t* hx = &ws.hBox[static_cast<size_t>(y) * W];
    hb[0] = static_cast<uint16_t>(3 * row[0] + row[1]);
    hb[W - 1] = static_cast<uint16_t>(row[W - 2] + 3 * row[W - 1]);
    // interior: the full window
    if (R == 3) {
      binomialAndBox3(row, ws.pair.data(), hb, hx, W);
    } else {
      for (int x = 1; x < W - 1; ++x) hb[x] = static_cast<uint16_t>(row[x - 1] + 2 * row[x] + row[x + 1]);
      boxRowInterior(row, hx, W, R);
    }
    boxRowBorders(row, hx, W, R);
  }
  // Vertical passes: the smoothed image (x16) and the surround's sum, then the response: how far
  // the smoothed pixel stands out of its surround's mean, in the dots' polarity (x16). The mean
  // is a fixed-point multiply by 16/count (the count shrinks at the borders). The surround's sum
  // is at most (2R+1)^2 * 255 and fits 16 bits for R <= 7.
  growTo(ws.smooth, N);
  growTo(ws.resp, N);
  ws.boxAcc.assign(W, 0);
  ws.mult.resize(W);
  for (int y = 0; y <= std::min(R, H - 1); ++y) {
    const uint16_t* hx = &ws.hBox[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) ws.boxAcc[x] = static_cast<uint16_t>(ws.boxAcc[x] + hx[x]);
  }
  const int sign = p.dark ? -1 : 1;
  int32_t hist[kHistBins] = {0};
  int lastCy = -1;
  // where the window is whole (rows and columns R away from the borders): one multiplier
  const int span = 2 * R + 1;
  const uint32_t fullMult = static_cast<uint32_t>(std::lround(16.0 * 65536.0 / (span * span)));
  const int x0 = std::min(R, W), x1 = std::max(x0, W - R);
  for (int y = 0; y < H; ++y) {
    const uint16_t* a = &ws.hBinom[static_cast<size_t>(std::max(0, y - 1)) * W];
    const uint16_t* b = &ws.hBinom[static_cast<size_t>(y) * W];
    const uint16_t* c = &ws.hBinom[static_cast<size_t>(std::min(H - 1, y + 1)) * W];
    uint16_t* sm = &ws.smooth[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) sm[x] = static_cast<uint16_t>(a[x] + 2 * b[x] + c[x]);
    const int cy = windowCount(y, H, R);
    if (cy != lastCy) {
      // (only a few window sizes occur: one multiplier each, not one lround per pixel)
      int32_t byCount[kMaxSpan + 1];
      for (int cx = 1; cx <= span; ++cx) byCount[cx] = static_cast<int32_t>(std::lround(16.0 * 65536.0 / (cy * cx)));
      for (int x = 0; x < W; ++x) ws.mult[x] = byCount[windowCount(x, W, R)];
      lastCy = cy;
    }
    const uint16_t* box = ws.boxAcc.data();
    const int32_t* mult = ws.mult.data();
    int16_t* o = &ws.resp[static_cast<size_t>(y) * W];
    if (cy == span && fullMult < 65536) {
      responseRow(sm, box, static_cast<uint16_t>(fullMult), sign, o, x0, x1);
      for (int x = 0; x < W; ++x) {
        if (x == x0) x = x1;
        if (x >= W) break;
        const int32_t mean16 = (box[x] * mult[x] + 32768) >> 16;
        o[x] = static_cast<int16_t>(sign * (static_cast<int32_t>(sm[x]) - mean16));
      }
    } else {
      for (int x = 0; x < W; ++x) {
        const int32_t mean16 = (box[x] * mult[x] + 32768) >> 16;
        o[x] = static_cast<int16_t>(sign * (static_cast<int32_t>(sm[x]) - mean16));
      }
    }
    if (y % 3 == 2)
      for (int x = 2; x < W - 2; x += 3) ++hist[std::min(kHistBins - 1, std::abs(static_cast<int>(o[x])))];
    // slide the surround down one row (in one loop where a row enters and one leaves: the
    // 16-bit sums wrap alike either way)
    uint16_t* acc = ws.boxAcc.data();
    const uint16_t* add = y + R + 1 < H ? &ws.hBox[static_cast<size_t>(y + R + 1) * W] : nullptr;
    const uint16_t* sub = y - R >= 0 ? &ws.hBox[static_cast<size_t>(y - R) * W] : nullptr;
    if (add && sub) {
      for (int x = 0; x < W; ++x) acc[x] = static_cast<uint16_t>(acc[x] + add[x] - sub[x]);
    } else if (add) {
      for (int x = 0; x < W; ++x) acc[x] = static_cast<uint16_t>(acc[x] + add[x]);
    } else if (sub) {
      for (int x = 0; x < W; ++x) acc[x] = static_cast<uint16_t>(acc[x] - sub[x]);
    }
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
  return noise;
}

// The local maxima of the response above the floor, one candidate each.
bool findMaxima(int W, int H, const PeakParams& p, int sign, int32_t noise, PeakWorkspace& ws, std::vector<Blob>& out) {
  const int32_t thr = std::max<int32_t>(static_cast<int32_t>(p.minContrast * 16), static_cast<int32_t>(p.noiseK * noise));
  // Local maxima above the floor, one candidate each.
  growTo(ws.above, static_cast<size_t>(W));
  uint8_t* above = ws.above.data();
  for (int y = 1; y < H - 1; ++y) {
    const int16_t* r0 = &ws.resp[static_cast<size_t>(y - 1) * W];
    const int16_t* r1 = &ws.resp[static_cast<size_t>(y) * W];
    const int16_t* r2 = &ws.resp[static_cast<size_t>(y + 1) * W];
    // A maximum along the row above the floor (rowMaxMask): a peak when it is one of its 3x3
    // window too (the same rule across rows: strict above, non-strict below) and no ridge.
    // Returns false when the peak cap is hit.
    auto consider = [&](int x) {
      const int16_t v = r1[x];
      if (v <= r0[x - 1] || v <= r0[x] || v <= r0[x + 1] || v < r2[x - 1] || v < r2[x] || v < r2[x + 1]) return true;
      // A dot is a blob, not a ridge: text strokes, panel edges and glare streaks have maxima
      // all along them, but their curvature across the line is strong and along it weak. The
      // Hessian of the smoothed image must curve both ways alike (eigenvalue ratio below
      // kMaxCurvatureRatio), the test SIFT uses against edge responses.
      {
        const uint16_t* s0 = &ws.smooth[static_cast<size_t>(y - 1) * W];
        const uint16_t* s1 = &ws.smooth[static_cast<size_t>(y) * W];
        const uint16_t* s2 = &ws.smooth[static_cast<size_t>(y + 1) * W];
        const float dxx = static_cast<float>(sign * (s1[x - 1] + s1[x + 1] - 2 * s1[x]));
        const float dyy = static_cast<float>(sign * (s0[x] + s2[x] - 2 * s1[x]));
        const float dxy = 0.25f * static_cast<float>(sign * (s2[x + 1] + s0[x - 1] - s0[x + 1] - s2[x - 1]));
        const float det = dxx * dyy - dxy * dxy, tr = dxx + dyy;
        if (tr >= 0 || det <= 0 || tr * tr > kRidgeLimit * det) return true;
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
      return static_cast<int>(out.size()) < p.maxPeaks;
    };
    // the mask read eight pixels at a time, and within a word only its set bytes visited (in
    // order)
    rowMaxMask(r1, static_cast<int16_t>(std::min<int32_t>(thr, 32767)), above, W);
    int x = 0;
    for (; x + 8 <= W; x += 8) {
      uint64_t word;
      std::memcpy(&word, above + x, 8);
      for (; word != 0; word &= word - 1) {  // (the mask's bytes are 0 or 1: one bit each)
        if (!consider(x + (__builtin_ctzll(word) >> 3))) return false;
      }
    }
    for (; x < W; ++x)
      if (above[x] && !consider(x)) return false;
  }
  if (p.supportRadius > 0) markSupported(W, H, p.supportRadius, ws, out);
  return true;
}

}  // namespace

bool locatePeaks(const GreyImage& img, const PeakParams& p, PeakWorkspace& ws, std::vector<Blob>& out) {
  out.clear();
  const int W = img.width, H = img.height;
  if (W < 5 || H < 5) return true;
  const size_t N = static_cast<size_t>(W) * H;
  const PeakWorkspace::KeptResponse* twin = p.takeResponse ? keptTwin(img, p.dark, ws) : nullptr;
  const int32_t noise = twin ? takeTwin(*twin, ws) : computeResponse(img, p, ws);
  if (!twin && p.keepResponse && ws.kept.size() < PeakWorkspace::kMaxKeptResponses) {
    ws.kept.push_back({img.data, W, H, img.stride, p.dark, noise, {}, {}});
    ws.kept.back().smooth.assign(ws.smooth.begin(), ws.smooth.begin() + static_cast<std::ptrdiff_t>(N));
    ws.kept.back().resp.assign(ws.resp.begin(), ws.resp.begin() + static_cast<std::ptrdiff_t>(N));
  }
  const int sign = p.dark ? -1 : 1;
  return findMaxima(W, H, p, sign, noise, ws, out);
}

}  // namespace det
}  // namespace dc
