// Underexposed and low-contrast photos: the grey range stretched before any pass reads them.
//
// Why: the passes' floors are in grey levels (the peak search's 4-level minimum contrast, the
// threshold passes' contrast floors, the integer peak depths the lattice compares, sampling's
// weak-contrast erasures), set on photos that use most of the 8-bit range. A dim scene, a
// camera that exposes for a bright aimer band, or a washed-out capture squeezes the light dots
// of a pack's dark panel into a handful of levels: the real pack photos darkened to 0.45 of
// their levels read 31 of 43, at half contrast 35 (41 as taken). Stretching the image so that
// its 0.5th..99.5th percentiles span 0..255 restores the levels those floors expect (39 and 39).
// The percentiles (not the extremes) keep a few clipped glints or dead pixels from setting the
// gain. Only images whose range is under kLowRange are stretched: the photos and frames the
// passes were made for (ranges 130-250) are read as they are, so their reads and speed do not
// change.
//
// Dark exposures (a camera exposing for a glint or the aimer band, a phone's tone curve in a dim
// scene): the range is wide, but the mid-tones lie in the lowest levels. Under gamma 2 a pack's
// dark panel (60-70 as taken) falls to 14-19 and its light dots stand 15-30 levels above it, while
// the light text beside the symbol keeps most of its contrast: the peaks lattice grows into the
// text, or the dots fall under the floors (the real pack photos under gamma 2 read 32 of 43, 41 as
// taken). An image whose median grey lies under kDarkMedian is read again with its shadows lifted
// by a power curve that brings the median to about kLiftedMedian.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "detector/detector_internal.h"

namespace dc {
namespace det {

namespace {

// Percentile range (grey levels) under which an image is stretched. The pack photos span
// 200-250 levels (aimer band, glare) and the empty 1280x720 speed frames 134-150; a pack photo at
// half contrast or half exposure spans about 100-120.
constexpr int kLowRange = 128;
// Share of the pixels (per thousand) left out at each end of the histogram.
constexpr int kTailPerMille = 5;
// Median grey under which an image is read again with its shadows lifted. The empty 1280x720
// speed frames measure 122-170 and the synthetic negatives 102-179; the pack photos as taken
// 19-117 (the dark ones read as they are), under gamma 2 1-54.
constexpr int kDarkMedian = 48;
// Where the lift brings the median, and the strongest lift (the power's smallest exponent):
// gamma 0.4 already spreads the lowest 10 levels over 100.
constexpr double kLiftedMedian = 96;
constexpr double kMinLiftExponent = 0.4;
// The grey range that is not the light's (0.5th..99.5th percentiles of each sample less the
// local mean of the light: kLightBlock-px block means, interpolated), in units of the image's
// noise sigma (noiseSigma), under which the image holds nothing but its noise: Gaussian noise
// alone spans 5.2 sigma. Measured: blank 1280x720 frames under a gentle fall-off of the light
// with noise of sigma 2-4, and blank or vignetted frames at 640x480 to 1920x1080, 5.0-5.2; the
// real pack photos as taken at least 37, under the noisy, dark and soft transforms (noise up to
// sigma 12) at least 7.9; the renderer's categories and speed frames at least 16.8; a surface of
// faint stripes under noise 9.1. Stretched to the full range, a blank 1280x720 frame gave the fast
// pass 53,540 blobs (88 ms of a read that found nothing; 360 ms at 1920x1080). The whole image's
// range would not do: a fall-off of the light of 10% widens it to 6.5-8 sigma.
constexpr float kNoiseOnlyRange = 6.5f;
constexpr int kLightBlock = 32;

void applyLut(const GreyImage& in, const uint8_t (&lut)[256], std::vector<uint8_t>& buf, GreyImage& out) {
  buf.resize(static_cast<size_t>(in.width) * in.height);
  for (int y = 0; y < in.height; ++y) {
    const uint8_t* src = in.data + static_cast<size_t>(y) * in.stride;
    uint8_t* dst = &buf[static_cast<size_t>(y) * in.width];
    for (int x = 0; x < in.width; ++x) dst[x] = lut[src[x]];
  }
  out = GreyImage::packed(buf.data(), in.width, in.height);
}

// The step of the regular grid of about 64k pixels the levels are sampled on: the percentiles of
// a photo do not need every pixel, and an empty frame that reads nothing pays these tests.
int sampleStep(const GreyImage& in) {
  return std::max(1, static_cast<int>(std::sqrt(static_cast<double>(in.width) * in.height / 65536.0)));
}

// The first and last bins of a histogram once kTailPerMille of its total is left out at each end.
void histogramTails(const int64_t* hist, int bins, int64_t total, int& lo, int& hi) {
  const int64_t tail = total * kTailPerMille / 1000;
  lo = 0;
  hi = bins - 1;
  for (int64_t acc = 0; lo < bins - 1 && acc + hist[lo] <= tail; ++lo) acc += hist[lo];
  for (int64_t acc = 0; hi > 0 && acc + hist[hi] <= tail; --hi) acc += hist[hi];
}

}  // namespace

GreyLevels sampledLevels(const GreyImage& in) {
  const int step = sampleStep(in);
  int64_t hist[256] = {0};
  for (int y = step / 2; y < in.height; y += step) {
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    for (int x = step / 2; x < in.width; x += step) ++hist[row[x]];
  }
  int64_t total = 0;
  for (int64_t h : hist) total += h;
  GreyLevels l;
  if (total == 0) return l;
  histogramTails(hist, 256, total, l.lo, l.hi);
  l.median = 0;
  for (int64_t acc = hist[0]; 2 * acc < total; acc += hist[++l.median]) {
  }
  return l;
}

bool onlyNoise(const GreyImage& in, float noiseSigma) {
  if (!in.valid()) return false;
  const int step = sampleStep(in);  // (the samples of sampledLevels)
  const int bw = (in.width + kLightBlock - 1) / kLightBlock, bh = (in.height + kLightBlock - 1) / kLightBlock;
  std::vector<float> mean(static_cast<size_t>(bw) * bh, 0.0f);
  std::vector<int> count(mean.size(), 0);
  for (int y = step / 2; y < in.height; y += step) {
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    const size_t b0 = static_cast<size_t>(y / kLightBlock) * bw;
    for (int x = step / 2; x < in.width; x += step) {
      mean[b0 + x / kLightBlock] += row[x];
      ++count[b0 + x / kLightBlock];
    }
  }
  // (a block without samples, narrower than the step at the image's edge, takes its neighbour's:
  // the one before it in the row, or above it)
  for (size_t b = 0; b < mean.size(); ++b)
    mean[b] = count[b] ? mean[b] / count[b] : b % bw ? mean[b - 1]
        : b >= static_cast<size_t>(bw)               ? mean[b - bw]
                                                     : 0.0f;
  // The light at a sample: the block means interpolated bilinearly between block centres (clamped
  // at the edges). Per column of samples its two blocks and weight, per row of samples the row of
  // block means interpolated down.
  std::vector<int> colBlock;
  std::vector<float> colWeight;
  for (int x = step / 2; x < in.width; x += step) {
    const float f = std::max(0.0f, (x + 0.5f) / kLightBlock - 0.5f);
    const int b = std::min(static_cast<int>(f), bw - 1);
    colBlock.push_back(b);
    colWeight.push_back(b + 1 < bw ? f - b : 0.0f);
  }
  std::vector<float> light(static_cast<size_t>(bw) + 1);
  int64_t hist[511] = {0};  // residuals -255..255
  int64_t total = 0;
  for (int y = step / 2; y < in.height; y += step) {
    const float f = std::max(0.0f, (y + 0.5f) / kLightBlock - 0.5f);
    const int b = std::min(static_cast<int>(f), bh - 1), b1 = std::min(b + 1, bh - 1);
    const float wy = f - b;
    for (int bx = 0; bx < bw; ++bx)
      light[bx] = mean[static_cast<size_t>(b) * bw + bx] * (1 - wy) + mean[static_cast<size_t>(b1) * bw + bx] * wy;
    light[bw] = light[bw - 1];
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    size_t k = 0;
    for (int x = step / 2; x < in.width; x += step, ++k) {
      const int bx = colBlock[k];
      const float here = light[bx] * (1 - colWeight[k]) + light[bx + 1] * colWeight[k];
      // (residual + 255, rounded half up: 0.5 .. 510.5 before the truncation)
      ++hist[std::clamp(static_cast<int>(row[x] - here + 255.5f), 0, 510)];
      ++total;
    }
  }
  if (total == 0) return false;
  int lo, hi;
  histogramTails(hist, 511, total, lo, hi);
  return hi - lo < kNoiseOnlyRange * noiseSigma;
}

bool wantsTone(const GreyLevels& levels) { return levels.hi - levels.lo < kLowRange || levels.median < kDarkMedian; }

bool stretchLowContrast(const GreyImage& in, const GreyLevels& levels, std::vector<uint8_t>& buf, GreyImage& out) {
  const int range = levels.hi - levels.lo;
  if (range >= kLowRange || range <= 0) return false;
  uint8_t lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = static_cast<uint8_t>(std::clamp((v - levels.lo) * 255 / range, 0, 255));
  applyLut(in, lut, buf, out);
  return true;
}

bool liftShadows(const GreyImage& in, const GreyLevels& levels, std::vector<uint8_t>& buf, GreyImage& out) {
  if (levels.median >= kDarkMedian) return false;
  // 255 (v / 255)^e with the median at kLiftedMedian: e = log(96 / 255) / log(median / 255)
  const double e = std::clamp(std::log(kLiftedMedian / 255.0) / std::log(std::max(1, levels.median) / 255.0), kMinLiftExponent, 1.0);
  uint8_t lut[256];
  // (x^e as exp(e log x), the same table to the level: the exponent needs std::log anyway, and
  // std::pow would add 4 KiB to the WebAssembly reader)
  lut[0] = 0;
  for (int v = 1; v < 256; ++v) lut[v] = static_cast<uint8_t>(std::lround(255.0 * std::exp(e * std::log(v / 255.0))));
  applyLut(in, lut, buf, out);
  return true;
}

}  // namespace det
}  // namespace dc
