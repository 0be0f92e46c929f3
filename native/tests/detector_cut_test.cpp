// The cut of a lattice to its DotCode lines (cutToCodeLines, lattice_evidence.cpp), on images
// drawn here: light dots of a short wide symbol on a dark panel, and beside it lines that ink the
// positions between the lattice's too (text strokes, glints, a foil print), whose positions on the
// lattice's own checkerboard a grown lattice takes as dots.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"
#include "detector/grid_map.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"

namespace {

constexpr float kPitch = 5.0f;
constexpr int kCols = 40;

struct Scene {
  int w = 420, h = 420;
  std::vector<uint8_t> img;
  std::vector<dc::det::Blob> blobs;
  dc::det::LatticeFit fit;  // every inked position of the lattice's parity, symbol and beside it
};

// Rows [0, symbolRows) hold a DotCode of kCols columns (random data); the rows in `junk` ink
// positions of both parities at random. Turned by `degrees`.
Scene draw(int symbolRows, const std::vector<int>& junk, float degrees, unsigned seed) {
  std::mt19937 rng(seed);
  Scene s;
  const float th = degrees * 3.14159265f / 180, c = std::cos(th), sn = std::sin(th);
  int rowMin = 0, rowMax = symbolRows - 1;
  for (int r : junk) rowMin = std::min(rowMin, r), rowMax = std::max(rowMax, r);
  std::vector<uint8_t> symbol;
  if (symbolRows > 0) {
    const dc::SymbolLayout l = dc::layoutFor(symbolRows, kCols);
    REQUIRE(l.valid);
    std::vector<int> data{106};
    for (int i = 0; i < std::min(12, l.dataWords - 2); ++i) data.push_back(33 + static_cast<int>(rng() % 26));
    symbol = dc::placeCodewords(l, dc::buildCodewords(l, data, static_cast<int>(rng() % 4)));
  }
  std::vector<std::pair<int, int>> inked;
  for (int r = rowMin; r <= rowMax; ++r)
    for (int k = 0; k < kCols; ++k) {
      const bool inSymbol = r >= 0 && r < symbolRows;
      const bool isJunk = std::find(junk.begin(), junk.end(), r) != junk.end();
      if (inSymbol) {
        if (!symbol[static_cast<size_t>(r) * kCols + k]) continue;
        CHECK(((r + k) & 1) == 0);  // (a DotCode's dots sit where row + column is even)
        inked.push_back({r, k});
      } else if (isJunk && rng() % 5 < 2) {
        inked.push_back({r, k});
      }
    }
  auto at = [&](float row, float col) {
    const float gx = (col - kCols / 2.0f) * kPitch, gy = (row - (rowMin + rowMax) / 2.0f) * kPitch;
    return dc::PointF{s.w / 2.0f + c * gx - sn * gy, s.h / 2.0f + sn * gx + c * gy};
  };
  // 3 x 3 supersampled discs of 0.7 module: panel 60, dots 190
  s.img.assign(static_cast<size_t>(s.w) * s.h, 60);
  std::vector<float> cover(s.img.size(), 0);
  const float rad = 0.35f * kPitch;
  for (const auto& [r, k] : inked) {
    const dc::PointF p = at(static_cast<float>(r), static_cast<float>(k));
    for (int y = static_cast<int>(p.y - rad) - 1; y <= static_cast<int>(p.y + rad) + 1; ++y)
      for (int x = static_cast<int>(p.x - rad) - 1; x <= static_cast<int>(p.x + rad) + 1; ++x)
        for (int sy = 0; sy < 3; ++sy)
          for (int sx = 0; sx < 3; ++sx) {
            const float dx = x + (sx + 0.5f) / 3 - p.x, dy = y + (sy + 0.5f) / 3 - p.y;
            if (dx * dx + dy * dy <= rad * rad) cover[static_cast<size_t>(y) * s.w + x] += 1.0f / 9;
          }
  }
  for (size_t i = 0; i < s.img.size(); ++i) s.img[i] = static_cast<uint8_t>(std::lround(60 + 130 * std::min(1.0f, cover[i])));
  // the lattice a growth over all of it would give: the inked positions of the even checkerboard
  s.fit.rowMin = rowMin, s.fit.rowMax = rowMax, s.fit.colMin = 0, s.fit.colMax = kCols - 1, s.fit.pitch = kPitch;
  for (const auto& [r, k] : inked) {
    if ((r + k) & 1) continue;
    const dc::PointF p = at(static_cast<float>(r), static_cast<float>(k));
    s.fit.dots.push_back({static_cast<int>(s.blobs.size()), r, k});
    s.blobs.push_back(dc::det::predictedDot(p.x, p.y, 0.7f * kPitch, 100));
  }
  return s;
}

// Runs `f` with the scene's lattice mapped and its levels calibrated, as the reader would.
template <class F>
auto withContext(Scene& s, F&& f) {
  dc::det::GridMapper mapper;
  REQUIRE(mapper.fit(s.blobs, s.fit));
  const dc::GreyImage img{s.img.data(), s.w, s.h, s.w};
  dc::det::SampleContext ctx;
  ctx.img = &img;
  ctx.mapper = &mapper;
  ctx.dark = false;
  ctx.parity = 0;
  ctx.pitch = kPitch;
  dc::det::calibrateLevels(ctx, s.blobs, s.fit);
  return f(ctx);
}

// The cut as the reader runs it; the fit is cut in place.
bool cut(Scene& s) {
  return withContext(s, [&](const dc::det::SampleContext& ctx) { return dc::det::cutToCodeLines(ctx, s.fit); });
}

}  // namespace

TEST("cut: a lattice grown past a short wide symbol into lines that ink between its dots keeps the symbol's lines") {
  int exact = 0, tried = 0;
  for (const float degrees : {0.0f, 17.0f, 41.0f, 90.0f, 133.0f, 200.0f}) {
    for (const auto& junk : {std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},  // below, after a blank line
                             std::vector<int>{-3, -2, -1, 7, 8},                              // both sides, touching
                             std::vector<int>{-14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2}}) {
      Scene s = draw(7, junk, degrees, static_cast<unsigned>(degrees * 7 + junk.size()));
      ++tried;
      const bool was = cut(s);
      CHECK(was);
      if (was && s.fit.rowMin == 0 && s.fit.rowMax == 6 && s.fit.colMin == 0 && s.fit.colMax == kCols - 1) ++exact;
      for (const dc::det::LatticeDot& d : s.fit.dots) CHECK(d.row >= s.fit.rowMin && d.row <= s.fit.rowMax);
    }
  }
  std::cerr << "  lattices cut to the symbol's 7 x 40 lines: " << exact << " of " << tried << "\n";
  CHECK_EQ(exact, tried);
}

TEST("cut: a symbol's own lattice, and one over lines that all ink between their dots, are left as they are") {
  Scene alone = draw(7, {}, 23.0f, 5);
  CHECK(!cut(alone));
  CHECK(alone.fit.rowMin == 0 && alone.fit.rowMax == 6);
  // a lattice over a dot screen (every line inked between its positions) has no DotCode lines to keep
  Scene screen = draw(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 23.0f, 6);
  const size_t dots = screen.fit.dots.size();
  CHECK(!cut(screen));
  CHECK_EQ(screen.fit.dots.size(), dots);
}

TEST("off-parity ink: a symbol's window inks none between its dots; a window over lines inked on both parities inks many") {
  for (const float degrees : {0.0f, 17.0f, 90.0f, 133.0f}) {
    // rows 0-6: the symbol; rows 8-19: ink on both parities (text, bars, a dot screen)
    Scene s = draw(7, {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, degrees, static_cast<unsigned>(degrees) + 3);
    const float symbol = withContext(s, [](const dc::det::SampleContext& ctx) { return dc::det::offParityInkShare(ctx, 0, 0, 7, kCols); });
    const float junk = withContext(s, [](const dc::det::SampleContext& ctx) { return dc::det::offParityInkShare(ctx, 8, 0, 12, kCols); });
    std::cerr << "  turned " << degrees << ": symbol " << symbol << ", inked lines " << junk << "\n";
    CHECK(symbol <= 0.05f);
    CHECK(junk >= 0.3f);  // (each position of those lines inked with chance 2/5)
  }
}
