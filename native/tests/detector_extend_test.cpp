// Extension-stage tests: the search for a new dot near each predicted position skips its 49
// samples when the darkest pixel under them (lowestUnder) cannot reach a dot's contrast, so that
// floor must never lie above any sample the search would have taken.
#include <algorithm>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"

TEST("extend: no bilinear or disc sample within a box reads below the box's ink floor") {
  // Coarse random pixels with one isolated dark or light pixel each (the sample that reaches it
  // only through a small bilinear weight is the one an off-by-one pixel range would miss), boxes
  // anywhere (also past the image's edges, where bilinear clamps), points anywhere inside them.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const int w = 23, h = 17;
  int tested = 0, tight = 0;
  for (int image = 0; image < 40; ++image) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h);
    for (uint8_t& v : px) v = static_cast<uint8_t>(120 + (rng() % 100));
    px[(rng() % h) * w + rng() % w] = static_cast<uint8_t>(rng() % 2 ? 3 : 252);
    const dc::GreyImage img{px.data(), w, h, w};
    for (uint8_t xm : {uint8_t{0}, uint8_t{0xFF}})
      for (int box = 0; box < 200; ++box) {
        const float x0 = -3 + unit(rng) * (w + 3), y0 = -3 + unit(rng) * (h + 3);
        const float x1 = x0 + unit(rng) * 5, y1 = y0 + unit(rng) * 5;
        const float floor = dc::det::lowestUnder(img, x0, y0, x1, y1, xm);
        float lowest = 1e9f;
        for (int k = 0; k < 60; ++k) {
          const float x = x0 + unit(rng) * (x1 - x0), y = y0 + unit(rng) * (y1 - y0);
          const float v = dc::det::bilinear(img, x, y, xm);
          CHECK(v >= floor);
          lowest = std::min(lowest, v);
          // a disc whose five points lie in the box
          const float rad = 0.5f * std::min({x - x0, x1 - x, y - y0, y1 - y});
          CHECK(dc::det::sampleDisc(img, dc::PointF{x, y}, rad, xm) >= floor);
          ++tested;
        }
        // (and it is the pixels' own floor, not a loose one: corners sampled exactly)
        const float corner = dc::det::bilinear(img, x0, y0, xm);
        tight += corner - floor < 0.02f ? 1 : 0;
      }
  }
  CHECK(tested > 400000);
  CHECK(tight > 100);
}
