// Heavy defocus and motion blur (pass `dotcode:deblurred`): the blur of a region is estimated from
// the region itself and undone by a Wiener filter, and the threshold passes read the result.
//
// Why: a defocus disc of 0.7-0.8 module radius or a motion streak of 1.2-1.6 modules merges the
// dots into chains or a smear; the lattice's first spatial frequency is then nearly gone (a disc
// of radius 0.8 module keeps 7% of it) and the next one comes out with its sign inverted, so no
// threshold, high-pass or peak search separates the dots. With the blur's kernel known, a
// deconvolution restores them: on the blur-heavy renders that failed, the true kernel read 20 of
// 20, and a kernel 15% too large or too small still read most of them.
//
// The estimate: the blurred image's gradient along a direction d, autocorrelated along d, has a
// deep negative minimum at the lag where the kernel's two edges meet (the two ends of a motion
// streak; about 1.8 radii for a disc, averaged over the chords). Motion blur leaves the gradient
// strongly anisotropic (structure tensor eigenvalue ratio 4-9 on the renders, 1.0-1.1 for a disc
// or Gaussian); its direction is the weak gradient's, refined by the deepest minimum within 12
// degrees. Autocorrelations come from one FFT of gx + i gy and two inverse FFTs. A camera's shake
// is one streak over the whole image: estimateSharedStreak averages several regions' windows, whose
// own structures (panel edges, text) differ and average out. imageBlurCues measures the whole
// image's motion and defocus evidence that gates the peaks stage's deconvolved re-reads.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <vector>

#include "detector/detector_internal.h"
#include "detector/plane_pool.h"
#include "detector/wide_vectors.h"

namespace dc {
namespace det {

namespace {

using Cf = std::complex<float>;
constexpr float kPi = 3.14159265358979f;

std::vector<Cf> twiddles(int n) {
  std::vector<Cf> tw(static_cast<size_t>(std::max(1, n / 2)));
  for (int k = 0; k < n / 2; ++k) {
    const double a = -2 * 3.141592653589793 * k / n;
    tw[k] = Cf(static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)));
  }
  return tw;
}

struct Twiddle {
  float r, i;
};
// One radix-2 butterfly on a value of every column: u, v <- u + w v, u - w v.
inline void butterfly(float& ur, float& ui, float& vr, float& vi, Twiddle w) {
  const float a = vr, b = vi, c = ur, d = ui;
  const float tr = a * w.r - b * w.i, ti = a * w.i + b * w.r;
  ur = c + tr;
  ui = d + ti;
  vr = c - tr;
  vi = d - ti;
}

// Two stages' butterflies on four rows of values (see fftColumns). (A function of its own: the
// rows are distinct, which the compiler learns from restrict parameters and then vectorises the
// loop; written inline, it did not.)
[[gnu::always_inline]] inline void twoStages(float* __restrict r0, float* __restrict r1, float* __restrict r2, float* __restrict r3,
                                             float* __restrict i0, float* __restrict i1, float* __restrict i2, float* __restrict i3,
                                             size_t n, Twiddle w1, Twiddle w2, Twiddle w3) {
  for (size_t x = 0; x < n; ++x) {
    float ar = r0[x], ai = i0[x], br = r1[x], bi = i1[x], cr = r2[x], ci = i2[x], dr = r3[x], di = i3[x];
    butterfly(ar, ai, br, bi, w1);
    butterfly(cr, ci, dr, di, w1);
    butterfly(ar, ai, cr, ci, w2);
    butterfly(br, bi, dr, di, w3);
    r0[x] = ar, i0[x] = ai, r1[x] = br, i1[x] = bi, r2[x] = cr, i2[x] = ci, r3[x] = dr, i3[x] = di;
  }
}

// The 1-D radix-2 FFT of every column of an ny x nx row-major array at once (ny a power of two;
// tw holds exp(-2 pi i k / ny) for k < ny/2), the real and imaginary parts in separate planes.
// Each butterfly runs along whole rows with one twiddle, so the innermost loop is a contiguous run
// of nx floats per plane that the compiler vectorises four lanes wide (with the parts interleaved
// it needed shuffles, two values per vector; a column copied out and transformed alone spends most
// of its time in index arithmetic and the short inner loops of the first stages). Every value goes
// through the same butterflies, in the same order, as a transform of its own column would. The
// complex products are written out: std::complex's operator* checks for infinities and NaNs in a
// library call.
// The stages go two at a time: the four rows a, a + h, a + 2h, a + 3h that one stage's butterflies
// pair (a with a + h, a + 2h with a + 3h) the next stage pairs among themselves (a with a + 2h,
// a + h with a + 3h), so both stages run on them while they are in registers. A stage swept both
// whole planes (2 MB at 512 x 512) through the cache and back; the transform was bound by those
// sweeps, not by its arithmetic. The same butterflies on the same values: the same results.
DC_WIDE_VECTORS void fftColumns(float* re, float* im, int nx, int ny, const std::vector<Cf>& tw, bool inverse) {
  const size_t rowLen = static_cast<size_t>(nx);
  for (int i = 1, j = 0; i < ny; ++i) {
    int bit = ny >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      std::swap_ranges(re + i * rowLen, re + (i + 1) * rowLen, re + j * rowLen);
      std::swap_ranges(im + i * rowLen, im + (i + 1) * rowLen, im + j * rowLen);
    }
  }
  const float sign = inverse ? -1.0f : 1.0f;
  auto twiddle = [&](int k, int len) {
    const Cf& w = tw[static_cast<size_t>(k) * static_cast<size_t>(ny / len)];
    return Twiddle{w.real(), sign * w.imag()};
  };
  int len = 2;
  for (; 2 * len <= ny; len <<= 2) {
    const int h = len / 2;
    for (int i = 0; i < ny; i += 2 * len)
      for (int k = 0; k < h; ++k) {
        const Twiddle w1 = twiddle(k, len), w2 = twiddle(k, 2 * len), w3 = twiddle(k + h, 2 * len);
        float* r0 = re + (i + k) * rowLen;
        float* i0 = im + (i + k) * rowLen;
        const size_t apart = static_cast<size_t>(h) * rowLen;
        twoStages(r0, r0 + apart, r0 + 2 * apart, r0 + 3 * apart, i0, i0 + apart, i0 + 2 * apart, i0 + 3 * apart, rowLen, w1, w2, w3);
      }
  }
  if (len <= ny) {  // (an odd number of stages: the last alone)
    const int half = len / 2;
    for (int k = 0; k < half; ++k) {
      const Twiddle w = twiddle(k, len);
      float* ur = re + k * rowLen;
      float* ui = im + k * rowLen;
      float* vr = re + (k + half) * rowLen;
      float* vi = im + (k + half) * rowLen;
      for (size_t x = 0; x < rowLen; ++x) butterfly(ur[x], ui[x], vr[x], vi[x], w);
    }
  }
}

// `from` (ny rows of nx values) into `to` (nx rows of ny values): rows become columns. In blocks
// of 4 x 4 held in locals (the compiler's SLP vectoriser turns each into a few shuffles; element
// by element, every value was a load and a store); the sizes are powers of two, so only a
// transform smaller than 4 a side takes the plain loop.
void transpose(const float* from, int nx, int ny, float* to) {
  if (nx % 4 != 0 || ny % 4 != 0) {
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) to[static_cast<size_t>(x) * ny + y] = from[static_cast<size_t>(y) * nx + x];
    return;
  }
  constexpr int kTile = 16;  // (both sides of a tile stay in the cache)
  for (int y0 = 0; y0 < ny; y0 += kTile)
    for (int x0 = 0; x0 < nx; x0 += kTile)
      for (int y = y0; y < std::min(ny, y0 + kTile); y += 4)
        for (int x = x0; x < std::min(nx, x0 + kTile); x += 4) {
          float b[4][4];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) b[i][j] = from[static_cast<size_t>(y + i) * nx + x + j];
          for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i) to[static_cast<size_t>(x + j) * ny + y + i] = b[i][j];
        }
}

}  // namespace

// (declared in detector_internal.h) The rows first (as columns of the transposed planes), then
// the columns (fftColumns).
void fft2(std::vector<float>& re, std::vector<float>& im, int nx, int ny, bool inverse) {
  const std::vector<Cf> twx = twiddles(nx), twy = twiddles(ny);
  const size_t n = re.size();
  // (left uninitialised: the transposes write every value; zeroing the two planes was a sixth of
  // the transform's instructions)
  PooledPlane tre(n), tim(n);
  transpose(re.data(), nx, ny, tre.data());
  transpose(im.data(), nx, ny, tim.data());
  fftColumns(tre.data(), tim.data(), ny, nx, twx, inverse);
  transpose(tre.data(), ny, nx, re.data());
  transpose(tim.data(), ny, nx, im.data());
  fftColumns(re.data(), im.data(), nx, ny, twy, inverse);
  if (inverse) {
    const float s = 1.0f / (static_cast<float>(nx) * ny);
    for (size_t i = 0; i < n; ++i) re[i] *= s;
    for (size_t i = 0; i < n; ++i) im[i] *= s;
  }
}

namespace {

int pow2AtLeast(int v) {
  int n = 1;
  while (n < v) n <<= 1;
  return n;
}

// Bilinear sample of a real n x n periodic array at (x, y).
float samplePeriodic(const std::vector<float>& a, int n, float x, float y) {
  const float fx0 = std::floor(x), fy0 = std::floor(y);
  const float fx = x - fx0, fy = y - fy0;
  const int x0 = static_cast<int>(fx0) & (n - 1), y0 = static_cast<int>(fy0) & (n - 1);
  const int x1 = (x0 + 1) & (n - 1), y1 = (y0 + 1) & (n - 1);
  auto at = [&](int xx, int yy) { return a[static_cast<size_t>(yy) * n + xx]; };
  return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
}

// Largest window the estimate looks at: the blur is the same over the region, and a central
// window of this size holds hundreds of dots of any symbol the pass can read.
constexpr int kEstimateWindow = 88;  // with the lags, a 128 x 128 transform
// The windows estimateImageStreak averages (each a 128 x 128 transform).
constexpr size_t kImageStreakWindows = 6;
constexpr float kMaxLag = 36.0f;  // px: a motion streak of 1.6 modules of 20 px
// lag of the autocorrelation minimum per disc radius (1.67-1.91 on the renders; a slightly small
// radius deconvolves better than a large one)
constexpr float kLagPerRadius = 1.8f;

// The central window the estimate looks at.
GreyImage estimateWindow(const GreyImage& img) {
  const int w = std::min(img.width, kEstimateWindow), h = std::min(img.height, kEstimateWindow);
  return GreyImage{img.data + static_cast<size_t>((img.height - h) / 2) * img.stride + (img.width - w) / 2, w, h, img.stride};
}

// The grey level below which a share q of a 256-bin histogram's `total` counts lie.
int histogramPercentile(const int* hist, int total, double q) {
  int acc = 0;
  for (int v = 0; v < 256; ++v)
    if ((acc += hist[v]) >= q * total) return v;
  return 255;
}

// Edge width: the grey range (2nd to 98th percentile) over the steep slopes (98th percentile of
// (|gx| + |gy|) / 2, central differences over 2 px), from histograms of the same samples.
float edgeWidth(const int* greys, const int* slopes, int total) {
  const int range = histogramPercentile(greys, total, 0.98) - histogramPercentile(greys, total, 0.02);
  return static_cast<float>(range) / static_cast<float>(std::max(1, histogramPercentile(slopes, total, 0.98)));
}

// A structure tensor's eigenvalue ratio (strong over weak gradient) and the direction of its weak
// gradient; false (both left as they are) when the tensor is empty.
bool tensorShape(double jxx, double jyy, double jxy, float& anisotropy, float& weakAngle) {
  const double tr = jxx + jyy, disc = std::sqrt(std::max(0.0, 0.25 * tr * tr - (jxx * jyy - jxy * jxy)));
  if (tr <= 0) return false;
  const double lo = 0.5 * tr - disc;
  anisotropy = lo > 0 ? static_cast<float>((0.5 * tr + disc) / lo) : 1e9f;
  weakAngle = 0.5f * static_cast<float>(std::atan2(2 * jxy, jxx - jyy)) + 0.5f * kPi;
  return true;
}

}  // namespace

void measureBlurCues(const GreyImage& region, BlurEstimate& out) {
  const GreyImage img = estimateWindow(region);
  const int w = img.width, h = img.height;
  out.anisotropy = 1, out.edgeWidth = 0;
  if (w < 32 || h < 32) return;
  double jxx = 0, jyy = 0, jxy = 0;
  int greys[256] = {0}, slopes[256] = {0};
  for (int y = 1; y + 1 < h; y += 3)
    for (int x = 1; x + 1 < w; x += 2) {
      const int gx = img.at(x + 1, y) - img.at(x - 1, y), gy = img.at(x, y + 1) - img.at(x, y - 1);
      jxx += gx * gx, jyy += gy * gy, jxy += gx * gy;
      greys[img.at(x, y)]++;
      slopes[std::min(255, (std::abs(gx) + std::abs(gy)) / 2)]++;
    }
  if (!tensorShape(jxx, jyy, jxy, out.anisotropy, out.weakAngle)) return;
  out.motion = out.anisotropy > kMotionAnisotropy;
  int total = 0;
  for (int v = 0; v < 256; ++v) total += greys[v];
  // a symbol inks under a third of its area, so the ground holds the median, blurred or not
  out.lightDots = 2 * histogramPercentile(greys, total, 0.5) < histogramPercentile(greys, total, 0.02) + histogramPercentile(greys, total, 0.98);
  out.edgeWidth = edgeWidth(greys, slopes, total);  // about 1-2 px on a sharp print
}

ImageBlurCues imageBlurCues(const GreyImage& img) {
  // every 6th pixel of every 6th row: about 25k samples in a 1280x720 frame
  ImageBlurCues out;
  double jxx = 0, jyy = 0, jxy = 0;
  int greys[256] = {0}, slopes[256] = {0}, total = 0;
  for (int y = 1; y + 1 < img.height; y += 6) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    for (int x = 1; x + 1 < img.width; x += 6) {
      const int gx = row[x + 1] - row[x - 1], gy = row[x + img.stride] - row[x - img.stride];
      // weighted by the squared gradient: the edges (dots, panel, text) speak, flat noise does not
      const double w = gx * gx + gy * gy;
      jxx += w * gx * gx, jyy += w * gy * gy, jxy += w * gx * gy;
      greys[row[x]]++;
      slopes[std::min(255, (std::abs(gx) + std::abs(gy)) / 2)]++;
      ++total;
    }
  }
  if (tensorShape(jxx, jyy, jxy, out.anisotropy, out.weakAngle)) out.edgeWidth = edgeWidth(greys, slopes, total);
  return out;
}

namespace {

// The autocorrelations of a window's gradient (gx with gx, gy with gy, gx with gy) at every lag,
// as periodic n x n arrays: what the blur estimates read the kernel's edges from.
struct GradientCorrelation {
  int n = 0;
  float maxLag = 0;  // the longest lag the window's size supports
  std::vector<float> axx, ayy, axy;

  // The autocorrelation of the gradient along (c, s) at lag L.
  float along(float c, float s, float L) const {
    const float x = L * c, y = L * s;
    return c * c * samplePeriodic(axx, n, x, y) + c * s * (samplePeriodic(axy, n, x, y) + samplePeriodic(axy, n, -x, -y)) +
        s * s * samplePeriodic(ayy, n, x, y);
  }
  // ... at lag 0 (the normaliser)
  float atZero(float c, float s) const { return c * c * axx[0] + 2 * c * s * axy[0] + s * s * ayy[0]; }
};

// Calls f(kx, br, bi) for each column of a row of a transform Z with b = Z*(-k): the mirror row
// (row -ky) read at column 0, then backwards (column -kx is n - kx), its imaginary part negated.
// Read that way, not through a masked index per value, the callers' loops vectorise.
template <class F>
[[gnu::always_inline]] inline void withMirror(const float* mirrorR, const float* mirrorI, int n, F&& f) {
  f(0, mirrorR[0], -mirrorI[0]);
  for (int kx = 1; kx < n; ++kx) f(kx, mirrorR[n - kx], -mirrorI[n - kx]);
}

// One row of correlateGradient's spectra: |GX|^2, |GY|^2 and GX* GY from the transform Z of
// gx + i gy; z its row ky, mirror its row -ky (withMirror).
DC_WIDE_VECTORS void gradientSpectraRow(const float* zr, const float* zi, const float* mirrorR, const float* mirrorI, int n,
                                        float* __restrict autoR, float* __restrict autoI, float* __restrict crossR, float* __restrict crossI) {
  withMirror(mirrorR, mirrorI, n, [&](int kx, float br, float bi) {  // a = Z(k), b = Z*(-k)
    const float ar = zr[kx], ai = zi[kx];
    // gx = (a + b) / 2, gy = (a - b) / 2i
    const float xr = 0.5f * (ar + br), xi = 0.5f * (ai + bi);
    const float yr = 0.5f * (ai - bi), yi = -0.5f * (ar - br);
    autoR[kx] = xr * xr + xi * xi;
    autoI[kx] = yr * yr + yi * yi;
    crossR[kx] = xr * yr + xi * yi;
    crossI[kx] = xr * yi - xi * yr;
  });
}

bool correlateGradient(const GreyImage& img, GradientCorrelation& out) {
  const int w = img.width, h = img.height;
  if (w < 32 || h < 32) return false;
  const int n = pow2AtLeast(std::max(w, h) + static_cast<int>(kMaxLag) + 2);
  // gx in the real plane, gy in the imaginary one
  PooledPlane zr(static_cast<size_t>(n) * n, 0.0f), zi(static_cast<size_t>(n) * n, 0.0f);
  for (int y = 1; y + 1 < h; ++y)
    for (int x = 1; x + 1 < w; ++x) {
      zr[static_cast<size_t>(y) * n + x] = 0.5f * (img.at(x + 1, y) - img.at(x - 1, y));
      zi[static_cast<size_t>(y) * n + x] = 0.5f * (img.at(x, y + 1) - img.at(x, y - 1));
    }
  // GX and GY from the transform of gx + i gy (both real): GX(k) = (Z(k) + Z*(-k)) / 2,
  // GY(k) = (Z(k) - Z*(-k)) / 2i. Then |GX|^2 + i |GY|^2 and GX* GY back to autocorrelations.
  fft2(zr.v, zi.v, n, n, false);
  const size_t total = zr.size();
  std::vector<float> autoR(total), autoI(total), crossR(total);
  PooledPlane crossI(total);
  for (int ky = 0; ky < n; ++ky) {
    const size_t k = static_cast<size_t>(ky) * n, m = static_cast<size_t>((n - ky) & (n - 1)) * n;
    gradientSpectraRow(&zr[k], &zi[k], &zr[m], &zi[m], n, &autoR[k], &autoI[k], &crossR[k], &crossI[k]);
  }
  fft2(autoR, autoI, n, n, true);
  fft2(crossR, crossI.v, n, n, true);
  out.n = n;
  out.maxLag = std::min(kMaxLag, 0.3f * std::min(w, h));
  out.axx = std::move(autoR);
  out.ayy = std::move(autoI);
  out.axy = std::move(crossR);
  return true;
}

// The streak's search: the deepest minimum of the gradient's normalised autocorrelation, averaged
// over the windows, along a direction within 12 degrees of weakAngle (the direction of the weak
// gradient), at lags from 1.5 px.
void deepestStreak(const std::vector<GradientCorrelation>& windows, float weakAngle, BlurEstimate& out) {
  float best = 0, bestLag = 0, bestAngle = 0, maxLag = kMaxLag;
  for (const GradientCorrelation& g : windows) maxLag = std::min(maxLag, g.maxLag);
  std::vector<float> zero(windows.size());
  for (int da = -12; da <= 12; da += 2) {
    const float a = weakAngle + static_cast<float>(da) * kPi / 180, c = std::cos(a), s = std::sin(a);
    int used = 0;
    for (size_t k = 0; k < windows.size(); ++k) used += (zero[k] = windows[k].atZero(c, s)) > 0 ? 1 : 0;
    if (used == 0) continue;
    for (float L = 1.5f; L <= maxLag; L += 0.25f) {
      float v = 0;
      for (size_t k = 0; k < windows.size(); ++k)
        if (zero[k] > 0) v += windows[k].along(c, s, L) / zero[k];
      v /= static_cast<float>(used);
      if (v < best) best = v, bestLag = L, bestAngle = a;
    }
  }
  out.length = bestLag;
  out.angle = bestAngle;
  out.depth = -best;
}

}  // namespace

bool estimateBlur(const GreyImage& region, BlurEstimate& out) {
  std::vector<GradientCorrelation> g(1);
  if (!correlateGradient(estimateWindow(region), g[0])) return false;
  if (out.motion) {
    // the direction of the weak gradient, then the deepest minimum within 12 degrees of it
    deepestStreak(g, out.weakAngle, out);
    return out.length > 0;
  }
  constexpr int kDirections = 16;
  const float zero = 0.5f * (g[0].axx[0] + g[0].ayy[0]);
  float best = 0, bestLag = 0;
  for (float L = 1.5f; L <= g[0].maxLag; L += 0.25f) {
    float v = 0;
    for (int k = 0; k < kDirections; ++k) {
      const float a = static_cast<float>(k) * kPi / kDirections;
      v += g[0].along(std::cos(a), std::sin(a), L);
    }
    v /= kDirections * zero;
    if (v < best) best = v, bestLag = L;
  }
  out.radius = bestLag / kLagPerRadius;
  out.depth = -best;
  return bestLag > 0;
}

bool estimateSharedStreak(const std::vector<GreyImage>& regions, float weakAngle, BlurEstimate& out) {
  std::vector<GradientCorrelation> windows;
  for (const GreyImage& r : regions) {
    windows.emplace_back();
    if (!correlateGradient(estimateWindow(r), windows.back())) windows.pop_back();
  }
  if (windows.empty()) return false;
  out.motion = true;
  deepestStreak(windows, weakAngle, out);
  return out.length > 0;
}

bool estimateImageStreak(const GreyImage& img, float weakAngle, BlurEstimate& out) {
  // Windows on a grid over the image, the most textured first: a streak shows on edges (the
  // symbol, the print and the panels beside it), while a flat window adds only its noise.
  std::vector<std::pair<double, GreyImage>> windows;
  for (int y = 0; y + kEstimateWindow <= img.height; y += kEstimateWindow)
    for (int x = 0; x + kEstimateWindow <= img.width; x += kEstimateWindow) {
      const GreyImage w{img.data + static_cast<size_t>(y) * img.stride + x, kEstimateWindow, kEstimateWindow, img.stride};
      double energy = 0;
      for (int yy = 1; yy + 1 < w.height; yy += 2)
        for (int xx = 1; xx + 1 < w.width; xx += 2) energy += std::abs(w.at(xx + 1, yy) - w.at(xx - 1, yy)) + std::abs(w.at(xx, yy + 1) - w.at(xx, yy - 1));
      windows.push_back({energy, w});
    }
  const size_t kept = std::min<size_t>(windows.size(), kImageStreakWindows);
  std::partial_sort(windows.begin(), windows.begin() + static_cast<std::ptrdiff_t>(kept), windows.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<GreyImage> regions;
  for (size_t k = 0; k < kept; ++k) regions.push_back(windows[k].second);
  return estimateSharedStreak(regions, weakAngle, out);
}

// The sum of an image's grey levels, in integers (exact, as the double sum it replaces was: every
// partial sum of 8-bit values is an integer far below 2^53), so the loop vectorises.
DC_WIDE_VECTORS uint64_t greySum(const GreyImage& img) {
  uint64_t sum = 0;
  for (int y = 0; y < img.height; ++y) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    uint32_t rowSum = 0;  // (at most 255 x 16.8M: a row is never that long)
    for (int x = 0; x < img.width; ++x) rowSum += row[x];
    sum += rowSum;
  }
  return sum;
}

// A row of deblurRegion's input: each grey level less the region's mean.
DC_WIDE_VECTORS void centredRow(const uint8_t* __restrict grey, int n, double mean, float* __restrict out) {
  for (int x = 0; x < n; ++x) out[x] = static_cast<float>(grey[x] - mean);
}

// A row of deblurRegion's output: the deconvolved values, the mean added back, rounded and
// clamped to 0..255.
DC_WIDE_VECTORS void greyRow(const float* __restrict deconvolved, int n, float mean, uint8_t* __restrict out) {
  for (int x = 0; x < n; ++x) {
    const float v = deconvolved[x] + mean;
    out[x] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v + 0.5f)));
  }
}

// One row of deblurRegion's Wiener filter, F = G conj(K) / (|K|^2 + regularisation), G and K split
// out of the transform Z of the image (real) plus i times the kernel: z, row ky of Z; mirror, row
// -ky (withMirror). Vectorised, its divisions included (one at a time they were most of the
// filter's time); the same operations on each value, so the same values.
DC_WIDE_VECTORS void wienerRow(const float* zr, const float* zi, const float* mirrorR, const float* mirrorI, float* __restrict fr, float* __restrict fi,
                               int nx, float norm, float regularisation) {
  withMirror(mirrorR, mirrorI, nx, [&](int kx, float br, float bi) {  // a = Z(k), b = Z*(-k)
    const float ar = zr[kx], ai = zi[kx];
    const float gr = 0.5f * (ar + br), gi = 0.5f * (ai + bi);
    const float kr = norm * 0.5f * (ai - bi), ki = -norm * 0.5f * (ar - br);
    const float den = kr * kr + ki * ki + regularisation;
    fr[kx] = (gr * kr + gi * ki) / den;
    fi[kx] = (gi * kr - gr * ki) / den;
  });
}

void deblurRegion(const GreyImage& img, const BlurEstimate& blur, float regularisation, std::vector<uint8_t>& buf,
                  GreyImage& out) {
  const int W = img.width, H = img.height;
  const float reach = blur.motion ? 0.5f * blur.length : blur.sigma > 0 ? 3 * blur.sigma
                                                                        : blur.radius;
  const int margin = static_cast<int>(std::ceil(reach)) + 2;
  // a transform of the next powers of two with room for the kernel's reach; a side just over a
  // power of two makes do with less padding (the wrap-around only touches the border's margin)
  auto side = [&](int v) { return pow2AtLeast(v + 2 * margin) > pow2AtLeast(v) && pow2AtLeast(v) - v >= margin ? pow2AtLeast(v) : pow2AtLeast(v + 2 * margin); };
  const int nx = side(W), ny = side(H);
  // the region, its border replicated into the padding (no step at the edges to ring), in the
  // real part; the kernel, centred on (0, 0), in the imaginary part: one transform for both
  PooledPlane zr(static_cast<size_t>(nx) * ny), zi(static_cast<size_t>(nx) * ny, 0.0f);
  const double mean = static_cast<double>(greySum(img)) / (static_cast<double>(W) * H);
  // padding rows/columns past the far edge continue from the near edge of the wrap-around
  for (int y = 0; y < ny; ++y) {
    float* row = &zr[static_cast<size_t>(y) * nx];
    if (y >= H) {
      const float* from = &zr[static_cast<size_t>(y < H + (ny - H) / 2 ? H - 1 : 0) * nx];
      std::copy(from, from + nx, row);
      continue;
    }
    centredRow(img.data + static_cast<size_t>(y) * img.stride, W, mean, row);
    std::fill(row + W, row + W + (nx - W) / 2, row[W - 1]);
    std::fill(row + W + (nx - W) / 2, row + nx, row[0]);
  }
  double sum = 0;
  auto addTap = [&](int dx, int dy, float v) {
    zi[static_cast<size_t>(dy & (ny - 1)) * nx + (dx & (nx - 1))] += v;
    sum += v;
  };
  if (blur.motion) {
    // a straight streak: points along the line, each spread bilinearly over its four pixels
    const int taps = std::max(3, static_cast<int>(std::ceil(2 * blur.length)));
    const float c = std::cos(blur.angle), s = std::sin(blur.angle);
    for (int t = 0; t < taps; ++t) {
      const float u = (static_cast<float>(t) / (taps - 1) - 0.5f) * blur.length;
      const float x = u * c, y = u * s, fx0 = std::floor(x), fy0 = std::floor(y), fx = x - fx0, fy = y - fy0;
      const int x0 = static_cast<int>(fx0), y0 = static_cast<int>(fy0);
      addTap(x0, y0, (1 - fx) * (1 - fy));
      addTap(x0 + 1, y0, fx * (1 - fy));
      addTap(x0, y0 + 1, (1 - fx) * fy);
      addTap(x0 + 1, y0 + 1, fx * fy);
    }
  } else if (blur.sigma > 0) {
    const int R = static_cast<int>(std::ceil(3 * blur.sigma));
    const float k = -0.5f / (blur.sigma * blur.sigma);
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) addTap(dx, dy, std::exp(k * static_cast<float>(dx * dx + dy * dy)));
  } else {
    // a disc: each pixel weighted by the share of its 4x4 subsamples inside the radius
    const int R = static_cast<int>(std::ceil(blur.radius));
    const float r2 = blur.radius * blur.radius;
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        int inside = 0;
        for (int sy = 0; sy < 4; ++sy)
          for (int sx = 0; sx < 4; ++sx) {
            const float px = dx - 0.5f + (sx + 0.5f) / 4, py = dy - 0.5f + (sy + 0.5f) / 4;
            inside += px * px + py * py <= r2 ? 1 : 0;
          }
        if (inside) addTap(dx, dy, static_cast<float>(inside));
      }
  }
  const float norm = static_cast<float>(1 / sum);
  fft2(zr.v, zi.v, nx, ny, false);
  // Wiener: F = G conj(K) / (|K|^2 + regularisation), with G and K split out of Z as in
  // estimateBlur (the image real, the kernel imaginary); F is the transform of a real image, so
  // only its real part comes back
  PooledPlane fr(zr.size()), fi(zr.size());
  for (int ky = 0; ky < ny; ++ky) {
    const size_t k = static_cast<size_t>(ky) * nx, m = static_cast<size_t>((ny - ky) & (ny - 1)) * nx;
    wienerRow(&zr[k], &zi[k], &zr[m], &zi[m], &fr[k], &fi[k], nx, norm, regularisation);
  }
  fft2(fr.v, fi.v, nx, ny, true);
  buf.resize(static_cast<size_t>(W) * H);
  for (int y = 0; y < H; ++y) greyRow(&fr[static_cast<size_t>(y) * nx], W, static_cast<float>(mean), &buf[static_cast<size_t>(y) * W]);
  out = GreyImage::packed(buf.data(), W, H);
}

}  // namespace det
}  // namespace dc
