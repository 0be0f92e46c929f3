// Stage 3b: follow a lattice past where its blob growth stopped, by looking at the image itself.
//
// The growth (fit_lattice.cpp) only walks over candidate blobs, so it stops where the dots stop
// being clean candidates: under a glare streak or the aimer band, past a crease, where the dots of
// a symbol wrapped round a small cylinder shrink to thin ellipses near its edges, or where blur
// merges them. The symbol goes on there, and a grid extrapolated over many lines from the part
// that was grown drifts off it. Here the lattice is extended one grid line at a time: every
// position of the next line is predicted by an affine map fitted to the nearest known dots (so a
// bend or a shrinking pitch is followed), the darkest point near it is taken as a dot when it
// stands out of its own surroundings as far as the known dots nearby do, and the dots found feed
// the next prediction. Lines washed out by glare are crossed blind; three empty lines in a row
// (the quiet zone) end the symbol. Run only on lattices that did not decode, so what already
// reads is never touched.
#include <algorithm>
#include <cmath>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"
#include "detector/grid_map.h"

namespace dc {
namespace det {

namespace {

struct Known {
  float x, y;
  float value;  // sampled darkness at the dot (dark form), its local ink level
};

// A map around one grid position: p(dr, dc) = o + dr * vr + dc * vc + dl^2 * q, where dl is the
// offset along the extension axis (the quadratic term follows a pitch that shrinks line by line,
// as towards a cylinder's edge).
struct LocalMap {
  float ox, oy, rx, ry, cx, cy, qx = 0, qy = 0;
  bool alongCols = true;
  PointF at(float dr, float dc) const {
    const float dl = alongCols ? dc : dr;
    return {ox + dr * rx + dc * cx + dl * dl * qx, oy + dr * ry + dc * cy + dl * dl * qy};
  }
};

// Lines added per side at most, in units of the lattice's own size along that axis (and an
// absolute cap): a pack symbol whose growth stopped a third of the way along still reaches its end.
constexpr int kMaxLinesAbs = 64;
constexpr int kMaxBlindLines = 8;       // glare-washed lines crossed before giving up
constexpr int kQuietLines = 3;          // empty lines that end the symbol (its quiet zone)
constexpr int kBackLines = 6;           // how far back along the axis the prediction looks
constexpr float kDotScore = 0.6f;       // share of the local dot contrast a new dot must reach
constexpr float kMinStepShare = 0.18f;  // grid steps shorter than this share of the mean pitch end a side
constexpr int kSearchPoints = 49;       // a new dot's search: 7 x 7 points 0.1 of a step apart

}  // namespace

float lowestUnder(const GreyImage& img, float x0, float y0, float x1, float y1, uint8_t xorMask) {
  // the pixels bilinear reads for points in the box (its own clamping and truncation, which
  // are monotone, applied to the box's corners)
  auto column = [&](float x) { return static_cast<int>(std::min(std::max(x - 0.5f, 0.0f), static_cast<float>(img.width - 1))); };
  auto row = [&](float y) { return static_cast<int>(std::min(std::max(y - 0.5f, 0.0f), static_cast<float>(img.height - 1))); };
  const int c0 = column(x0), c1 = std::min(column(x1) + 1, img.width - 1);
  const int r0 = row(y0), r1 = std::min(row(y1) + 1, img.height - 1);
  int lowest = 255;
  for (int y = r0; y <= r1; ++y) {
    const uint8_t* line = img.data + static_cast<size_t>(y) * img.stride;
    for (int x = c0; x <= c1; ++x) lowest = std::min(lowest, line[x] ^ xorMask);
  }
  // (the weights of a bilinear sum to one only up to float rounding: a few 1e-5 grey levels)
  return static_cast<float>(lowest) - 0.01f;
}

int extendLattice(const GreyImage& img, bool dark, std::vector<Blob>& blobs, LatticeFit& fit, LineEnds* ends) {
  if (fit.dots.size() < 15 || fit.pitch < 1.0f) return 0;
  const uint8_t xm = dark ? 0 : 0xFF;
  const float rad0 = std::max(0.5f, 0.25f * fit.pitch);
  const int parity = (fit.dots[0].row + fit.dots[0].col) & 1;

  GridMap<Known> known(fit.dots.size() * 2);
  std::vector<float> ds, depths;
  for (const LatticeDot& d : fit.dots) {
    const Blob& b = blobs[d.blob];
    known.set(d.row, d.col, {b.x, b.y, sampleDisc(img, PointF{b.x, b.y}, rad0, xm)});
    ds.push_back(b.d);
    depths.push_back(static_cast<float>(b.depth));
  }
  std::nth_element(ds.begin(), ds.begin() + ds.size() / 2, ds.end());
  std::nth_element(depths.begin(), depths.begin() + depths.size() / 2, depths.end());
  const float dotD = ds[ds.size() / 2];
  const int dotDepth = static_cast<int>(depths[depths.size() / 2]);

  // Weighted least squares of an affine map on the known dots around (row, col), looking back
  // along the extension axis (back = -1 or +1 step per line towards the lattice).
  auto predict = [&](int row, int col, bool alongCols, int back, int reachBack, LocalMap& out, float& inkRef) {
    struct Sample {
      int dr, dc;
      double w;
      const Known* k;
    };
    Sample used[(kBackLines + kQuietLines + kMaxBlindLines + 1) * 9];
    int count = 0, aMin = 99, aMax = -99, lMin = 99, lMax = -99;
    double wsum = 0, inkSum = 0;
    for (int l = 1; l <= reachBack; ++l)
      for (int a = -4; a <= 4; ++a) {
        const int dr = alongCols ? a : back * l, dc = alongCols ? back * l : a;
        const Known* k = known.find(row + dr, col + dc);
        if (!k) continue;
        const double w = 1.0 / ((1.0 + dr * dr + dc * dc) * (1.0 + dr * dr + dc * dc));
        used[count++] = {dr, dc, w, k};
        wsum += w;
        inkSum += w * k->value;
        aMin = std::min(aMin, a), aMax = std::max(aMax, a);
        lMin = std::min(lMin, l), lMax = std::max(lMax, l);
      }
    if (count < 4 || aMax - aMin < 2 || lMax - lMin < 1) return false;
    // Weighted least squares; the quadratic term along the axis needs three lines to rest on.
    const int np = lMax - lMin >= 2 && count >= 6 ? 4 : 3;
    double S[16] = {0}, bx[4] = {0}, by[4] = {0};
    for (int k = 0; k < count; ++k) {
      const Sample& u = used[k];
      const double dl = alongCols ? u.dc : u.dr;
      const double v[4] = {1.0, static_cast<double>(u.dr), static_cast<double>(u.dc), dl * dl};
      for (int i = 0; i < np; ++i) {
        for (int j = 0; j < np; ++j) S[i * np + j] += u.w * v[i] * v[j];
        bx[i] += u.w * v[i] * u.k->x;
        by[i] += u.w * v[i] * u.k->y;
      }
    }
    if (!solveLinear(S, bx, np, by)) return false;  // (x and y share the normal matrix)
    out = {static_cast<float>(bx[0]), static_cast<float>(by[0]), static_cast<float>(bx[1]), static_cast<float>(by[1]),
           static_cast<float>(bx[2]), static_cast<float>(by[2]), np == 4 ? static_cast<float>(bx[3]) : 0.0f,
           np == 4 ? static_cast<float>(by[3]) : 0.0f, alongCols};
    inkRef = static_cast<float>(inkSum / wsum);
    return true;
  };

  int added = 0;
  if (ends) *ends = LineEnds{};
  // sides in LineEnds order: first row, last row, first column, last column
  auto noteEnd = [&](int sideIndex, int line) {
    if (ends && ends->count[sideIndex] < LineEnds::kMax) ends->line[sideIndex][ends->count[sideIndex]++] = line;
  };
  DBG("extend: %zu dots over %dx%d\n", fit.dots.size(), fit.rowMax - fit.rowMin + 1, fit.colMax - fit.colMin + 1);
  for (int side = 0; side < 4; ++side) {
    const bool alongCols = side < 2;  // extending by columns (new col index) or by rows
    const int dir = (side & 1) ? 1 : -1;
    const int span = alongCols ? fit.colMax - fit.colMin + 1 : fit.rowMax - fit.rowMin + 1;
    const int maxLines = std::min(kMaxLinesAbs, 2 * span + 8);
    int empties = 0, blind = 0, linesHere = 0;
    const int endSide = (alongCols ? 2 : 0) + (dir > 0 ? 1 : 0);
    int lastLine = alongCols ? (dir < 0 ? fit.colMin : fit.colMax) : (dir < 0 ? fit.rowMin : fit.rowMax);
    noteEnd(endSide, lastLine);
    bool endNoted = true;
    // Scans one grid line beyond (or at) the lattice's edge: its predicted positions, the dots
    // found there and how many of the positions between them are inked.
    struct Found {
      int row, col;
      float x, y, value;
    };
    struct LineScan {
      std::vector<Found> found;
      int total = 0, seen = 0, offInked = 0;
      bool outside = false, collapsed = false;
    };
    auto scanLine = [&](int line, int reachBack, LineScan& out) {
      const int from = alongCols ? fit.rowMin : fit.colMin, to = alongCols ? fit.rowMax : fit.colMax;
      for (int t = from; t <= to; ++t) {
        if (((t + line) & 1) != parity) continue;
        const int row = alongCols ? t : line, col = alongCols ? line : t;
        LocalMap m;
        float inkRef;
        if (!predict(row, col, alongCols, -dir, reachBack, m, inkRef)) continue;
        const PointF p = m.at(0, 0);
        if (p.x < 1 || p.y < 1 || p.x > img.width - 2 || p.y > img.height - 2) {
          out.outside = true;
          continue;
        }
        // A pitch that collapses along the axis is the extrapolation folding back onto the
        // lines already known (a cylinder's silhouette is reached, or the fit ran away).
        const float axisStep = alongCols ? std::hypot(m.cx, m.cy) : std::hypot(m.rx, m.ry);
        if (axisStep < kMinStepShare * fit.pitch) {
          out.collapsed = true;
          continue;
        }
        ++out.total;
        // Sample over a quarter of the local step: near a cylinder's edge the columns are a
        // third as wide as the lattice's mean pitch, and a wider disc would blur them together.
        const float step = std::min(std::hypot(m.rx, m.ry), std::hypot(m.cx, m.cy));
        const float rad = std::max(0.5f, std::min(rad0, 0.25f * step));
        // The ground: the lightest two of the four off-lattice neighbours (always empty).
        float nb[4] = {sampleDisc(img, m.at(-1, 0), rad, xm), sampleDisc(img, m.at(1, 0), rad, xm),
                       sampleDisc(img, m.at(0, -1), rad, xm), sampleDisc(img, m.at(0, 1), rad, xm)};
        std::sort(nb, nb + 4);
        const float ground = 0.5f * (nb[2] + nb[3]);
        const float contrast = ground - inkRef;
        if (contrast < 8 || nb[3] >= 252) continue;  // no contrast here: glare or a washed-out patch
        ++out.seen;
        // The darkest point within 0.3 of a grid step (in the local lattice's own axes). Most
        // positions an extension scans are empty (half of a symbol's, all of its quiet zone's):
        // when not even the darkest pixel under the 49 discs reaches a dot's contrast, none of
        // them can, and their 245 bilinear samples are spared (the same dots are found).
        PointF qs[kSearchPoints];
        float qx0 = p.x, qy0 = p.y, qx1 = p.x, qy1 = p.y;
        for (int i = -3, n = 0; i <= 3; ++i)
          for (int j = -3; j <= 3; ++j, ++n) {
            const PointF q = m.at(0.1f * i, 0.1f * j);
            qs[n] = q;
            qx0 = std::min(qx0, q.x), qx1 = std::max(qx1, q.x), qy0 = std::min(qy0, q.y), qy1 = std::max(qy1, q.y);
          }
        const float inkFloor = lowestUnder(img, qx0 - rad, qy0 - rad, qx1 + rad, qy1 + rad, xm);
        if ((ground - inkFloor) / contrast >= kDotScore) {
          float best = 1e9f, bx = p.x, by = p.y;
          for (const PointF& q : qs) {
            const float v = sampleDisc(img, q, rad, xm);
            if (v < best) best = v, bx = q.x, by = q.y;
          }
          if ((ground - best) / contrast >= kDotScore) out.found.push_back({row, col, bx, by, best});
        }
        // The position next along the line has the other parity: always empty in a DotCode,
        // inked where the line runs through text, a bar or a textured ground.
        const PointF o = alongCols ? m.at(1, 0) : m.at(0, 1);
        if ((ground - sampleDisc(img, o, rad, xm)) / contrast >= kDotScore) ++out.offInked;
      }
    };
    // Strong blur darkens the empty positions between dots too; how inked they look on the
    // lattice's own edge line is what a line of the same symbol may show.
    LineScan edgeScan;
    scanLine(lastLine, kBackLines, edgeScan);
    const float offAllowance = edgeScan.seen >= 4 ? static_cast<float>(edgeScan.offInked) / edgeScan.seen : 0.0f;
    DBG("ext side %d edge line %d: seen %d found %zu off %d\n", side, lastLine, edgeScan.seen, edgeScan.found.size(), edgeScan.offInked);
    for (int step = 0; step < maxLines; ++step) {
      const int line = alongCols ? (dir < 0 ? fit.colMin : fit.colMax) + dir * (1 + empties + blind)
                                 : (dir < 0 ? fit.rowMin : fit.rowMax) + dir * (1 + empties + blind);
      LineScan scan;
      scanLine(line, kBackLines + empties + blind, scan);
      std::vector<Found>& found = scan.found;
      const int total = scan.total, seen = scan.seen, offInked = scan.offInked;
      const bool outside = scan.outside, collapsed = scan.collapsed;
      DBG("ext side %d line %d: total %d seen %d found %zu off %d empties %d blind %d outside %d\n", side, line, total, seen, found.size(), offInked, empties, blind, outside);
      if (total == 0 || outside || collapsed) break;  // off the image, nothing to predict from
      if (seen * 2 < total) {
        if (++blind > kMaxBlindLines) break;
        continue;
      }
      // A DotCode line is about half full and its other positions are empty; a bar, a stroke
      // or text beside the symbol fills both.
      if (seen >= 8 && found.size() * 10 > static_cast<size_t>(seen) * 9) break;
      if (offInked * 3 > static_cast<int>(found.size()) + 1 && offInked > offAllowance * seen + 1) break;
      // One dark point in a long line is an edge or a speck crossing it (a silhouette, a
      // stripe), not a line of the symbol.
      if (found.size() * 8 < static_cast<size_t>(seen)) found.clear();
      if (found.empty()) {
        // (right beyond the grown dots: the symbol ends there, its quiet zone begins)
        if (linesHere == 0 || ++empties >= kQuietLines) break;
        if (!endNoted) noteEnd(endSide, lastLine);
        endNoted = true;
        continue;
      }
      empties = blind = 0;
      ++linesHere;
      lastLine = line;
      endNoted = false;
      for (const Found& f : found) {
        const Blob b = predictedDot(f.x, f.y, dotD, dotDepth);
        known.set(f.row, f.col, {f.x, f.y, f.value});
        fit.dots.push_back({static_cast<int>(blobs.size()), f.row, f.col});
        blobs.push_back(b);
        fit.rowMin = std::min(fit.rowMin, f.row);
        fit.rowMax = std::max(fit.rowMax, f.row);
        fit.colMin = std::min(fit.colMin, f.col);
        fit.colMax = std::max(fit.colMax, f.col);
      }
      ++added;
    }
    if (!endNoted) noteEnd(endSide, lastLine);
  }
  DBG("extended: %zu dots over %dx%d\n", fit.dots.size(), fit.rowMax - fit.rowMin + 1, fit.colMax - fit.colMin + 1);
  return added;
}

}  // namespace det
}  // namespace dc
