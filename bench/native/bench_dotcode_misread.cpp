// Misread rate of decodeDotGrid on corrupted grids (issue 3): symbols built from random data,
// damaged beyond what Reed-Solomon can correct, or replaced by random dot patterns. A "misread"
// is a decode that returns bytes different from what the symbol holds. Goal: zero.
// Usage: bench_dotcode_misread [grids=100000] [minSpare=1] [seed=1]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dotcode/codeword_table.h"
#include "dotcode/data_decoder.h"
#include "dotcode/dotcode_symbol.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() { s ^= s >> 12; s ^= s << 25; s ^= s >> 27; return s * 2685821657736338717ull; }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

struct Counts { long grids = 0, refused = 0, exact = 0, misread = 0; };

// The grid without 2 lines at its ends: two rows, two columns, or a row and a column, each
// taken from the start or the end.
dc::DotGrid windowShort(const dc::DotGrid& g, Rng& rng) {
  const int kind = rng.below(3);
  const int dropRows = kind == 0 ? 2 : kind == 1 ? 0 : 1, dropCols = 2 - dropRows;
  dc::DotGrid out;
  out.rows = g.rows - dropRows;
  out.cols = g.cols - dropCols;
  if (out.rows < 5 || out.cols < 5) return g;
  const int r0 = rng.below(dropRows + 1), c0 = rng.below(dropCols + 1);
  for (int r = 0; r < out.rows; ++r)
    for (int c = 0; c < out.cols; ++c) out.value.push_back(g.at(r + r0, c + c0));
  return out;
}

// A band of positions read as 0.5 (glare washed them out), across the whole grid, of at least
// minPositions positions when given (else 1-4 lines wide).
void eraseBand(dc::DotGrid& g, Rng& rng, int minPositions = 0) {
  const bool alongRows = rng.below(2) == 0;
  const int lines = alongRows ? g.rows : g.cols, across = alongRows ? g.cols : g.rows;
  int width = 1 + rng.below(4);
  if (minPositions > 0) width = std::max(width, (2 * minPositions + across - 1) / across + rng.below(2));
  width = std::min(width, lines);
  const int start = rng.below(lines - width + 1);
  for (int k = start; k < start + width; ++k)
    for (int i = 0; i < across; ++i) {
      const size_t idx = alongRows ? static_cast<size_t>(k) * g.cols + i : static_cast<size_t>(i) * g.cols + k;
      g.value[idx] = 0.5f;
    }
}

// The grid grown by `add` lines along one side (alongCols: columns) at its start or end, the new
// lines filled with `fill`.
dc::DotGrid grownGrid(const dc::DotGrid& g, int add, bool alongCols, bool atStart, float fill) {
  dc::DotGrid big;
  big.rows = g.rows + (alongCols ? 0 : add);
  big.cols = g.cols + (alongCols ? add : 0);
  big.value.assign(static_cast<size_t>(big.rows) * big.cols, fill);
  const int dr = !alongCols && atStart ? add : 0, dc0 = alongCols && atStart ? add : 0;
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) big.value[static_cast<size_t>(r + dr) * big.cols + c + dc0] = g.at(r, c);
  return big;
}

}  // namespace

int main(int argc, char** argv) {
  const long total = argc > 1 ? std::atol(argv[1]) : 100000;
  dc::GridDecodeOptions opts;
  opts.minSpareCheckWords = argc > 2 ? std::atoi(argv[2]) : opts.minSpareCheckWords;
  Rng rng{argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1};
  // 4th argument "reliability": decode by codeword reliability alone (GridDecodeOptions::byReliability);
  // "then-reliability": as the detector does, by reliability only where the plain reading refuses,
  // with the spare check words of the 5th argument (default: the same)
  const std::string mode = argc > 4 ? argv[4] : "";
  opts.byReliability = mode == "reliability";
  dc::GridDecodeOptions second = opts;
  second.byReliability = true;
  second.minSpareCheckWords = argc > 5 ? std::atoi(argv[5]) : opts.minSpareCheckWords;
  const char* names[11] = {"dot flips beyond budget", "codeword substitutions beyond budget", "burst (a patch of dots)",
                           "random dot patterns", "faint dots and flips beyond budget", "extent across the quiet zone",
                           "window short by lines + glare band", "glare band beyond budget", "noisy values (sampling noise)",
                           "random values (texture)", "window longer over a washed end"};
  constexpr int kModels = 11;
  Counts counts[kModels];
  const auto start = std::chrono::steady_clock::now();
  for (long g = 0; g < total; ++g) {
    const int model = static_cast<int>(g % kModels);
    // Sizes biased to small symbols, where a miscorrection is most likely.
    int H = 6 + (rng.below(3) == 0 ? rng.below(40) : rng.below(12));
    int W = 5 + (rng.below(3) == 0 ? rng.below(60) : rng.below(14));
    if ((H + W) % 2 == 0) ++W;
    const dc::SymbolLayout l = dc::layoutFor(H, W);
    if (!l.valid) { --g; continue; }
    // Random message: set B text or set C digits, then padding by buildCodewords.
    std::vector<int> data;
    const int room = l.dataWords - 1;
    const int len = 1 + rng.below(room);
    if (rng.below(2)) { data.push_back(106); for (int i = 1; i < len; ++i) data.push_back(rng.below(95)); }
    else { data.push_back(107); for (int i = 1; i < len; ++i) data.push_back(rng.below(100)); }
    dc::DotCodeSymbol truth;
    if (!dc::decodeDataCodewords(data, truth)) { --g; continue; }
    const std::vector<int> words = dc::buildCodewords(l, data, rng.below(4));
    std::vector<uint8_t> dots = dc::placeCodewords(l, words);
    const std::vector<int> order = dc::bitOrder(H, W);
    if (model == 0) {
      const int flips = l.checkWords / l.blocks + 1 + rng.below(3 * l.checkWords / l.blocks + 4);
      for (int k = 0; k < flips; ++k) { const int p = order[rng.below(l.dots)]; dots[p] ^= 1; }
    } else if (model == 1) {
      const int k0 = dc::blockCheckWords(l, 0);
      const int n = k0 / 2 + 1 + rng.below(k0 / 2 + 2);
      for (int i = 0; i < n; ++i) {
        const int s = 1 + rng.below(l.totalWords - 1);
        const int pattern = dc::codewordPattern((words[s] + 1 + rng.below(112)) % 113);
        for (int b = 0; b < 9; ++b) dots[order[2 + 9 * (s - 1) + b]] = (pattern >> (8 - b)) & 1;
      }
    } else if (model == 2) {
      const int r0 = rng.below(H), c0 = rng.below(W), h = 2 + rng.below(H / 2 + 1), w = 2 + rng.below(W / 2 + 1);
      for (int r = r0; r < H && r < r0 + h; ++r)
        for (int c = c0; c < W && c < c0 + w; ++c)
          if ((r + c) % 2 == 0) dots[r * W + c] = static_cast<uint8_t>(rng.below(2));
    } else if (model == 3) {
      for (int p : order) dots[p] = static_cast<uint8_t>(rng.below(2));
    }
    dc::DotGrid grid;
    grid.rows = H;
    grid.cols = W;
    grid.value.reserve(dots.size());
    for (uint8_t d : dots) grid.value.push_back(d ? 1.0f : 0.0f);
    if (model == 4) {
      // Glare, blur or uneven ink: many faint positions (which the decoder settles from the
      // 5-dot pattern where it can, else erases) plus a few confident flips.
      const int faint = l.checkWords * (2 + rng.below(6)), flips = rng.below(l.checkWords / l.blocks + 1);
      for (int k = 0; k < faint; ++k) grid.value[order[rng.below(l.dots)]] = 0.4f + 0.002f * static_cast<float>(rng.below(100));
      for (int k = 0; k < flips; ++k) {
        float& v = grid.value[order[rng.below(l.dots)]];
        v = 1.0f - v;
      }
    }
    if (model == 8) {
      // Sampling noise: every value moved off its dot's truth by a noise of 0.15-0.45 (blur,
      // glare slopes, a map a fraction of a pitch off), so values fall on both sides of 0.5 with
      // every degree of confidence; the decoder sees soft values throughout.
      const float sigma = 0.15f + 0.003f * static_cast<float>(rng.below(100));
      for (float& v : grid.value) {
        const float u1 = (1.0f + static_cast<float>(rng.below(10000))) / 10001.0f, u2 = static_cast<float>(rng.below(10000)) / 10000.0f;
        const float z = std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
        v = std::clamp(v + sigma * z, 0.0f, 1.0f);
      }
    }
    if (model == 9) {
      // Not a symbol: values of any strength at random (textures, text under a decoy lattice).
      for (float& v : grid.value) v = static_cast<float>(rng.below(1001)) / 1000.0f;
    }
    if (model == 5) {
      // An extent that reaches across the quiet zone at one end of a side: 1-3 lines of random
      // dots (text, a panel's edge, a glint) beyond 2-3 blank lines, H+W kept odd. Nothing is
      // damaged, so "exact" counts grids read as the symbol despite the extra lines.
      const int outer = 1 + rng.below(3), blank = outer % 2 == 1 ? 3 : 2, add = outer + blank;
      const bool alongCols = rng.below(2) == 0, atStart = rng.below(2) == 0;
      dc::DotGrid big = grownGrid(grid, add, alongCols, atStart, 0.0f);
      for (int k = 0; k < outer; ++k) {
        const int line = atStart ? k : (alongCols ? big.cols : big.rows) - 1 - k;
        for (int i = 0; i < (alongCols ? big.rows : big.cols); ++i)
          big.value[alongCols ? static_cast<size_t>(i) * big.cols + line : static_cast<size_t>(line) * big.cols + i] =
              static_cast<float>(rng.below(2));
      }
      grid = std::move(big);
    }
    if (model == 6) {
      // A detector's window that misses lines at one end (two lines of one side, or a row and a
      // column, so H+W stays odd), with a washed-out band of erasures over part of what is left:
      // the leading codewords are read right, the check words are not.
      grid = windowShort(grid, rng);
      eraseBand(grid, rng);
    }
    if (model == 7) eraseBand(grid, rng, l.checkWords / l.blocks + 1);
    if (model == 10) {
      // Glare washes out a symbol's end (its last 0-2 lines and the panel past it: every position
      // 0.5), and the detector's window, which cannot see where the symbol ends inside that run,
      // reaches 2, 4 or 6 lines past it (H+W stays odd). Nothing else is damaged.
      const int own = rng.below(3), add = 2 * (1 + rng.below(3));
      const bool alongCols = rng.below(2) == 0, atStart = rng.below(2) == 0;
      for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
          const int line = alongCols ? c : r, lines = alongCols ? W : H;
          if (atStart ? line < own : line >= lines - own) grid.value[static_cast<size_t>(r) * W + c] = 0.5f;
        }
      grid = grownGrid(grid, add, alongCols, atStart, 0.5f);
    }
    auto got = dc::decodeDotGrid(grid, opts);
    if (!got && mode == "then-reliability") got = dc::decodeDotGrid(grid, second);
    Counts& c = counts[model];
    ++c.grids;
    if (!got) ++c.refused;
    else if (got->bytes == truth.bytes) ++c.exact;
    else {
      ++c.misread;
      if (std::getenv("MISREAD_DETAIL"))
        std::printf("misread model %d: %dx%d -> %dx%d read as %dx%d, erasures %d errors %d budget %d, prefix %d, truth %zu bytes got %zu\n",
                    model, H, W, grid.rows, grid.cols, got->rows, got->cols, got->erasuresCorrected, got->errorsCorrected,
                    got->ecBudget, truth.bytes.compare(0, got->bytes.size(), got->bytes) == 0, truth.bytes.size(), got->bytes.size());
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long grids = 0, misreads = 0;
  std::printf("minSpareCheckWords=%d%s\n", opts.minSpareCheckWords, mode.empty() ? "" : (", " + mode + " (spare " + std::to_string(second.minSpareCheckWords) + ")").c_str());
  for (int m = 0; m < kModels; ++m) {
    std::printf("%-38s grids %7ld  refused %7ld  exact %7ld  misread %5ld\n", names[m], counts[m].grids, counts[m].refused,
                counts[m].exact, counts[m].misread);
    grids += counts[m].grids;
    misreads += counts[m].misread;
  }
  std::printf("total: %ld corrupted grids, %ld misreads (rate %.2e), %.1f s\n", grids, misreads,
              grids ? static_cast<double>(misreads) / grids : 0.0, secs);
  return 0;
}
