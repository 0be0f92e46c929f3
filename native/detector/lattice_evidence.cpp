// Lattice evidence: does a sampled lattice hold DotCode content at all? Every codeword of a
// DotCode but the mask word is a 9-position pattern with exactly five dots (FORMAT.md 4), so over
// any stretch of a symbol about 5/9 of the lattice positions are inked, whatever the data, the
// mask, the print or the part of the symbol the lattice covers. Even at the decoder's correction
// limit (a sixth of the codewords wrong, each by at most four dots) the share stays within
// 0.48-0.63; erasures (0.5) pull it towards 0.5. A lattice grown on text, sparse speckles or
// noise holds whatever share its growth picked up (0.22-0.99 in empty frames). Such a lattice
// cannot decode under any extent, so its hypotheses and its extension over the image are skipped:
// in an empty frame they are most of what a decoy lattice costs.
//
// The same evidence line by line: a DotCode inks only the positions of its own checkerboard, so a
// lattice that grew from a symbol into the text beside it, a glare patch or a foil print is cut
// to its lines that ink none between their dots (cutToCodeLines) and read again.
#include "detector/detector_internal.h"

namespace dc {
namespace det {

float latticeInkShare(const DotGrid& grid, int gridRow0, int gridCol0, const LatticeFit& fit, int parity) {
  double sum = 0;
  int positions = 0;
  for (int r = fit.rowMin; r <= fit.rowMax; ++r) {
    const int gr = r - gridRow0;
    if (gr < 0 || gr >= grid.rows) continue;
    // (the first column of this row on the lattice's parity)
    const int first = fit.colMin + (((r + fit.colMin) & 1) == parity ? 0 : 1);
    for (int c = first; c <= fit.colMax; c += 2) {
      const int gc = c - gridCol0;
      if (gc < 0 || gc >= grid.cols) continue;
      sum += grid.at(gr, gc);
      ++positions;
    }
  }
  return positions > 0 ? static_cast<float>(sum / positions) : 0.0f;
}

bool plausibleInkShare(float share) { return share >= kMinInkShare && share <= kMaxInkShare; }

namespace {

// A DotCode line: at most this share of the positions between its dots (the other parity) inked,
// and at least this share of its own positions (every line of a symbol carries dots; a quiet
// zone none).
constexpr float kMaxOffParityInk = 0.15f;
constexpr float kMinOwnInk = 0.15f;
constexpr int kMinCodeLines = 5;
constexpr int kMinOwnPositions = 5;
constexpr float kMinCutInk = 0.40f, kMaxCutInk = 0.64f;
// A position's neighbourhood shows ink only with this share of the lattice's contrast.
constexpr float kMinLocalContrast = 0.3f;
// Boxes larger than this are not cut (a lattice of that size is a texture's or a large symbol's).
constexpr int kMaxCutPositions = 12000;

struct InkedPositions {
  int cols, parity;
  std::vector<uint8_t> inked;
  bool at(int r, int c) const { return inked[static_cast<size_t>(r) * cols + c] != 0; }
};

// The inked positions of line k (a row, or a column when !rows) over the cross range [from, to],
// of its own parity and of the other.
struct LineInk {
  int own = 0, ownN = 0, off = 0, offN = 0;
};
LineInk lineInk(const InkedPositions& p, bool rows, int k, int from, int to) {
  LineInk n;
  for (int x = from; x <= to; ++x) {
    const int r = rows ? k : x, c = rows ? x : k;
    const bool mine = ((r + c) & 1) == p.parity;
    (mine ? n.ownN : n.offN) += 1;
    if (p.at(r, c)) (mine ? n.own : n.off) += 1;
  }
  return n;
}

// The longest run of lines in [lo, hi] (rows, or columns when !rows) over the cross range
// [from, to] that ink few positions of the other parity and some of their own.
bool longestCodeRun(const InkedPositions& p, bool rows, int lo, int hi, int from, int to, int& runLo, int& runHi) {
  int bestLen = 0, start = -1;
  auto codeLine = [&](int k) {
    const LineInk n = lineInk(p, rows, k, from, to);
    // (a single stray position is allowed on the short lines across a symbol, which may also
    // be empty: a padding column)
    return n.offN > 0 && n.off <= kMaxOffParityInk * n.offN + 0.5f && (n.ownN < kMinOwnPositions || n.own >= kMinOwnInk * n.ownN);
  };
  for (int k = lo; k <= hi + 1; ++k) {
    const bool code = k <= hi && codeLine(k);
    if (code && start < 0) start = k;
    if (!code && start >= 0) {
      if (k - start > bestLen) bestLen = k - start, runLo = start, runHi = k - 1;
      start = -1;
    }
  }
  return bestLen > 0;
}

// Every position of the H x W box from lattice position (rowMin, colMin), both parities: inked
// where it is darker (in the dark form) than halfway between the lightest and the darkest position
// within two lines, and those differ by a contrast (the lattice's dots' levels, taken over a
// lattice that is partly glare or text, say little about the symbol's own part).
InkedPositions inkedPositions(const SampleContext& ctx, int rowMin, int colMin, int H, int W) {
  std::vector<float> I(static_cast<size_t>(H) * W);
  const uint8_t xm = ctx.dark ? 0 : 0xFF;
  const float rad = std::max(0.5f, 0.25f * ctx.pitch);
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c)
      I[static_cast<size_t>(r) * W + c] =
          sampleDisc(*ctx.img, ctx.mapper->map(static_cast<float>(rowMin + r), static_cast<float>(colMin + c)), rad, xm);
  InkedPositions p{W, ((rowMin + colMin) & 1) == ctx.parity ? 0 : 1, std::vector<uint8_t>(static_cast<size_t>(H) * W)};
  const float minContrast = std::max(8.0f, kMinLocalContrast * (ctx.lightLevel - ctx.darkLevel));
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) {
      float lo = 255, hi = 0;
      for (int rr = std::max(0, r - 2); rr <= std::min(H - 1, r + 2); ++rr)
        for (int cc = std::max(0, c - 2); cc <= std::min(W - 1, c + 2); ++cc) {
          lo = std::min(lo, I[static_cast<size_t>(rr) * W + cc]);
          hi = std::max(hi, I[static_cast<size_t>(rr) * W + cc]);
        }
      p.inked[static_cast<size_t>(r) * W + c] = hi - lo >= minContrast && I[static_cast<size_t>(r) * W + c] < 0.5f * (lo + hi);
    }
  return p;
}

}  // namespace

float offParityInkShare(const SampleContext& ctx, int rowMin, int colMin, int rows, int cols) {
  if (rows < 1 || cols < 1 || rows * cols > kMaxCutPositions) return 0;
  const InkedPositions p = inkedPositions(ctx, rowMin, colMin, rows, cols);
  int off = 0, offN = 0;
  for (int r = 0; r < rows; ++r) {
    const LineInk n = lineInk(p, true, r, 0, cols - 1);
    off += n.off;
    offN += n.offN;
  }
  return offN > 0 ? static_cast<float>(off) / offN : 0.0f;
}

bool cutToCodeLines(const SampleContext& ctx, LatticeFit& fit) {
  const int H = fit.rowMax - fit.rowMin + 1, W = fit.colMax - fit.colMin + 1;
  const float contrast = ctx.lightLevel - ctx.darkLevel;
  if (H < kMinCodeLines || W < kMinCodeLines || H * W > kMaxCutPositions || contrast < 8) return false;
  const InkedPositions p = inkedPositions(ctx, fit.rowMin, fit.colMin, H, W);
  // Rows over the columns kept, then columns over the rows kept, twice: a line of the symbol
  // that runs on into text counts as text until the other direction has dropped the text's part.
  int r0 = 0, r1 = H - 1, c0 = 0, c1 = W - 1;
  for (int round = 0; round < 2; ++round) {
    if (!longestCodeRun(p, true, r0, r1, c0, c1, r0, r1) || r1 - r0 + 1 < kMinCodeLines) return false;
    if (!longestCodeRun(p, false, c0, c1, r0, r1, c0, c1) || c1 - c0 + 1 < kMinCodeLines) return false;
  }
  // the window's end lines carry a dot (every edge line of a DotCode does)
  while (r1 > r0 && lineInk(p, true, r0, c0, c1).own == 0) ++r0;
  while (r1 > r0 && lineInk(p, true, r1, c0, c1).own == 0) --r1;
  while (c1 > c0 && lineInk(p, false, c0, r0, r1).own == 0) ++c0;
  while (c1 > c0 && lineInk(p, false, c1, r0, r1).own == 0) --c1;
  if (r1 - r0 + 1 < kMinCodeLines || c1 - c0 + 1 < kMinCodeLines) return false;
  if (r0 == 0 && r1 == H - 1 && c0 == 0 && c1 == W - 1) return false;
  // The cut itself inked like DotCode content (about 5/9 of its own positions, as
  // latticeInkShare; measured here on the local contrast); decoys' cuts are mostly fuller or emptier.
  int own = 0, ownN = 0;
  for (int r = r0; r <= r1; ++r) {
    const LineInk n = lineInk(p, true, r, c0, c1);
    own += n.own;
    ownN += n.ownN;
  }
  if (own < kMinCutInk * ownN || own > kMaxCutInk * ownN) return false;
  std::vector<LatticeDot> kept;
  for (const LatticeDot& d : fit.dots) {
    const int r = d.row - fit.rowMin, c = d.col - fit.colMin;
    if (r >= r0 && r <= r1 && c >= c0 && c <= c1) kept.push_back(d);
  }
  if (kept.size() < 15) return false;
  fit.dots.swap(kept);
  fit.rowMax = fit.rowMin + r1;
  fit.rowMin += r0;
  fit.colMax = fit.colMin + c1;
  fit.colMin += c0;
  return true;
}

}  // namespace det
}  // namespace dc
