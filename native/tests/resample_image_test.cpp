// Resampling by two (native/detector/resample_image.cpp) against the definitions written out the
// plain way: bilinear interpolation at the aligned centre of every output pixel, and the mean of
// every 2x2 block.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
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

TEST("resample: upsample2 is the aligned bilinear interpolation, rounded, at every pixel and size") {
  std::mt19937 rng(7);
  const int sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {3, 7}, {17, 9}, {64, 33}, {101, 48}};
  for (const auto& s : sizes)
    for (int pad : {0, 3}) {
      GreyImage in;
      const std::vector<uint8_t> data = randomImage(rng, s[0], s[1], pad, in);
      std::vector<uint8_t> buf;
      GreyImage up;
      dc::det::upsample2(in, buf, up);
      REQUIRE(up.width == 2 * s[0] && up.height == 2 * s[1] && up.stride == up.width);
      int wrong = 0;
      for (int y = 0; y < up.height; ++y)
        for (int x = 0; x < up.width; ++x) wrong += up.at(x, y) != bilinearAt(in, x, y);
      CHECK_EQ(wrong, 0);
    }
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
