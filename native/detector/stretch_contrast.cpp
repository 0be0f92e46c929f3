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

}  // namespace

bool stretchLowContrast(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  // About 64k pixels on a regular grid: the percentiles of a photo do not need every pixel, and
  // an empty frame that reads nothing pays this test.
  const int step = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(in.width) * in.height / 65536.0)));
  int64_t hist[256] = {0};
  int64_t total = 0;
  for (int y = step / 2; y < in.height; y += step) {
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    for (int x = step / 2; x < in.width; x += step) ++hist[row[x]];
  }
  for (int64_t h : hist) total += h;
  const int64_t tail = total * kTailPerMille / 1000;
  int lo = 0, hi = 255;
  for (int64_t acc = 0; lo < 255 && acc + hist[lo] <= tail; ++lo) acc += hist[lo];
  for (int64_t acc = 0; hi > 0 && acc + hist[hi] <= tail; --hi) acc += hist[hi];
  const int range = hi - lo;
  if (range >= kLowRange || range <= 0) return false;
  uint8_t lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = static_cast<uint8_t>(std::clamp((v - lo) * 255 / range, 0, 255));
  buf.resize(static_cast<size_t>(in.width) * in.height);
  for (int y = 0; y < in.height; ++y) {
    const uint8_t* src = in.data + static_cast<size_t>(y) * in.stride;
    uint8_t* dst = &buf[static_cast<size_t>(y) * in.width];
    for (int x = 0; x < in.width; ++x) dst[x] = lut[src[x]];
  }
  out.data = buf.data();
  out.width = in.width;
  out.height = in.height;
  out.stride = in.width;
  return true;
}

}  // namespace det
}  // namespace dc
