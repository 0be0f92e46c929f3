// Noisy images (a dim scene, a small sensor's high gain): the sensor's noise smoothed before the
// passes read them again.
//
// Why: the passes find dots as local extremes and thresholded blobs over a few pixels. At a noise
// of 6-10 grey levels (sigma per pixel) on light dots of 2-3 px standing 30-60 levels above a
// pack's dark panel, every pixel of the panel and of the scene is an extreme: the real pack photos
// with noise of sigma 10 gave the fast pass 4,089 dark candidates where the photo as taken gave
// 259, its focus regions became the whole frame, and the peak search's lattice grew over the noise
// of the panel (47 x 93 positions for a symbol of 7 x 57). A Gaussian whose width follows the noise
// (1.1 px up to sigma 8, 1.4 px from sigma 10: a wider one merges the dots) restores separate
// peaks; readDotCodes reads the image smoothed by it, then by the narrowest width, before any
// other copy, and the smoothed image gets the upsampled and stretched copies too.
//
// Only images that show such noise: Immerkaer's estimate (the mean absolute response of a mask that
// cancels every plane and quadric surface, so mostly noise and fine texture are left) measures
// 0.1-3.2 grey levels on the pack photos as taken and under every other transform we tried, 6 and
// 10 where that much noise was added.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "detector/detector_internal.h"
#include "detector/wide_vectors.h"

namespace dc {
namespace det {

namespace {

// Every kCueStride-th row is measured (an empty frame that reads nothing pays the cue: 45 rows of a
// 1280x720 frame, 57k samples, hold the estimate to a few hundredths of a grey level).
constexpr int kCueStride = 16;

}  // namespace

DC_WIDE_VECTORS float noiseSigma(const GreyImage& img) {
  if (img.width < 3 || img.height < 3) return 0;
  const int W = img.width;
  int64_t sum = 0, n = 0;
  for (int y = 1; y + 1 < img.height; y += kCueStride) {
    const uint8_t* a = img.data + static_cast<size_t>(y - 1) * img.stride;
    const uint8_t* b = a + img.stride;
    const uint8_t* c = b + img.stride;
    int rowSum = 0;  // (at most 1020 * 4096 per row)
    for (int x = 1; x + 1 < W; ++x) {
      const int l = a[x - 1] - 2 * a[x] + a[x + 1] - 2 * (b[x - 1] - 2 * b[x] + b[x + 1]) + c[x - 1] - 2 * c[x] + c[x + 1];
      rowSum += std::abs(l);
    }
    sum += rowSum;
    n += W - 2;
  }
  if (n == 0) return 0;
  // The mask's response to white noise of sigma s has a standard deviation of 6 s.
  return static_cast<float>(std::sqrt(3.14159265358979 / 2) * static_cast<double>(sum) / n / 6);
}

float denoiseWidth(float noiseSigma) { return noiseSigma < kNoisy ? 0 : std::clamp(0.14f * noiseSigma, kFirstDenoise, 1.4f); }

void denoiseImage(const GreyImage& in, float width, std::vector<uint8_t>& buf, GreyImage& out) {
  blurToGrey(greyToFloat(in), in.width, in.height, width * width, buf, out);
}

}  // namespace det
}  // namespace dc
