// Whole-image and region resampling by two: the re-reads of small images and fine lattices
// (upsample2) and the halved reads of large regions (downsample2).
//
// upsample2 is bilinear with pixel centres aligned: an output pixel lies a quarter of an input
// pixel from its two nearest input pixels, so its weights are always 3/4 and 1/4 (1 and 0 at the
// image's outer half pixel) along each axis, and the value is (9a + 3b + 3c + d) / 16 of the four
// nearest pixels. Computed in integers, rounded half up; this is exactly what the float
// interpolation with std::lround gave (its products and sums of quarters are exact in float), at
// a tenth of the instructions: every 640x480 image that does not read at once is upsampled whole,
// and the float loop was about 230 instructions per output pixel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "detector/detector_internal.h"
#include "detector/wide_vectors.h"

namespace dc {
namespace det {

namespace {

// One input row widened to twice its width, as sixteenths times four (weights 3/4, 1/4 in
// quarters): out[2k] = in[k-1] + 3 in[k], out[2k+1] = 3 in[k] + in[k+1], edges clamped.
void widenRow(const uint8_t* in, int w, uint16_t* out) {
  out[0] = static_cast<uint16_t>(4 * in[0]);
  for (int k = 1; k < w; ++k) out[2 * k] = static_cast<uint16_t>(in[k - 1] + 3 * in[k]);
  for (int k = 0; k + 1 < w; ++k) out[2 * k + 1] = static_cast<uint16_t>(3 * in[k] + in[k + 1]);
  out[2 * w - 1] = static_cast<uint16_t>(4 * in[w - 1]);
}

// An output row from two widened rows weighted 3:1 (both the same row at the image's edges).
void blendRows(const uint16_t* near, const uint16_t* far, int n, uint8_t* out) {
  for (int x = 0; x < n; ++x) out[x] = static_cast<uint8_t>((3 * near[x] + far[x] + 8) >> 4);
}

}  // namespace

void upsample2(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  const int W = in.width * 2, H = in.height * 2;
  buf.resize(static_cast<size_t>(W) * H);
  if (W == 0 || H == 0) {
    out = GreyImage::packed(buf.data(), W, H);
    return;
  }
  // widened input rows k-1, k, k+1 (clamped), reused as the output moves down
  std::vector<uint16_t> rows(static_cast<size_t>(3) * W);
  uint16_t* prev = rows.data();
  uint16_t* cur = prev + W;
  uint16_t* next = cur + W;
  widenRow(in.data, in.width, cur);
  std::copy(cur, cur + W, prev);
  for (int k = 0; k < in.height; ++k) {
    if (k + 1 < in.height)
      widenRow(in.data + static_cast<size_t>(k + 1) * in.stride, in.width, next);
    else
      std::copy(cur, cur + W, next);
    blendRows(cur, prev, W, &buf[static_cast<size_t>(2 * k) * W]);
    blendRows(cur, next, W, &buf[static_cast<size_t>(2 * k + 1) * W]);
    std::swap(prev, cur);  // cur becomes the old row k (next round's k-1)
    std::swap(cur, next);  // and next the row k+1 just widened
  }
  out = GreyImage::packed(buf.data(), W, H);
}

DC_WIDE_VECTORS void downsample2(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  const int W = in.width / 2, H = in.height / 2;
  buf.resize(static_cast<size_t>(W) * H);
  for (int y = 0; y < H; ++y) {
    const uint8_t* a = in.data + static_cast<size_t>(2 * y) * in.stride;
    const uint8_t* b = a + in.stride;
    uint8_t* o = &buf[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) o[x] = static_cast<uint8_t>((a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1] + 2) >> 2);
  }
  out = GreyImage::packed(buf.data(), W, H);
}

}  // namespace det
}  // namespace dc
