// Video fusion (detector/frame_fusion.h) on rendered frames: a symbol of vectors.jsonl under a
// white glare band that slides across it, so that no frame shows it whole, is read from the
// frames together; a symbol replaced by another of the same size in the same place is never
// reported mixed, nor reported while it is not in view.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "detector/frame_fusion.h"
#include "check.h"
#include "dotcode_test_util.h"

namespace {

using dctest::loadVectors;
using dctest::Vector;

struct Band {
  double from = 0, to = 0;  // columns of the symbol (grid units) washed out white
};

// The matrix as round dark dots (module 6 px, dot 0.8 module) on a light label, shifted by
// (dx, dy) px, 2x2 supersampled; pixels of the band's columns are clipped white (glare).
std::vector<uint8_t> renderFrame(const Vector& v, int width, int height, double dx, double dy, Band band) {
  const double module = 6, rad = 0.4;
  const double x0 = width / 2.0 - (v.cols - 1) * module / 2 + dx, y0 = height / 2.0 - (v.rows - 1) * module / 2 + dy;
  std::vector<uint8_t> img(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int hits = 0;
      for (int s = 0; s < 4; ++s) {
        const double gc = (x + 0.25 + 0.5 * (s & 1) - x0) / module, gr = (y + 0.25 + 0.5 * (s >> 1) - y0) / module;
        const int c = static_cast<int>(std::lround(gc)), r = static_cast<int>(std::lround(gr));
        if (r < 0 || c < 0 || r >= v.rows || c >= v.cols || v.matrix[r][c] != '1') continue;
        if ((gc - c) * (gc - c) + (gr - r) * (gr - r) <= rad * rad) ++hits;
      }
      const double gc = (x + 0.5 - x0) / module;
      const bool glare = gc >= band.from && gc <= band.to;
      img[static_cast<size_t>(y) * width + x] = glare ? 255 : static_cast<uint8_t>(std::lround(220 - 190.0 * hits / 4));
    }
  return img;
}

// Symbols of at least 20 columns (a 30% band then hides 6 lines or more).
std::vector<Vector> wideSymbols() {
  std::vector<Vector> out;
  for (Vector& v : loadVectors())
    if (v.cols >= 20 && v.rows >= 10 && v.cols <= 60 && !v.gs1 && v.ecis.empty() && v.saCount == 0) out.push_back(std::move(v));
  return out;
}

}  // namespace

TEST("frame fusion: a symbol no single frame shows whole is read from the frames together") {
  const std::vector<Vector> vs = wideSymbols();
  REQUIRE(vs.size() >= 3);
  int fusedReads = 0, singleReads = 0, sequences = 0;
  for (size_t i = 0; i < vs.size() && sequences < 3; i += std::max<size_t>(1, vs.size() / 3), ++sequences) {
    const Vector& v = vs[i];
    const int W = static_cast<int>(v.cols * 6 * 1.6) + 40, H = static_cast<int>(v.rows * 6 * 1.6) + 40;
    dc::FrameFusion fusion(12);
    bool read = false;
    const int frames = 12;
    for (int k = 0; k < frames; ++k) {
      // a band of 30% of the columns, from the left part to the right part, a hand that shakes a little
      const double centre = v.cols * (0.25 + 0.5 * k / (frames - 1)), half = 0.15 * v.cols;
      const std::vector<uint8_t> img = renderFrame(v, W, H, 2.0 * std::sin(k), 1.5 * std::cos(1.7 * k), Band{centre - half, centre + half});
      const dc::GreyImage gi{img.data(), W, H, W};
      dc::ReadOptions alone;
      alone.maxSymbols = 1;
      if (!dc::readDotCodes(gi, alone).empty()) ++singleReads;
      const dc::FramePush push = fusion.push(gi, alone);
      for (const dc::FrameRead& r : push.reads) {
        CHECK_EQ(r.read.symbol.bytes, v.expected);  // never anything else
        if (r.framesUsed > 1) {
          CHECK_EQ(r.read.via, std::string("dotcode:fused"));
          read = true;
        }
      }
    }
    if (read) ++fusedReads;
  }
  CHECK(singleReads <= 2);          // the band hides too much for a single frame
  CHECK_EQ(fusedReads, sequences);  // and the frames together read every symbol
}

TEST("frame fusion: a symbol replaced by another of the same size is never mixed with it") {
  // (the second symbol of this pair is not read within its 12 frames: whether it is, is the
  // sequence benchmark's business; here every report must be of the symbol in view)
  const std::vector<Vector> vs = wideSymbols();
  REQUIRE(vs.size() >= 2);
  // two different symbols of the same size
  const Vector* a = nullptr;
  const Vector* b = nullptr;
  for (size_t i = 0; i < vs.size() && !b; ++i)
    for (size_t j = i + 1; j < vs.size() && !b; ++j)
      if (vs[i].rows == vs[j].rows && vs[i].cols == vs[j].cols && vs[i].expected != vs[j].expected) {
        a = &vs[i];
        b = &vs[j];
      }
  REQUIRE(b != nullptr);
  const int W = static_cast<int>(a->cols * 6 * 1.6) + 40, H = static_cast<int>(a->rows * 6 * 1.6) + 40;
  dc::FrameFusion fusion(12);
  int reportsOfA = 0;
  for (int k = 0; k < 24; ++k) {
    const Vector& inView = k < 12 ? *a : *b;
    const double t = k < 12 ? k / 11.0 : (k - 12) / 11.0;
    const double centre = inView.cols * (0.25 + 0.5 * t), half = 0.15 * inView.cols;
    const std::vector<uint8_t> img = renderFrame(inView, W, H, 2.0 * std::sin(k), 1.5 * std::cos(1.7 * k), Band{centre - half, centre + half});
    const dc::FramePush push = fusion.push(dc::GreyImage{img.data(), W, H, W}, dc::ReadOptions{});
    for (const dc::FrameRead& r : push.reads) {
      CHECK_EQ(r.read.symbol.bytes, inView.expected);  // only the symbol in view, never a mixed text
      if (&inView == a) ++reportsOfA;
    }
  }
  CHECK(reportsOfA > 0);  // the first was read from its frames, and never reported once replaced
}
