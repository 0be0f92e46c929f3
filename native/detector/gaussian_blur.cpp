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
  // Each output is the sum of its taps in the order k = -r..r, as the plain loop over a pixel's
  // taps adds them (the images read are bit for bit the same), but tap after tap over a whole
  // row: the inner loops run along x and the compiler vectorises them (a 1280x720 frame's blur
  // took about 9 ms with a clamped index per tap).
  const int x0 = std::min(r, W), x1 = std::max(x0, W - r);
  for (int y = 0; y < H; ++y) {
    const float* s = &src[static_cast<size_t>(y) * W];
    float* t = &tmp[static_cast<size_t>(y) * W];
    auto edge = [&](int x) {
      float acc = 0;
      for (int k = -r; k <= r; ++k) acc += w[k + r] * s[std::clamp(x + k, 0, W - 1)];
      t[x] = acc;
    };
    for (int x = 0; x < x0; ++x) edge(x);
    std::fill(t + x0, t + x1, 0.0f);
    for (int k = -r; k <= r; ++k) {
      const float wk = w[k + r];
      const float* sk = s + k;
      for (int x = x0; x < x1; ++x) t[x] += wk * sk[x];
    }
    for (int x = x1; x < W; ++x) edge(x);
  }
  for (int y = 0; y < H; ++y) {
    float* d = &dst[static_cast<size_t>(y) * W];
    std::fill(d, d + W, 0.0f);
    for (int k = -r; k <= r; ++k) {
      const float wk = w[k + r];
      const float* row = &tmp[static_cast<size_t>(std::clamp(y + k, 0, H - 1)) * W];
      for (int x = 0; x < W; ++x) d[x] += wk * row[x];
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
  // std::lround's value, clamped to 0..255, without a library call per pixel: v + 0.5 is exact in
  // double, and truncation rounds it as lround rounds v (halves away from zero) for v >= 0.
  for (size_t i = 0; i < f.size(); ++i) {
    const double v = static_cast<double>(smooth[i]) + 0.5;
    buf[i] = v <= 0 ? 0 : v >= 255 ? 255
                                   : static_cast<uint8_t>(v);
  }
  out = GreyImage::packed(buf.data(), W, H);
}

}  // namespace det
}  // namespace dc
