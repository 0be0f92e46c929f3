// Block-coded (JPEG) images: the 8x8 block borders smoothed before the passes read them again.
//
// Why: at a strong compression (quality 30-50) each 8x8 block keeps only its low frequencies and
// its mean steps against its neighbours. With modules of 2-3 px (a pack's light dots) the steps
// at the block borders are as strong as the dots: the fast pass's focus regions follow the block
// grid instead of the panel, and the peak search finds maxima on the block corners, which the
// lattice growth joins to the symbol's (the real pack photos at JPEG quality 30: lattices of 58 x
// 60+ positions grown over the panel's ringing, for a symbol of 58 x 7). Smoothing the small steps
// across the block borders (a large step is an edge of the scene, kept) and then the whole image
// slightly (sigma 0.7 px: the ringing inside the blocks) restores separate peaks.
//
// Only images that show the block grid: the mean grey step across the 8-px borders is measured
// against the mean step elsewhere (0.9-1.2 on photos that were never block-coded or were resampled
// since, 1.2-1.45 on the empty 1280x720 speed frames, 1.67-2.4 on the pack photos at quality 50,
// 1.97-3.1 at quality 30).
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

constexpr int kBlock = 8;
// A step across a block border under this many grey levels is the coding's, not the scene's.
constexpr float kSmallStep = 4.0f;
// A band of 8 rows every kCueStride rows is measured for the cue (every band: whole-row sums are
// cheap; an empty frame that reads nothing pays the cue).
constexpr int kCueStride = 8;

// The excess of the border step over the slope on either side, spread over the two pixels on each
// side of the border (3/8 and 1/8 of it), where the step is small. p points at the first pixel
// after the border; step is the distance between neighbours along the filtered direction.
inline void smoothBorder(float* p, ptrdiff_t step) {
  const float p1 = p[-2 * step], p0 = p[-step], q0 = p[0], q1 = p[step];
  const float d = q0 - p0;
  if (std::fabs(d) >= kSmallStep) return;
  const float excess = d - 0.5f * ((p0 - p1) + (q1 - q0));
  p[-2 * step] = p1 + excess * 0.125f;
  p[-step] = p0 + excess * 0.375f;
  p[0] = q0 - excess * 0.375f;
  p[step] = q1 - excess * 0.125f;
}

}  // namespace

DC_WIDE_VECTORS float blockiness(const GreyImage& img) {
  if (img.width < 4 * kBlock || img.height < 4 * kBlock) return 0;
  const int W = img.width;
  // Whole rows at a time (the loops vectorise): in each measured band of 8 rows, the
  // vertical steps into and inside the band, and the horizontal steps along its middle row.
  auto steps = [](const uint8_t* a, const uint8_t* b, int n) {
    int sum = 0;  // (an int sum of absolute byte differences is a vector instruction's pattern)
    for (int x = 0; x < n; ++x) sum += std::abs(static_cast<int>(a[x]) - static_cast<int>(b[x]));
    return static_cast<int64_t>(sum);
  };
  int64_t border = 0, inner = 0, nBorder = 0, nInner = 0;
  for (int y0 = kBlock; y0 + kBlock <= img.height; y0 += kCueStride) {
    for (int k = 0; k < kBlock; ++k) {
      const uint8_t* row = img.data + static_cast<size_t>(y0 + k) * img.stride;
      (k == 0 ? border : inner) += steps(row, row - img.stride, W);
      (k == 0 ? nBorder : nInner) += W;
    }
    const uint8_t* mid = img.data + static_cast<size_t>(y0 + kBlock / 2) * img.stride;
    const int64_t all = steps(mid + 1, mid, W - 1);
    int64_t atBorders = 0;
    int n = 0;
    for (int x = kBlock; x < W; x += kBlock, ++n) atBorders += std::abs(mid[x] - mid[x - 1]);
    border += atBorders;
    nBorder += n;
    inner += all - atBorders;
    nInner += W - 1 - n;
  }
  if (nBorder == 0 || nInner == 0 || inner == 0) return 0;
  return static_cast<float>(static_cast<double>(border) / nBorder / (static_cast<double>(inner) / nInner));
}

bool deblockJpeg(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  if (!in.valid() || blockiness(in) < kBlockCoded) return false;
  const int W = in.width, H = in.height;
  std::vector<float> f = greyToFloat(in);
  for (int y = 0; y < H; ++y)
    for (int x = kBlock; x + 1 < W; x += kBlock) smoothBorder(&f[static_cast<size_t>(y) * W + x], 1);
  for (int y = kBlock; y + 1 < H; y += kBlock)
    for (int x = 0; x < W; ++x) smoothBorder(&f[static_cast<size_t>(y) * W + x], W);
  for (float& v : f) v = std::clamp(std::nearbyint(v), 0.0f, 255.0f);  // (the grey range of the image)
  blurToGrey(f, W, H, 0.49f, buf, out);                                // sigma 0.7 px
  return true;
}

}  // namespace det
}  // namespace dc
