// Resampling by two (native/detector/resample_image.cpp) against the definitions written out the
// plain way: bilinear and cubic interpolation at the aligned centre of every output pixel, and the
// mean of every 2x2 block; the unsharp mask.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"

using dc::GreyImage;

namespace {

// Output pixel (x, y) samples the input at ((x + 0.5) / 2 - 0.5, (y + 0.5) / 2 - 0.5), clamped
// to the image, interpolated bilinearly and rounded to the nearest level.
uint8_t bilinearAt(const GreyImage& in, int x, int y) {
  const double sx = std::clamp((x + 0.5) / 2 - 0.5, 0.0, in.width - 1.0);
  const double sy = std::clamp((y + 0.5) / 2 - 0.5, 0.0, in.height - 1.0);
  const int x0 = static_cast<int>(sx), y0 = static_cast<int>(sy);
  const int x1 = std::min(in.width - 1, x0 + 1), y1 = std::min(in.height - 1, y0 + 1);
  const double fx = sx - x0, fy = sy - y0;
  const double v = (in.at(x0, y0) * (1 - fx) + in.at(x1, y0) * fx) * (1 - fy) + (in.at(x0, y1) * (1 - fx) + in.at(x1, y1) * fx) * fy;
  return static_cast<uint8_t>(std::lround(v));
}

// Keys' cubic convolution kernel, a = -1/2.
double keys(double t) {
  t = std::fabs(t);
  if (t <= 1) return 1.5 * t * t * t - 2.5 * t * t + 1;
  if (t < 2) return -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2;
  return 0;
}

// Output pixel (x, y) of the cubic upsampling: the input at the same aligned position, each axis
// weighed by Keys' kernel over the four nearest pixels (clamped to the image), rounded and
// clipped to 0-255.
uint8_t cubicAt(const GreyImage& in, int x, int y) {
  const double sx = (x + 0.5) / 2 - 0.5, sy = (y + 0.5) / 2 - 0.5;
  const int bx = static_cast<int>(std::floor(sx)), by = static_cast<int>(std::floor(sy));
  double v = 0;
  for (int j = by - 1; j <= by + 2; ++j)
    for (int i = bx - 1; i <= bx + 2; ++i)
      v += keys(sx - i) * keys(sy - j) * in.at(std::clamp(i, 0, in.width - 1), std::clamp(j, 0, in.height - 1));
  return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

// A random image of w x h inside rows of stride w + pad (the pad bytes must never be read as
// pixels: they hold a value no pixel has).
std::vector<uint8_t> randomImage(std::mt19937& rng, int w, int h, int pad, GreyImage& img) {
  std::vector<uint8_t> data(static_cast<size_t>(w + pad) * h, 0);
  std::uniform_int_distribution<int> level(1, 255);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w + pad; ++x) data[static_cast<size_t>(y) * (w + pad) + x] = x < w ? static_cast<uint8_t>(level(rng)) : 0;
  img = GreyImage{data.data(), w, h, w + pad};
  return data;
}

}  // namespace

// Every output pixel of `upsample` against `expected(in, x, y)`, over random images of eight sizes
// with and without padded rows.
template <class Upsample, class Expected>
void checkEveryPixel(unsigned seed, Upsample&& upsample, Expected&& expected) {
  std::mt19937 rng(seed);
  const int sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {3, 7}, {17, 9}, {64, 33}, {101, 48}};
  for (const auto& s : sizes)
    for (int pad : {0, 3}) {
      GreyImage in;
      const std::vector<uint8_t> data = randomImage(rng, s[0], s[1], pad, in);
      std::vector<uint8_t> buf;
      GreyImage up;
      upsample(in, buf, up);
      REQUIRE(up.width == 2 * s[0] && up.height == 2 * s[1] && up.stride == up.width);
      int wrong = 0;
      for (int y = 0; y < up.height; ++y)
        for (int x = 0; x < up.width; ++x) wrong += up.at(x, y) != expected(in, x, y);
      CHECK_EQ(wrong, 0);
    }
}

TEST("resample: upsample2 is the aligned bilinear interpolation, rounded, at every pixel and size") {
  checkEveryPixel(7, dc::det::upsample2, bilinearAt);
}

TEST("resample: upsample2Cubic is Keys' cubic convolution at the aligned positions, rounded and clipped, at every pixel and size") {
  checkEveryPixel(11, dc::det::upsample2Cubic, cubicAt);
}

TEST("resample: two dark dots a pixel apart keep a lighter gap upsampled by cubic convolution than bilinearly") {
  // A row of paper (200) with dark pixels (60) at x = 4 and 6: the gap pixel x = 5 between them.
  // Upsampled, the gap's two output pixels (10, 11) against the dots' darkest: the cubic kernel's
  // undershoot keeps more of the gap than bilinear interpolation, which spreads each dot over it.
  std::vector<uint8_t> px(12 * 5, 200);
  for (int y = 0; y < 5; ++y) px[static_cast<size_t>(y) * 12 + 4] = px[static_cast<size_t>(y) * 12 + 6] = 60;
  const GreyImage in{px.data(), 12, 5, 12};
  std::vector<uint8_t> lb, cb;
  GreyImage lin, cub;
  dc::det::upsample2(in, lb, lin);
  dc::det::upsample2Cubic(in, cb, cub);
  auto gapDepth = [](const GreyImage& u) {
    const int gap = std::max(u.at(10, 4), u.at(11, 4)), dot = std::min(u.at(8, 4), u.at(13, 4));
    return gap - dot;
  };
  CHECK(gapDepth(cub) > gapDepth(lin) + 10);
}

TEST("resample: upsample2 rounds exact halves up (a ramp of single steps)") {
  // 0 and 1 side by side: the output between them is 1/4 or 3/4 of a level, and a row blend of
  // 1/4 + 3/4 levels can land on exactly one half, which std::lround takes up
  const uint8_t px[] = {0, 1, 1, 0};
  const GreyImage in{px, 2, 2, 2};
  std::vector<uint8_t> buf;
  GreyImage up;
  dc::det::upsample2(in, buf, up);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) CHECK_EQ(static_cast<int>(up.at(x, y)), static_cast<int>(bilinearAt(in, x, y)));
}

TEST("resample: downsample2 is the rounded mean of each 2x2 block, an odd last row and column dropped") {
  std::mt19937 rng(11);
  GreyImage in;
  const std::vector<uint8_t> data = randomImage(rng, 31, 20, 5, in);
  std::vector<uint8_t> buf;
  GreyImage half;
  dc::det::downsample2(in, buf, half);
  REQUIRE(half.width == 15 && half.height == 10);
  int wrong = 0;
  for (int y = 0; y < half.height; ++y)
    for (int x = 0; x < half.width; ++x) {
      const int sum = in.at(2 * x, 2 * y) + in.at(2 * x + 1, 2 * y) + in.at(2 * x, 2 * y + 1) + in.at(2 * x + 1, 2 * y + 1);
      wrong += half.at(x, y) != (sum + 2) / 4;
    }
  CHECK_EQ(wrong, 0);
}

// The separable Gaussian of the smoothed re-reads (gaussian_blur.cpp: the denoised and deblocked
// copies) against its definition written out per pixel: the normalised taps of radius 3 sigma
// rounded, edges clamped, each output the sum of its taps in the order k = -r..r, rounded to the
// nearest level. The row-wise loops must give the very same bytes (the images read are the same).
TEST("gaussian blur: blurToGrey is the clamped separable Gaussian, rounded, byte for byte") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> level(0, 255);
  for (const auto& [w, h, variance] : {std::tuple<int, int, float>{1, 1, 0.49f}, {2, 5, 1.21f}, {7, 3, 1.96f}, {37, 23, 0.49f}, {64, 48, 1.21f}, {129, 31, 0.64f}, {5, 40, 2.25f}}) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h);
    for (uint8_t& p : px) p = static_cast<uint8_t>(level(rng));
    const GreyImage in{px.data(), w, h, w};
    std::vector<uint8_t> buf;
    GreyImage out;
    dc::det::blurToGrey(dc::det::greyToFloat(in), w, h, variance, buf, out);
    REQUIRE(out.width == w && out.height == h);
    const int r = std::max(1, static_cast<int>(std::lround(3 * std::sqrt(variance))));
    std::vector<float> tap(2 * r + 1);
    float sum = 1;
    for (int k = 1; k <= r; ++k) {
      tap[r + k] = std::exp(-static_cast<float>(k * k) / (2 * variance));
      sum += 2 * tap[r + k];
    }
    const float norm = 1.0f / sum;
    tap[r] = norm;
    for (int k = 1; k <= r; ++k) tap[r - k] = tap[r + k] *= norm;
    std::vector<float> across(px.size());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        float acc = 0;
        for (int k = -r; k <= r; ++k) acc += tap[k + r] * px[static_cast<size_t>(y) * w + std::clamp(x + k, 0, w - 1)];
        across[static_cast<size_t>(y) * w + x] = acc;
      }
    int differ = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        float acc = 0;
        for (int k = -r; k <= r; ++k) acc += tap[k + r] * across[static_cast<size_t>(std::clamp(y + k, 0, h - 1)) * w + x];
        if (out.at(x, y) != static_cast<uint8_t>(std::clamp(std::lround(acc), 0L, 255L))) ++differ;
      }
    CHECK_EQ(differ, 0);
  }
}

TEST("unsharp mask: the image plus amount times its difference from the Gaussian blur, rounded and clipped") {
  std::mt19937 rng(5);
  for (const auto& s : {std::pair<int, int>{1, 1}, {7, 3}, {40, 23}})
    for (int pad : {0, 2}) {
      GreyImage in;
      const std::vector<uint8_t> data = randomImage(rng, s.first, s.second, pad, in);
      std::vector<uint8_t> blurBuf, buf;
      GreyImage blurred, out;
      dc::det::blurToGrey(dc::det::greyToFloat(in), in.width, in.height, 4.0f, blurBuf, blurred);
      dc::det::unsharpMask(in, 2.0f, 1.5f, buf, out);
      REQUIRE(out.width == in.width && out.height == in.height);
      int wrong = 0;
      for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
          const double v = in.at(x, y) + 1.5 * (in.at(x, y) - blurred.at(x, y));
          wrong += out.at(x, y) != static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
        }
      CHECK_EQ(wrong, 0);
    }
}

TEST("unsharp mask: a flat image stays flat, and a dot on a slope of light stands out against its own surroundings") {
  // light rising 3 levels a pixel from left to right; one dark dot (40 levels below) in the middle
  const int w = 41, h = 21;
  std::vector<uint8_t> px(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) px[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(60 + 3 * x - (x == 20 && y == 10 ? 40 : 0));
  const GreyImage in{px.data(), w, h, w};
  std::vector<uint8_t> buf;
  GreyImage out;
  dc::det::unsharpMask(in, 2.0f, 1.5f, buf, out);
  // the slope is linear, so the blur leaves it (away from the clamped edges) and so does the mask
  CHECK_EQ(static_cast<int>(out.at(10, 3)), static_cast<int>(in.at(10, 3)));
  // the dot's depth below its row's neighbours two pixels away grows
  const int before = (in.at(18, 10) + in.at(22, 10)) / 2 - in.at(20, 10);
  const int after = (out.at(18, 10) + out.at(22, 10)) / 2 - out.at(20, 10);
  CHECK(after > before + 20);
  std::vector<uint8_t> flat(static_cast<size_t>(w) * h, 128);
  dc::det::unsharpMask(GreyImage{flat.data(), w, h, w}, 2.0f, 1.5f, buf, out);
  int changed = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) changed += out.at(x, y) != 128;
  CHECK_EQ(changed, 0);
}
