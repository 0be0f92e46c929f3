// Stage 3c: two lattices of one pass that are parts of one symbol, joined into one lattice.
//
// A glare band or a crease across a short wide symbol stops the blob growth at its edge, and
// where the band is washed out to white the extension (extend_lattice.cpp) has nothing to follow
// over it: the part beyond grows into a lattice of its own, and neither part reads alone. Two such
// parts share the symbol's grid: their axes are the same up to which is called a row and which
// way it counts, and one part's lattice coordinates are the other's shifted by a whole number of
// lines. Each part's map near its end, carried half way over the gap, estimates that shift; the
// joined lattice's own map then spans the gap, whose positions are sampled as what they are
// (under a washed-out band: erasures).
#include <algorithm>
#include <cmath>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"

namespace dc {
namespace det {

namespace {

constexpr float kMaxPitchRatio = 1.25f;  // pitches of the two parts (perspective changes it a little)
constexpr float kMaxAxisSlack = 0.2f;    // an axis' deviation from a signed unit step
// Perspective changes the pitch along a long symbol, so the shift's estimate may be half a line
// or so out: the whole shifts with the checkerboard's parity within this distance are candidates
// (the nearest first), and the decoder's checks decide between them.
constexpr double kMaxShiftMiss = 1.0;
constexpr size_t kMaxShifts = 2;
constexpr int kEndLines = 8;  // a part's end, in lines, whose map is carried over the gap
constexpr size_t kMinEndDots = 8;
constexpr int kMaxGapLines = 40;     // lines between the two parts along the joined axis
constexpr int kMaxJoinedSide = 150;  // a DotCode's longest side is well under this
constexpr int kMaxAcrossGrowth = 2;  // the joined lattice's short side beyond the wider part's

// lattice (row, col) = (a[0] x + a[1] y + a[2], a[3] x + a[4] y + a[5]), least squares on the dots.
bool fitAffine(const std::vector<Blob>& blobs, const std::vector<LatticeDot>& dots, double a[6]) {
  double S[9] = {0}, br[3] = {0}, bc[3] = {0};
  for (const LatticeDot& d : dots) {
    const Blob& b = blobs[d.blob];
    const double v[3] = {b.x, b.y, 1.0};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) S[i * 3 + j] += v[i] * v[j];
      br[i] += v[i] * d.row;
      bc[i] += v[i] * d.col;
    }
  }
  if (!solveLinear(S, br, 3, bc)) return false;
  for (int i = 0; i < 3; ++i) a[i] = br[i], a[3 + i] = bc[i];
  return true;
}

void applyAffine(const double a[6], double x, double y, double& row, double& col) {
  row = a[0] * x + a[1] * y + a[2];
  col = a[3] * x + a[4] * y + a[5];
}

// One of the two lattices: the blobs its dots index, and its affine map fitted on all of them.
struct Part {
  const std::vector<Blob>& blobs;
  const LatticeFit& fit;
  double map[6];
};

// The signed permutation taking the other part's grid steps to fit's, or false.
struct Axes {
  int p[4];
  void map(int row, int col, int& r, int& c) const {
    r = p[0] * row + p[1] * col;
    c = p[2] * row + p[3] * col;
  }
};

bool sharedAxes(const Part& other, const Part& own, Axes& axes) {
  const double* ao = other.map;
  const double* af = own.map;
  const double det = ao[0] * ao[4] - ao[1] * ao[3];
  if (std::fabs(det) < 1e-12) return false;
  const double inv[4] = {ao[4] / det, -ao[1] / det, -ao[3] / det, ao[0] / det};  // image steps per other's step
  const double m[4] = {af[0] * inv[0] + af[1] * inv[2], af[0] * inv[1] + af[1] * inv[3], af[3] * inv[0] + af[4] * inv[2],
                       af[3] * inv[1] + af[4] * inv[3]};
  DBG("join %zu dots %dx%d with %zu dots %dx%d: m %.2f %.2f %.2f %.2f\n", own.fit.dots.size(), own.fit.rowMax - own.fit.rowMin + 1,
      own.fit.colMax - own.fit.colMin + 1, other.fit.dots.size(), other.fit.rowMax - other.fit.rowMin + 1,
      other.fit.colMax - other.fit.colMin + 1, m[0], m[1], m[2], m[3]);
  for (int i = 0; i < 4; ++i) {
    const double r = std::round(m[i]);
    if (std::fabs(m[i] - r) > kMaxAxisSlack || std::fabs(r) > 1) return false;
    axes.p[i] = static_cast<int>(r);
  }
  return std::abs(axes.p[0] * axes.p[3] - axes.p[1] * axes.p[2]) == 1 && std::abs(axes.p[0]) + std::abs(axes.p[1]) == 1;
}

// A part's dots within kEndLines lines of its end that faces the point (tx, ty), or all of them
// when those are too few to fit a map on; alongCols: that end is a column (the point lies along
// the part's rows).
std::vector<LatticeDot> facingEnd(const Part& part, double tx, double ty, bool& alongCols) {
  const LatticeFit& f = part.fit;
  double cr = 0, cc = 0;
  for (const LatticeDot& d : f.dots) cr += d.row, cc += d.col;
  cr /= f.dots.size(), cc /= f.dots.size();
  double tr, tc;
  applyAffine(part.map, tx, ty, tr, tc);
  alongCols = std::fabs(tc - cc) >= std::fabs(tr - cr);
  const bool high = alongCols ? tc > cc : tr > cr;
  const int edge = alongCols ? (high ? f.colMax : f.colMin) : (high ? f.rowMax : f.rowMin);
  std::vector<LatticeDot> end;
  int lo = 1 << 20, hi = -(1 << 20);
  for (const LatticeDot& d : f.dots) {
    const int line = alongCols ? d.col : d.row;
    if (std::abs(line - edge) > kEndLines) continue;
    end.push_back(d);
    const int across = alongCols ? d.row : d.col;
    lo = std::min(lo, across), hi = std::max(hi, across);
  }
  if (end.size() < kMinEndDots || hi - lo < 2) return f.dots;
  return end;
}

void centroid(const std::vector<Blob>& blobs, const std::vector<LatticeDot>& dots, double& x, double& y) {
  x = y = 0;
  for (const LatticeDot& d : dots) x += blobs[d.blob].x, y += blobs[d.blob].y;
  x /= dots.size(), y /= dots.size();
}

// The shift (in fit's lines) that puts the other part's dots on fit's grid. Each part's map near
// its end that faces the other (a local affine fit) gives the lattice coordinates of the point
// midway between the two ends; their difference is the shift. Perspective makes the pitch grow
// along the symbol: the near part's end pitch, carried over half the gap, counts the lines there
// a little high and the far part's a little low, and the two errors cancel to first order (one
// map carried over the whole gap, or one linear map for both parts, is off by lines). Along the
// join, that is; across it, see below.
bool estimateShift(const Part& other, const Part& own, const Axes& axes, double& er, double& ec) {
  double ox, oy, fx, fy;
  centroid(other.blobs, other.fit.dots, ox, oy);
  centroid(own.blobs, own.fit.dots, fx, fy);
  bool otherAlongCols, alongCols;
  const std::vector<LatticeDot> otherEnd = facingEnd(other, fx, fy, otherAlongCols), ownEnd = facingEnd(own, ox, oy, alongCols);
  double lo[6], lf[6];
  if (!fitAffine(other.blobs, otherEnd, lo) || !fitAffine(own.blobs, ownEnd, lf)) return false;
  double ex, ey, gx, gy;
  centroid(other.blobs, otherEnd, ex, ey);
  centroid(own.blobs, ownEnd, gx, gy);
  const double mx = 0.5 * (ex + gx), my = 0.5 * (ey + gy);
  // fit's (row, col) of the midpoint minus the other's, taken to fit's axes
  auto shiftAt = [&](const double* mo, const double* mf, double& r, double& c) {
    double orow, ocol, frow, fcol;
    applyAffine(mo, mx, my, orow, ocol);
    applyAffine(mf, mx, my, frow, fcol);
    r = frow - (axes.p[0] * orow + axes.p[1] * ocol);
    c = fcol - (axes.p[2] * orow + axes.p[3] * ocol);
  };
  shiftAt(lo, lf, er, ec);
  // Across the joined axis the lines are straight (a line stays a line in perspective), and each
  // part's whole length fixes their direction better than its end does: the shift across comes
  // from the whole parts' maps.
  double wr, wc;
  shiftAt(other.map, own.map, wr, wc);
  if (alongCols)
    er = wr;
  else
    ec = wc;
  return true;
}

struct Box {
  int rowMin, rowMax, colMin, colMax;
  int lines(bool cols) const { return cols ? colMax - colMin + 1 : rowMax - rowMin + 1; }
};

// The two parts as one lattice with the other's dots shifted by (sr, sc) (their blob indices by
// otherBase): false unless they lie
// end to end along one axis as one line of a symbol (a gap between them, along the longer part's
// long axis, the joined short side no wider than the wider part's by more than kMaxAcrossGrowth).
bool joinedAt(const LatticeFit& other, const LatticeFit& fit, const Axes& axes, int sr, int sc, int otherBase, LatticeFit& joined) {
  Box mapped{1 << 20, -(1 << 20), 1 << 20, -(1 << 20)};
  for (const LatticeDot& d : other.dots) {
    int r, c;
    axes.map(d.row, d.col, r, c);
    mapped.rowMin = std::min(mapped.rowMin, r + sr), mapped.rowMax = std::max(mapped.rowMax, r + sr);
    mapped.colMin = std::min(mapped.colMin, c + sc), mapped.colMax = std::max(mapped.colMax, c + sc);
  }
  const Box own{fit.rowMin, fit.rowMax, fit.colMin, fit.colMax};
  const int rowGap = std::max(mapped.rowMin - own.rowMax, own.rowMin - mapped.rowMax) - 1;
  const int colGap = std::max(mapped.colMin - own.colMax, own.colMin - mapped.colMax) - 1;
  const bool alongCols = colGap >= rowGap;
  const int gap = alongCols ? colGap : rowGap;
  if (gap < 0 || gap > kMaxGapLines) return false;
  const Box all{std::min(own.rowMin, mapped.rowMin), std::max(own.rowMax, mapped.rowMax), std::min(own.colMin, mapped.colMin),
                std::max(own.colMax, mapped.colMax)};
  const int across = all.lines(!alongCols), along = all.lines(alongCols);
  const int widerPart = std::max(own.lines(!alongCols), mapped.lines(!alongCols));
  const int longerPart = std::max(own.lines(alongCols), mapped.lines(alongCols));
  DBG("join shift %d %d: gap %d along %d across %d (wider part %d, longer %d)\n", sr, sc, gap, along, across, widerPart, longerPart);
  // (two lines of print one above the other lie side by side across their long axis: no join)
  if (across > widerPart + kMaxAcrossGrowth || across > longerPart || along > kMaxJoinedSide) return false;
  joined = fit;
  for (const LatticeDot& d : other.dots) {
    int r, c;
    axes.map(d.row, d.col, r, c);
    joined.dots.push_back({otherBase + d.blob, r + sr, c + sc});
  }
  joined.rowMin = all.rowMin, joined.rowMax = all.rowMax, joined.colMin = all.colMin, joined.colMax = all.colMax;
  joined.pitch = (fit.pitch * fit.dots.size() + other.pitch * other.dots.size()) / (fit.dots.size() + other.dots.size());
  return true;
}

}  // namespace

bool joinLattices(const std::vector<Blob>& otherBlobs, const LatticeFit& other, const std::vector<Blob>& blobs, const LatticeFit& fit,
                  int otherBase, std::vector<LatticeFit>& out) {
  out.clear();
  if (other.dots.size() < 8 || fit.dots.size() < 8 || other.pitch <= 0 || fit.pitch <= 0) return false;
  if (std::max(other.pitch, fit.pitch) > kMaxPitchRatio * std::min(other.pitch, fit.pitch)) return false;
  Part o{otherBlobs, other, {}}, own{blobs, fit, {}};
  if (!fitAffine(otherBlobs, other.dots, o.map) || !fitAffine(blobs, fit.dots, own.map)) return false;
  Axes axes;
  double er, ec;
  if (!sharedAxes(o, own, axes) || !estimateShift(o, own, axes, er, ec)) return false;
  const int parity = (fit.dots[0].row + fit.dots[0].col) & 1;
  int r0, c0;
  axes.map(other.dots[0].row, other.dots[0].col, r0, c0);
  const int otherParity = (r0 + c0) & 1;
  struct Shift {
    int r, c;
    double miss;
  };
  std::vector<Shift> shifts;
  for (int sr = static_cast<int>(std::floor(er)) - 1; sr <= static_cast<int>(std::ceil(er)) + 1; ++sr)
    for (int sc = static_cast<int>(std::floor(ec)) - 1; sc <= static_cast<int>(std::ceil(ec)) + 1; ++sc) {
      if (((otherParity + sr + sc) & 1) != parity) continue;
      const double miss = std::hypot(sr - er, sc - ec);
      if (miss <= kMaxShiftMiss) shifts.push_back({sr, sc, miss});
    }
  std::sort(shifts.begin(), shifts.end(), [](const Shift& a, const Shift& b) { return a.miss < b.miss; });
  DBG("join shift estimated %.2f %.2f: %zu whole shifts near it\n", er, ec, shifts.size());
  for (const Shift& s : shifts) {
    if (out.size() == kMaxShifts) break;
    LatticeFit j;
    if (joinedAt(other, fit, axes, s.r, s.c, otherBase, j)) out.push_back(std::move(j));
  }
  return !out.empty();
}

}  // namespace det
}  // namespace dc
