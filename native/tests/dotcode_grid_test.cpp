// The whole grid -> symbol path on symbols built from chosen codewords: layouts, corners, masks,
// multi-block interleaving, orientation selection, weak dots, and damage within / beyond budget.
#include <algorithm>
#include <sstream>

#include "check.h"
#include "dotcode/codeword_table.h"
#include "dotcode/symbol_codewords.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"
#include "dotcode_test_util.h"

using namespace dctest;

namespace {

// A random valid size with room for `len` characters.
void randomSize(Rng& rng, int len, int& H, int& W) {
  for (;;) {
    H = 6 + rng.below(40);
    W = 5 + rng.below(60);
    if ((H + W) % 2 == 0) ++W;
    const dc::SymbolLayout l = dc::layoutFor(H, W);
    if (l.valid && l.dataWords - 1 >= len + 1) return;
  }
}

// Positions (bit index in stream) of codeword slot s.
std::vector<int> slotBits(int s) {
  std::vector<int> bits;
  if (s == 0) return {0, 1};
  for (int b = 0; b < 9; ++b) bits.push_back(2 + 9 * (s - 1) + b);
  return bits;
}

// Makes slot s an erasure: three faint bits are more than the decoder settles from the pattern.
void eraseSlot(dc::DotGrid& g, const std::vector<int>& order, int s) {
  const std::vector<int> bits = slotBits(s);
  for (int k = 0; k < std::min<int>(3, static_cast<int>(bits.size())); ++k) g.value[order[bits[k]]] = 0.5f;
}

}  // namespace

TEST("dotcode grid: bit order covers every lattice position once, corners last") {
  for (int H = 5; H <= 30; ++H)
    for (int W = 5; W <= 30; ++W) {
      const dc::SymbolLayout l = dc::layoutFor(H, W);
      const std::vector<int> order = dc::bitOrder(H, W);
      if (!l.valid) {
        CHECK(order.empty());
        continue;
      }
      REQUIRE(static_cast<int>(order.size()) == l.dots);
      std::vector<int> seen(H * W, 0);
      for (int p : order) {
        CHECK(((p / W) + (p % W)) % 2 == 0);
        ++seen[p];
      }
      CHECK_EQ(static_cast<int>(std::count(seen.begin(), seen.end(), 1)), l.dots);
      CHECK_EQ(order.back(), W % 2 ? 0 : (H - 1) * W);  // 6th corner
    }
  CHECK(!dc::layoutFor(10, 10).valid);  // H+W even
  CHECK(!dc::layoutFor(4, 7).valid);
  CHECK(!dc::layoutFor(5, 6).valid);  // too small for any data
}

TEST("dotcode grid: built symbols decode in 8 orientations, both layouts, all masks, multi-block") {
  Rng rng(2024);
  int done = 0;
  for (int trial = 0; trial < 120; ++trial) {
    int H, W;
    const int len = 1 + rng.below(30);
    randomSize(rng, len, H, W);
    if (trial % 20 == 0) {
      H = 100;
      W = 71;
    }  // 4 interleaved blocks
    const BuiltSymbol b = buildSymbol(rng, H, W, len, trial % 4);
    REQUIRE(!b.dots.empty());
    const dc::DotGrid g = gridOf(H, W, b.dots);
    const int t = trial % 8;
    const auto s = dc::decodeDotGrid(transformed(g, t));
    if (!s || s->bytes != b.text) {
      std::ostringstream os;
      os << H << "x" << W << " t=" << t;
      check::fail(__FILE__, __LINE__, "built symbol not decoded: " + os.str());
      continue;
    }
    CHECK_EQ(s->mask, trial % 4);
    CHECK_EQ(s->errorsCorrected + s->erasuresCorrected, 0);
    CHECK_EQ(s->mirrored, t >= 4);
    ++done;
  }
  CHECK_EQ(done, 120);
}

TEST("dotcode grid: flips, weak dots and substituted codewords within budget decode exactly") {
  Rng rng(77);
  int exact = 0, trials = 400;
  for (int trial = 0; trial < trials; ++trial) {
    int H, W;
    const int len = 3 + rng.below(40);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    const dc::SymbolLayout& l = b.layout;
    const std::vector<int> order = dc::bitOrder(H, W);
    dc::DotGrid g = gridOf(H, W, b.dots);
    // Budget per block, keeping the spare check words the decoder demands.
    const int spare = dc::GridDecodeOptions{}.minSpareCheckWords;
    std::vector<int> left(l.blocks);
    for (int j = 0; j < l.blocks; ++j) left[j] = dc::blockCheckWords(l, j) - spare;
    std::vector<int> slots;
    for (int s = 1; s < l.totalWords; ++s) slots.push_back(s);
    for (int i = static_cast<int>(slots.size()) - 1; i > 0; --i) std::swap(slots[i], slots[rng.below(i + 1)]);
    int errors = 0, erasures = 0;
    for (int s : slots) {
      const int j = s % l.blocks;
      const int kind = rng.below(3);  // 0 flip a dot, 1 weak dot, 2 replace by another codeword
      const int cost = kind == 2 ? 2 : 1;
      if (left[j] < cost || rng.below(2)) continue;
      left[j] -= cost;
      const std::vector<int> bits = slotBits(s);
      if (kind == 0) {
        const int pos = order[bits[rng.below(9)]];
        g.value[pos] = 1.0f - g.value[pos];
        ++erasures;
      } else if (kind == 1) {
        eraseSlot(g, order, s);
        ++erasures;
      } else {
        const int other = (b.words[s] + 1 + rng.below(112)) % 113;
        const int pattern = dc::codewordPattern(other);
        for (int k = 0; k < 9; ++k) g.value[order[bits[k]]] = (pattern >> (8 - k)) & 1;
        ++errors;
      }
    }
    const auto s = dc::decodeDotGrid(transformed(g, rng.below(8)));
    if (!s || s->bytes != b.text) {
      std::ostringstream os;
      os << H << "x" << W << " errors=" << errors << " erasures=" << erasures << (s ? " WRONG" : " none");
      check::fail(__FILE__, __LINE__, "damaged symbol: " + os.str());
      continue;
    }
    CHECK_EQ(s->errorsCorrected, errors);
    CHECK_EQ(s->erasuresCorrected, erasures);
    ++exact;
  }
  CHECK_EQ(exact, trials);
}

TEST("dotcode grid: damage beyond budget fails cleanly, never a wrong text") {
  Rng rng(99);
  int misreads = 0, refused = 0, trials = 1500;
  for (int trial = 0; trial < trials; ++trial) {
    int H, W;
    const int len = 3 + rng.below(30);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    dc::DotGrid g = gridOf(H, W, b.dots);
    const std::vector<int> order = dc::bitOrder(H, W);
    // Replace at least NC/2+1 codewords of block 0 by other valid codewords (errors only: the
    // hardest case for the decoder, since nothing flags them).
    const int k0 = dc::blockCheckWords(b.layout, 0);
    const int n = k0 / 2 + 1 + rng.below(3);
    std::vector<int> slots;
    for (int s = b.layout.blocks; s < b.layout.totalWords; s += b.layout.blocks) slots.push_back(s);
    for (int i = static_cast<int>(slots.size()) - 1; i > 0; --i) std::swap(slots[i], slots[rng.below(i + 1)]);
    for (int i = 0; i < n && i < static_cast<int>(slots.size()); ++i) {
      const int s = slots[i];
      const int pattern = dc::codewordPattern((b.words[s] + 1 + rng.below(112)) % 113);
      const std::vector<int> bits = slotBits(s);
      for (int k = 0; k < 9; ++k) g.value[order[bits[k]]] = (pattern >> (8 - k)) & 1;
    }
    const auto s = dc::decodeDotGrid(g);
    if (!s)
      ++refused;
    else if (s->bytes != b.text)
      ++misreads;
  }
  CHECK_EQ(misreads, 0);
  CHECK(refused > trials / 2);
}

TEST("dotcode grid: a reading without the required spare check words is refused (mirror rule)") {
  Rng rng(5);
  const BuiltSymbol b = buildSymbol(rng, 16, 23, 10, 1);
  const dc::SymbolLayout& l = b.layout;
  REQUIRE(l.blocks == 1);
  const std::vector<int> order = dc::bitOrder(16, 23);
  for (int spare = 1; spare <= 3; ++spare) {
    dc::GridDecodeOptions opts;
    opts.minSpareCheckWords = spare;
    dc::DotGrid g = gridOf(16, 23, b.dots);
    const int allowed = l.checkWords - spare;
    for (int s = 1; s <= allowed + 1; ++s) eraseSlot(g, order, s);  // one too many
    CHECK(!dc::decodeDotGrid(g, opts).has_value());
    for (int bit : slotBits(allowed + 1)) g.value[order[bit]] = b.dots[order[bit]];  // now exactly the allowed number
    const auto s = dc::decodeDotGrid(g, opts);
    CHECK(s.has_value() && s->bytes == b.text && s->erasuresCorrected == allowed);
  }
  // Spare 0 is treated as 1: a reading that spends all check words is never accepted.
  dc::GridDecodeOptions zero;
  zero.minSpareCheckWords = 0;
  dc::DotGrid g = gridOf(16, 23, b.dots);
  for (int s = 1; s <= l.checkWords; ++s) eraseSlot(g, order, s);
  CHECK(!dc::decodeDotGrid(g, zero).has_value());
}

TEST("dotcode grid: invalid grids return nothing") {
  dc::DotGrid g;
  g.rows = 10;
  g.cols = 10;
  g.value.assign(100, 1.0f);
  CHECK(!dc::decodeDotGrid(g));  // H+W even
  g.rows = 11;
  g.cols = 14;
  g.value.assign(154, 0.0f);
  CHECK(!dc::decodeDotGrid(g));  // blank
  g.value.assign(154, 1.0f);
  CHECK(!dc::decodeDotGrid(g));  // all ink
  g.value.assign(10, 1.0f);
  CHECK(!dc::decodeDotGrid(g));  // wrong value count
  g.rows = 3;
  g.cols = 4;
  g.value.assign(12, 1.0f);
  CHECK(!dc::decodeDotGrid(g));
  Rng rng(1);
  g.rows = 17;
  g.cols = 24;
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    g.value.assign(17 * 24, 0.0f);
    for (float& v : g.value) v = static_cast<float>(rng.below(2));
    accepted += dc::decodeDotGrid(g).has_value();
  }
  CHECK_EQ(accepted, 0);
}

// Two empty lines appended where the bit stream ends make a valid longer symbol: the shift by one
// codeword keeps a Reed-Solomon codeword a codeword, the slot in the new lines reads as an erasure,
// and the first check word turns into one more data character. A detector that tries an extent
// reaching into the quiet zone must not get that text (seen on a cylinder render: "Y<b0!" read
// as "Y<b0!#"). Every edge of a real symbol holds a dot, and its padding bits are dots.
TEST("dotcode grid: a symbol read with two quiet-zone lines at its stream's end is refused") {
  Rng rng(77);
  int decodedRight = 0;
  for (int trial = 0; trial < 400; ++trial) {
    int H, W;
    const int len = 1 + rng.below(12);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    REQUIRE(!b.dots.empty());
    // The stream ends in the last columns of a column layout (W odd) and in the first rows of a
    // row layout (it runs from the bottom row up).
    const bool columnLayout = W % 2 == 1;
    dc::DotGrid g;
    g.rows = columnLayout ? H : H + 2;
    g.cols = columnLayout ? W + 2 : W;
    g.value.assign(static_cast<size_t>(g.rows) * g.cols, 0.0f);
    for (int r = 0; r < H; ++r)
      for (int c = 0; c < W; ++c) g.value[static_cast<size_t>(columnLayout ? r : r + 2) * g.cols + c] = b.dots[r * W + c];
    // A blurred edge leaves a weak value or two in the quiet zone.
    if (trial % 2) g.value[columnLayout ? static_cast<size_t>(1 + rng.below(H - 2)) * g.cols + W : static_cast<size_t>(1) * g.cols + 1 + rng.below(W - 2)] = 0.5f;
    const auto s = dc::decodeDotGrid(transformed(g, trial % 8));
    if (s && s->bytes != b.text) {
      std::ostringstream os;
      os << H << "x" << W << " read as " << s->rows << "x" << s->cols << ": '" << s->bytes << "' for '" << b.text << "'";
      check::fail(__FILE__, __LINE__, "quiet-zone extent misread: " + os.str());
    }
    if (s && s->bytes == b.text) ++decodedRight;
  }
  CHECK_EQ(decodedRight, 0);  // the grid is not the symbol's extent: nothing may be read from it
}

// The dot stream runs along one side's lines (the columns of a column layout, W odd; the rows of a
// row layout, H odd) and ends in the last of them. A symbol whose last codeword is 0 is, without
// its stream's last lines, nearly a symbol one word shorter: that window can decode to a text cut
// short (the detector guards it, read_dotcodes.cpp cutShortPossible). Lines cut from the other side
// shorten every stream line instead, so nothing of the symbol's stream order survives in the
// window: such windows never decode, and the detector does not guard them.
TEST("dotcode grid: a window cut across a symbol's stream lines never decodes; cut along them, a zero-ended one can") {
  Rng rng(2026);
  int zeroEnded = 0, alongDecoded = 0, across = 0;
  for (int trial = 0; trial < 60000 && zeroEnded < 60; ++trial) {
    int H, W;
    const int len = 1 + rng.below(10);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    REQUIRE(!b.dots.empty());
    const bool columnLayout = W % 2 == 1;
    // (r0, c0, rows, cols): a window of the symbol's dots; positions past them read empty
    auto window = [&](int r0, int c0, int rows, int cols) {
      dc::DotGrid g;
      g.rows = rows;
      g.cols = cols;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) g.value.push_back(b.dots[static_cast<size_t>(r0 + r) * W + c0 + c]);
      return dc::decodeDotGrid(transformed(g, trial % 8));
    };
    // across the stream lines: 2 or 4 lines off either end of the even side
    if (trial % 4 == 0)
      for (int cut = 2; cut <= 4; cut += 2)
        for (int atStart = 0; atStart < 2; ++atStart) {
          if ((columnLayout ? H : W) - cut < 5) continue;
          ++across;
          const auto s = columnLayout ? window(atStart ? cut : 0, 0, H - cut, W) : window(0, atStart ? cut : 0, H, W - cut);
          if (s) check::fail(__FILE__, __LINE__, "a window cut across the stream lines decoded: '" + s->bytes + "' for '" + b.text + "'");
        }
    if (b.words.back() != 0) continue;
    // along them: the stream's last two lines left out (a column layout's last columns; a row
    // layout's first rows, its stream running from the bottom row up)
    ++zeroEnded;
    const auto s = columnLayout ? window(0, 0, H, W - 2) : window(2, 0, H - 2, W);
    alongDecoded += s.has_value();
  }
  std::cerr << "  windows cut across the stream lines: " << across << ", none decoded; zero-ended symbols' windows cut along them: "
            << alongDecoded << " of " << zeroEnded << " decoded\n";
  CHECK(across >= 5000);
  CHECK(zeroEnded >= 40);
  CHECK(alongDecoded >= 1);  // (the hazard the detector's rule guards is real)
}

// An extent that reaches across the quiet zone to what lies beyond it (text, the edge of a pack's
// panel, a glare line) holds one to three outer lines, then two or three blank lines, then the
// symbol. Such grids decoded to a wrong text about once in 25 (an extra data character, or a
// different one): the decoder refuses a grid with a blank run near a side after which the rest is
// a valid size.
TEST("dotcode grid: a grid reaching across the quiet zone to the lines beyond it is refused") {
  Rng rng(2026);
  int wrong = 0, decoded = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    int H, W;
    const int len = 1 + rng.below(12);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    REQUIRE(!b.dots.empty());
    const int outer = 1 + rng.below(3), blank = outer % 2 == 1 ? 3 : 2;  // outer + blank even: H+W stays odd
    const bool atStart = rng.below(2) == 0;
    dc::DotGrid g;
    g.rows = H;
    g.cols = W + outer + blank;
    g.value.assign(static_cast<size_t>(g.rows) * g.cols, 0.0f);
    const int shift = atStart ? outer + blank : 0;
    for (int r = 0; r < H; ++r)
      for (int c = 0; c < W; ++c) g.value[static_cast<size_t>(r) * g.cols + c + shift] = b.dots[r * W + c];
    for (int k = 0; k < outer; ++k) {
      const int c = atStart ? k : g.cols - 1 - k;
      for (int r = 0; r < H; ++r) g.value[static_cast<size_t>(r) * g.cols + c] = static_cast<float>(rng.below(2));
    }
    const auto s = dc::decodeDotGrid(transformed(g, trial % 8));
    decoded += s.has_value();
    wrong += s && s->bytes != b.text;
  }
  CHECK_EQ(wrong, 0);
  CHECK_EQ(decoded, 0);
}

// A codeword pattern has exactly 5 of its 9 bits set, so one faint bit among confident ones is
// settled by the pattern (the other value gives 4 or 6 dots); two are settled when exactly one
// filling-in is a valid pattern. Such a codeword costs no check word; three faint bits erase it.
TEST("dotcode grid: faint bits that the 5-dot pattern settles cost nothing; ambiguous ones erase") {
  Rng rng(31);
  const BuiltSymbol b = buildSymbol(rng, 16, 23, 10, 2);
  const std::vector<int> order = dc::bitOrder(16, 23);
  const dc::SymbolLayout& l = b.layout;
  REQUIRE(l.blocks == 1);
  // One faint bit in every slot, more slots than the check words could erase.
  dc::DotGrid g = gridOf(16, 23, b.dots);
  for (int s = 1; s < l.totalWords; ++s) g.value[order[slotBits(s)[rng.below(9)]]] = 0.5f;
  auto r = dc::decodeDotGrid(g);
  CHECK(r.has_value() && r->bytes == b.text && r->erasuresCorrected == 0 && r->errorsCorrected == 0);
  // Two faint bits: read when one completion is valid, erased when two are.
  int settled = 0, erased = 0;
  g = gridOf(16, 23, b.dots);
  for (int s = 1; s < l.totalWords && settled + erased < l.checkWords - 2; ++s) {
    const std::vector<int> bits = slotBits(s);
    const int p0 = order[bits[0]], p1 = order[bits[1]];
    // a dot and an empty position: swapping them keeps 5 dots, so both completions may be valid
    const bool ambiguous = b.dots[p0] != b.dots[p1] &&
        dc::codewordValue(dc::codewordPattern(b.words[s]) ^ (3 << 7)) >= 0;
    g.value[p0] = g.value[p1] = 0.5f;
    (ambiguous ? erased : settled) += 1;
  }
  r = dc::decodeDotGrid(g);
  CHECK(r.has_value() && r->bytes == b.text);
  if (r) CHECK_EQ(r->erasuresCorrected, erased);
  CHECK(settled > 0);
  // Three faint bits always erase the codeword.
  g = gridOf(16, 23, b.dots);
  for (int s = 1; s <= l.checkWords - 2; ++s) eraseSlot(g, order, s);
  r = dc::decodeDotGrid(g);
  CHECK(r.has_value() && r->bytes == b.text && r->erasuresCorrected == l.checkWords - 2);
}

TEST("dotcode grid: reading stops once a block has more erasures than check words (hopeless)") {
  Rng rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    int H, W;
    const int len = 3 + rng.below(30);
    randomSize(rng, len, H, W);
    const BuiltSymbol b = buildSymbol(rng, H, W, len, rng.below(4));
    const std::vector<int> order = dc::bitOrder(H, W);
    const int B = b.layout.blocks, k0 = dc::blockCheckWords(b.layout, 0);
    // block 0's slots after the mask word, in stream order
    std::vector<int> slots;
    for (int s = B; s < b.layout.totalWords; s += B) slots.push_back(s);
    if (static_cast<int>(slots.size()) < k0 + 2) continue;
    dc::DotGrid g = gridOf(H, W, b.dots);
    for (int i = 0; i < k0; ++i) eraseSlot(g, order, slots[i]);
    // as many erasures as check words: read to the end (Reed-Solomon can still correct them)
    dc::RawCodewords raw = dc::readCodewords(b.layout, g.value.data(), order, 0.15f);
    CHECK(!raw.hopeless);
    CHECK_EQ(raw.words[b.layout.totalWords - 1], b.words[b.layout.totalWords - 1]);
    // one more: no correction can succeed, and the slots after it are not read
    eraseSlot(g, order, slots[k0]);
    raw = dc::readCodewords(b.layout, g.value.data(), order, 0.15f);
    CHECK(raw.hopeless);
    for (int s = slots[k0] + 1; s < b.layout.totalWords; ++s) CHECK_EQ(raw.erased[s], 0);
    CHECK(!dc::decodeDotGrid(g));
  }
}
