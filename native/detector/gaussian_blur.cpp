// A separable Gaussian on a float image, shared by the re-reads that smooth the whole image first
// (deblock_jpeg.cpp: the ringing inside JPEG blocks; denoise_image.cpp: a sensor's noise).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "detector/detector_internal.h"

namespace dc {
namespace det {

namespace {

// A separable Gaussian of the given variance (sigma squared, px^2; radius 3 sigma rounded, edges
// clamped) from src into dst.
void gaussianBlur(const std::vector<float>& src, int W, int H, float variance, std::vector<float>& tmp,
                  std::vector<float>& dst) {
  // Radius 3 sigma, rounded: 2 for 0.7 px. The weights are summed and scaled in the order the
  // deblocked re-read's own kernel was (its images are read exactly as before).
  const int r = std::max(1, static_cast<int>(std::lround(3 * std::sqrt(variance))));
  std::vector<float> w(2 * r + 1);
  float sum = 1;
  for (int k = 1; k <= r; ++k) {
    w[r + k] = std::exp(-static_cast<float>(k * k) / (2 * variance));
    sum += 2 * w[r + k];
  }
  const float norm = 1.0f / sum;
  w[r] = norm;
  for (int k = 1; k <= r; ++k) {
    w[r + k] *= norm;
    w[r - k] = w[r + k];
  }
  tmp.resize(src.size());
  dst.resize(src.size());
  for (int y = 0; y < H; ++y) {
    const float* s = &src[static_cast<size_t>(y) * W];
    float* t = &tmp[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) {
      float acc = 0;
      for (int k = -r; k <= r; ++k) acc += w[k + r] * s[std::clamp(x + k, 0, W - 1)];
      t[x] = acc;
    }
  }
  std::vector<const float*> rows(2 * r + 1);
  for (int y = 0; y < H; ++y) {
    for (int k = -r; k <= r; ++k) rows[k + r] = &tmp[static_cast<size_t>(std::clamp(y + k, 0, H - 1)) * W];
    float* d = &dst[static_cast<size_t>(y) * W];
    for (int x = 0; x < W; ++x) {
      float acc = 0;
      for (int k = 0; k <= 2 * r; ++k) acc += w[k] * rows[k][x];
      d[x] = acc;
    }
  }
}

}  // namespace

std::vector<float> greyToFloat(const GreyImage& in) {
  std::vector<float> f(static_cast<size_t>(in.width) * in.height);
  for (int y = 0; y < in.height; ++y) {
    const uint8_t* src = in.data + static_cast<size_t>(y) * in.stride;
    std::copy(src, src + in.width, &f[static_cast<size_t>(y) * in.width]);
  }
  return f;
}

void blurToGrey(const std::vector<float>& f, int W, int H, float variance, std::vector<uint8_t>& buf, GreyImage& out) {
  std::vector<float> tmp, smooth;
  gaussianBlur(f, W, H, variance, tmp, smooth);
  buf.resize(f.size());
  for (size_t i = 0; i < f.size(); ++i) buf[i] = static_cast<uint8_t>(std::clamp(std::lround(smooth[i]), 0L, 255L));
  out = GreyImage::packed(buf.data(), W, H);
}

}  // namespace det
}  // namespace dc
