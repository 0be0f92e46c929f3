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
//
// upsample2Cubic puts its pixels at the same places by cubic convolution (Keys' kernel, a = -1/2):
// the four nearest input pixels along each axis, a quarter, three quarters, one and a quarter and
// one and three quarters of a pixel away, weigh 111, 29, -9 and -3 / 128. Its lobes undershoot
// past an edge, so two small dots a pixel apart keep a dip between them where bilinear
// interpolation fills it in (read_dotcodes.cpp, readUpsampled).
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

namespace {

// Keys' cubic (a = -1/2) for an output pixel a quarter of a pixel before input pixel k: the
// weights of input pixels k-2, k-1, k and k+1, in 128ths (the pixel a quarter after k mirrors them).
constexpr int32_t kCubicWeights[4] = {-3, 29, 111, -9};

// One input row widened to twice its width, in 128ths, edges clamped.
void cubicWidenRow(const uint8_t* in, int w, int32_t* out) {
  auto at = [&](int k) { return static_cast<int32_t>(in[std::min(std::max(k, 0), w - 1)]); };
  const int32_t* c = kCubicWeights;
  for (int k = 0; k < w; ++k) {
    out[2 * k] = c[0] * at(k - 2) + c[1] * at(k - 1) + c[2] * at(k) + c[3] * at(k + 1);
    out[2 * k + 1] = c[3] * at(k - 1) + c[2] * at(k) + c[1] * at(k + 1) + c[0] * at(k + 2);
  }
}

// 128ths of 128ths back to a grey level, rounded half up and clipped (the kernel overshoots).
uint8_t cubicLevel(int32_t v) { return static_cast<uint8_t>(std::min(255, std::max(0, v + (1 << 13)) >> 14)); }

}  // namespace

void upsample2Cubic(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  const int W = in.width * 2, H = in.height * 2;
  buf.resize(static_cast<size_t>(W) * H);
  if (W == 0 || H == 0) {
    out = GreyImage::packed(buf.data(), W, H);
    return;
  }
  // every input row widened first (the whole-image copies are of small images: at most 800 px a side)
  std::vector<int32_t> wide(static_cast<size_t>(in.height) * W);
  for (int k = 0; k < in.height; ++k) cubicWidenRow(in.data + static_cast<size_t>(k) * in.stride, in.width, &wide[static_cast<size_t>(k) * W]);
  auto row = [&](int k) { return &wide[static_cast<size_t>(std::min(std::max(k, 0), in.height - 1)) * W]; };
  const int32_t* c = kCubicWeights;
  for (int k = 0; k < in.height; ++k) {
    const int32_t *a = row(k - 2), *b = row(k - 1), *m = row(k), *d = row(k + 1), *e = row(k + 2);
    uint8_t* before = &buf[static_cast<size_t>(2 * k) * W];
    uint8_t* after = before + W;
    for (int x = 0; x < W; ++x) {
      before[x] = cubicLevel(c[0] * a[x] + c[1] * b[x] + c[2] * m[x] + c[3] * d[x]);
      after[x] = cubicLevel(c[3] * b[x] + c[2] * m[x] + c[1] * d[x] + c[0] * e[x]);
    }
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
