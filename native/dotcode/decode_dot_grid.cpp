// decodeDotGrid: orientation selection on top of the reading pipeline
// (bit order -> codewords -> Reed-Solomon -> unmask -> data layer).
#include <algorithm>
#include <array>
#include <vector>

#include "dotcode/data_decoder.h"
#include "dotcode/dotcode_symbol.h"
#include "dotcode/grid_orientation.h"
#include "dotcode/symbol_codewords.h"
#include "dotcode/symbol_layout.h"

namespace dc {
namespace {

struct Reading {
  DotCodeSymbol symbol;
  int cost = 0;        // erasures + 2*errors over all blocks
  bool spare = false;  // every block kept at least one check word unused
};

// Every edge of a symbol holds a dot (FORMAT.md 6). Two outermost lines on one side without a dot,
// and mostly confidently empty, are quiet zone, not symbol, and must be refused: two empty lines
// where the bit stream ends make a valid longer symbol (a Reed-Solomon codeword shifted by one slot
// is still a codeword; the slot in the new lines reads as an erasure and the first check word
// becomes a data character). A detector that tries extents reaching into the quiet zone would
// read it. One lost edge line (a dead nozzle row) still reads; glare leaves weak values, which do
// not count as empty.
// Line k (a row, or a column) holds no dot of the lattice `parity` and is mostly confidently
// empty. Glare leaves weak values, which do not count as empty.
bool lineBlank(const DotGrid& grid, int parity, float margin, bool isRow, int k) {
  const int R = grid.rows, C = grid.cols;
  int positions = 0, empty = 0;
  const int n = isRow ? C : R;
  for (int i = 0; i < n; ++i) {
    const int r = isRow ? k : i, c = isRow ? i : k;
    if (((r + c) & 1) != parity) continue;
    const float v = grid.value[static_cast<size_t>(r) * C + c];
    if (v >= 0.5f + margin) return false;
    ++positions;
    empty += v < 0.5f - margin;
  }
  return 3 * empty >= 2 * positions;
}

bool edgeLinesBlank(const DotGrid& grid, int parity, float margin) {
  const int R = grid.rows, C = grid.cols;
  auto blank = [&](bool isRow, int k) { return lineBlank(grid, parity, margin, isRow, k); };
  return (blank(true, 0) && blank(true, 1)) || (blank(true, R - 1) && blank(true, R - 2)) ||
      (blank(false, 0) && blank(false, 1)) || (blank(false, C - 1) && blank(false, C - 2));
}

// A quiet zone inside the grid, near one of its sides: two or three blank lines after one to
// kQuietZoneDepth outer lines, where the grid cut just inside the blank run is itself a valid
// size. That is an extent reaching across the symbol's quiet zone to what lies beyond it (text,
// the edge of a pack's panel, a glare line), and such grids decode to a wrong text far too often:
// of 8,000 symbols with one line of random dots and three blank lines added at an end, 294 read
// wrong before this rule, none after (bench/RESULTS.md). Encoders penalise blank rows and columns
// (FORMAT.md 6), so a real symbol rarely has such a run near its edge: 1 of 3,000 zint and
// bwip-js symbols is refused by the rule.
constexpr int kQuietZoneDepth = 3;
bool quietZoneInside(const DotGrid& grid, int parity, float margin) {
  const int R = grid.rows, C = grid.cols;
  for (int side = 0; side < 4; ++side) {
    const bool isRow = side < 2;
    const int n = isRow ? R : C;
    auto line = [&](int i) { return side % 2 == 0 ? i : n - 1 - i; };
    for (int k = 1; k <= kQuietZoneDepth; ++k) {
      if (!lineBlank(grid, parity, margin, isRow, line(k))) continue;
      for (int e = k + 1; e <= k + 2 && n - (e + 1) >= 5; ++e) {
        if (!lineBlank(grid, parity, margin, isRow, line(e))) break;
        if (((R + C - (e + 1)) & 1) == 1) return true;
      }
    }
  }
  return false;
}

// Decodes one canonical reading given as the input indices in bit-stream order.
bool decodeReading(const DotGrid& grid, const SymbolLayout& layout, const std::vector<int>& sources,
                   const GridDecodeOptions& options, int minSpare, Reading& out) {
  std::vector<int> words;
  Correction corr;
  if (options.byReliability) {
    SoftCodewords soft = readCodewordsSoft(layout, grid.value.data(), sources, minSpare, options.ambiguousReliability);
    if (soft.hopeless) return false;
    words = std::move(soft.words);
    corr = correctByReliability(layout, words, soft.reliability, minSpare, options.ambiguousReliability,
                                options.trustedReliability);
  } else {
    RawCodewords raw = readCodewords(layout, grid.value.data(), sources, options.erasureMargin);
    if (raw.hopeless) return false;
    words = std::move(raw.words);
    corr = correctCodewords(layout, words, raw.erased);
  }
  if (!corr.ok) return false;
  const std::vector<int> data = unmaskData(layout, words);
  if (!decodeDataCodewords(data, out.symbol)) return false;
  out.symbol.codewords = std::move(words);
  out.symbol.mask = out.symbol.codewords[0];
  out.symbol.errorsCorrected = corr.errors;
  out.symbol.erasuresCorrected = corr.erasures;
  out.symbol.ecBudget = layout.checkWords;
  out.cost = 0;
  for (int c : corr.blockCost) out.cost += c;
  out.spare = corr.hasSpare(minSpare);
  return true;
}

bool sameContent(const DotCodeSymbol& a, const DotCodeSymbol& b) {
  return a.bytes == b.bytes && a.gs1 == b.gs1 && a.ecis == b.ecis && a.eciSegments == b.eciSegments &&
      a.readerInit == b.readerInit && a.macro == b.macro && a.structuredAppendIndex == b.structuredAppendIndex &&
      a.structuredAppendCount == b.structuredAppendCount;
}

// One transform of an R x C grid as the decoder reads it: the parity its origin lies on, its
// size, and the input index of every bit of its stream (empty: no valid layout of that size).
struct TransformReading {
  int parity = 0, rows = 0, cols = 0;
  std::vector<int> sources;
  unsigned sameAsEarlier = 0;  // bit t': transform t' < this one reads the same positions
};

struct ReadingPlan {
  int rows = 0, cols = 0;
  std::array<TransformReading, 8> transform;
};

ReadingPlan makeReadingPlan(int R, int C) {
  ReadingPlan plan;
  plan.rows = R;
  plan.cols = C;
  std::vector<int> order[2];
  for (int t = 0; t < 8; ++t) {
    const GridTransform tf{t, R, C};
    TransformReading& tr = plan.transform[t];
    // The transformed (0,0) must be a lattice position, i.e. lie on the inked parity.
    const int origin = tf.sourceIndex(0, 0);
    tr.parity = (origin / C + origin % C) & 1;
    tr.rows = tf.rows();
    tr.cols = tf.cols();
    std::vector<int>& flat = order[tr.rows == R ? 0 : 1];  // (the two sizes a transform can have)
    if (flat.empty()) flat = bitOrder(tr.rows, tr.cols);
    tr.sources.resize(flat.size());
    for (size_t i = 0; i < flat.size(); ++i) tr.sources[i] = tf.sourceIndex(flat[i] / tr.cols, flat[i] % tr.cols);
    for (int e = 0; e < t; ++e)
      if (!tr.sources.empty() && plan.transform[e].sources == tr.sources) tr.sameAsEarlier |= 1u << e;
  }
  return plan;
}

// The plans of the last few grid sizes: a detector tries dozens of extents of a handful of sizes
// per lattice, and the bit order of a size and its 8 transforms are the same every time.
const ReadingPlan& readingPlanFor(int R, int C) {
  constexpr size_t kPlans = 32;
  thread_local std::vector<ReadingPlan> plans;
  for (const ReadingPlan& p : plans)
    if (p.rows == R && p.cols == C) return p;
  if (plans.size() >= kPlans) plans.erase(plans.begin());
  plans.push_back(makeReadingPlan(R, C));
  return plans.back();
}

}  // namespace

std::optional<DotCodeSymbol> decodeDotGrid(const DotGrid& grid, const GridDecodeOptions& options) {
  const int R = grid.rows, C = grid.cols;
  if (R < 5 || C < 5 || R > kMaxSymbolSide || C > kMaxSymbolSide || (R + C) % 2 == 0) return std::nullopt;
  if (grid.value.size() != static_cast<size_t>(R) * C) return std::nullopt;

  // Which input parity carries the dots: the lattice class with more ink. On a tie (a blank or
  // nonsense grid) both are tried; RS rejects the wrong one.
  double ink[2] = {0, 0};
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const float v = grid.value[static_cast<size_t>(r) * C + c];
      if (v == v) ink[(r + c) & 1] += v;  // NaN counts as no ink
    }
  const bool tryParity[2] = {ink[0] >= ink[1], ink[1] >= ink[0]};
  const float margin = options.erasureMargin;
  const int minSpare = std::max(1, options.minSpareCheckWords);
  auto notSymbol = [&](int parity) { return edgeLinesBlank(grid, parity, margin) || quietZoneInside(grid, parity, margin); };
  const bool blankEdge[2] = {tryParity[0] && notSymbol(0), tryParity[1] && notSymbol(1)};

  // A column-layout reading and its row-layout quarter turn read the same bits (FORMAT.md 1.1),
  // so of the 4 plausible transforms only 2 distinct readings remain: a transform whose bit
  // stream comes from the same input positions as one already tried is skipped.
  const ReadingPlan& plan = readingPlanFor(R, C);
  std::vector<Reading> decoded;
  unsigned tried = 0;  // bit t: transform t was tried
  for (int t = 0; t < 8; ++t) {
    const TransformReading& tr = plan.transform[t];
    if (!tryParity[tr.parity] || blankEdge[tr.parity]) continue;
    if (tr.sources.empty()) continue;
    if ((tr.sameAsEarlier & tried) != 0) continue;
    tried |= 1u << t;
    const int H = tr.rows, W = tr.cols;
    Reading reading;
    if (!decodeReading(grid, layoutFor(H, W), tr.sources, options, minSpare, reading)) continue;
    reading.symbol.rows = H;
    reading.symbol.cols = W;
    reading.symbol.orientation = t;
    reading.symbol.mirrored = t >= 4;
    decoded.push_back(std::move(reading));
  }
  if (decoded.empty()) return std::nullopt;

  // FORMAT.md 7: keep the reading that needed the fewest corrections; a tie between different
  // contents is refused; the kept reading must leave spare redundancy in every block, because a
  // mirror image can pass RS only by spending all of it (seen in 2 of the 79 vectors), and a
  // corrupted grid beyond the budget can land on another codeword (options.minSpareCheckWords).
  std::stable_sort(decoded.begin(), decoded.end(), [](const Reading& a, const Reading& b) { return a.cost < b.cost; });
  const Reading& best = decoded[0];
  for (size_t k = 1; k < decoded.size(); ++k)
    if (decoded[k].cost == best.cost && !sameContent(decoded[k].symbol, best.symbol)) return std::nullopt;
  if (!best.spare) return std::nullopt;
  return best.symbol;
}

}  // namespace dc
