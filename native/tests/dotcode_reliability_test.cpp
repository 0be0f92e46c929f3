// Decoding by codeword reliability (GridDecodeOptions::byReliability): the soft reading of each
// slot, what it reads that the plain reading refuses, and the rules that keep it from misreading.
#include <algorithm>
#include <cmath>

#include "check.h"
#include "dotcode/codeword_table.h"
#include "dotcode/symbol_codewords.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"
#include "dotcode_test_util.h"

using namespace dctest;

namespace {

float uniform(Rng& rng) { return static_cast<float>(rng.below(1 << 20)) / static_cast<float>(1 << 20); }

// A standard normal value (Box-Muller).
float gaussian(Rng& rng) {
  const float u1 = (1.0f + static_cast<float>(rng.below(1 << 20))) / static_cast<float>((1 << 20) + 1);
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * uniform(rng));
}

// The nine stream bits of codeword slot s (s >= 1) set to a pattern's dots at `ink` and its
// empty positions at 1 - ink.
void setSlot(dc::DotGrid& g, const std::vector<int>& order, int s, int pattern, float ink) {
  for (int b = 0; b < 9; ++b) g.value[order[2 + 9 * (s - 1) + b]] = (pattern >> (8 - b) & 1) ? ink : 1.0f - ink;
}

dc::GridDecodeOptions byReliability() {
  dc::GridDecodeOptions o;
  o.byReliability = true;
  return o;
}

}  // namespace

TEST("reading by reliability: each slot's most likely codeword and its margin, as a direct search finds them") {
  Rng rng(5);
  const dc::SymbolLayout l = dc::layoutFor(10, 41);
  REQUIRE(l.valid);
  std::vector<int> order(l.dots);
  for (int i = 0; i < l.dots; ++i) order[i] = i;
  std::vector<float> values(l.dots);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    for (float& v : values) v = trial % 2 ? uniform(rng) : (rng.below(2) ? 0.85f : 0.15f) + 0.3f * (uniform(rng) - 0.5f);
    const dc::SoftCodewords soft = dc::readCodewordsSoft(l, values.data(), order, 2, -1.0f);  // (never hopeless)
    REQUIRE(!soft.hopeless);
    for (int s = 1; s < l.totalWords; ++s) {
      // the cost of each pattern written out: how far every bit's value lies from the bit
      float best = 1e9f, second = 1e9f;
      int bestValue = -1;
      for (int v = 0; v < 113; ++v) {
        const int p = dc::codewordPattern(v);
        float c = 0;
        for (int b = 0; b < 9; ++b) {
          const float x = values[2 + 9 * (s - 1) + b];
          c += (p >> (8 - b) & 1) ? 1.0f - x : x;
        }
        if (c < best) {
          second = best;
          best = c;
          bestValue = v;
        } else if (c < second) {
          second = c;
        }
      }
      // (the reading works in thousandths: patterns within that of each other may swap)
      if (second - best > 0.01f) CHECK_EQ(soft.words[s], bestValue);
      CHECK(std::fabs(soft.reliability[s] - (second - best)) < 0.02f);
      ++checked;
    }
  }
  CHECK(checked > 4000);
}

TEST("reading by reliability reads noisy short wide symbols the plain reading refuses, and misreads none") {
  Rng rng(11);
  int plain = 0, either = 0, misreads = 0;
  const int trials = 300;
  for (int trial = 0; trial < trials; ++trial) {
    // a pack's symbol: 6-10 lines by 41-80, values off their dots by a noise of 0.25-0.4 (glare
    // slopes, blur, a map a fraction of a pitch off)
    const int H = 6 + rng.below(5);
    int W = 41 + rng.below(40);
    if ((H + W) % 2 == 0) ++W;
    const BuiltSymbol b = buildSymbol(rng, H, W, std::min(12, dc::layoutFor(H, W).dataWords - 2), rng.below(4));
    REQUIRE(!b.words.empty());
    dc::DotGrid g = gridOf(H, W, b.dots);
    const float sigma = 0.25f + 0.15f * uniform(rng);
    for (float& v : g.value) v = std::clamp(v + sigma * gaussian(rng), 0.0f, 1.0f);
    auto r = dc::decodeDotGrid(g);
    if (r) {
      ++plain;
      misreads += r->bytes != b.text;
    } else {
      r = dc::decodeDotGrid(g, byReliability());
      if (r) misreads += r->bytes != b.text;
    }
    either += r && r->bytes == b.text;
  }
  CHECK_EQ(misreads, 0);
  std::cerr << "  noisy short wide symbols: plain reading " << plain << ", with reading by reliability " << either << " of "
            << trials << "\n";
  CHECK(either >= plain + trials / 10);
}

TEST("reading by reliability: never a wrong text from textures, random dots or codeword substitutions") {
  Rng rng(23);
  int misreads = 0, refused = 0, trials = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int H = 6 + rng.below(12);
    int W = 9 + rng.below(60);
    if ((H + W) % 2 == 0) ++W;
    const BuiltSymbol b = buildSymbol(rng, H, W, 1 + rng.below(4), rng.below(4));
    if (b.words.empty()) continue;
    dc::DotGrid g = gridOf(H, W, b.dots);
    const std::vector<int> order = dc::bitOrder(H, W);
    const int model = trial % 3;
    if (model == 0) {
      for (float& v : g.value) v = uniform(rng);  // a texture under a decoy lattice
    } else if (model == 1) {
      for (float& v : g.value) v = static_cast<float>(rng.below(2));
    } else {
      // more of block 0's codewords replaced by other valid ones than it can correct
      const int B = b.layout.blocks, k0 = dc::blockCheckWords(b.layout, 0);
      for (int i = 0, s = B; i < k0 / 2 + 1 && s < b.layout.totalWords; ++i, s += B)
        setSlot(g, order, s, dc::codewordPattern((b.words[s] + 1 + rng.below(112)) % 113), 0.75f);
    }
    ++trials;
    const auto r = dc::decodeDotGrid(g, byReliability());
    if (!r)
      ++refused;
    else
      misreads += r->bytes != b.text;
  }
  CHECK_EQ(misreads, 0);
  CHECK(refused > trials * 9 / 10);
}

TEST("correction by reliability: the slots Reed-Solomon fills must agree with the reading") {
  Rng rng(3);
  // A one-block symbol whose five least reliable slots read clearly as other codewords (0.7 / 0.3:
  // reliability 0.8, neither ambiguous nor trusted). Erasing them, Reed-Solomon fills in the
  // symbol's own values, none of them what the reading had: a correction like that is what a
  // miscorrection looks like, so it is refused, even though here it is right.
  const BuiltSymbol b = buildSymbol(rng, 16, 23, 10, 1);
  REQUIRE(b.layout.blocks == 1 && b.layout.checkWords - 2 >= 5 && b.layout.totalWords > 12);
  const std::vector<int> order = dc::bitOrder(16, 23);
  dc::DotGrid g = gridOf(16, 23, b.dots);
  const int slots[5] = {2, 4, 6, 9, 12};
  for (int s : slots) setSlot(g, order, s, dc::codewordPattern((b.words[s] + 7) % 113), 0.7f);
  CHECK(!dc::decodeDotGrid(g, byReliability()).has_value());
  // One of the five read as the symbol has it (as faintly): a fifth of the filled slots agree.
  setSlot(g, order, slots[2], dc::codewordPattern(b.words[slots[2]]), 0.7f);
  const auto r = dc::decodeDotGrid(g, byReliability());
  CHECK(r.has_value() && r->bytes == b.text);
  if (r) CHECK(r->erasuresCorrected >= 5);  // (the mask word, 1 when clean, is below trusted too)
  // The plain reading takes the five as they read (valid patterns, no faint dot): five errors,
  // more than the block can correct.
  setSlot(g, order, slots[2], dc::codewordPattern((b.words[slots[2]] + 7) % 113), 0.7f);
  CHECK(!dc::decodeDotGrid(g).has_value());
}

TEST("reading by reliability: a block with more toss-up slots than it can erase is hopeless") {
  Rng rng(9);
  const BuiltSymbol b = buildSymbol(rng, 12, 31, 8, 2);
  REQUIRE(b.layout.blocks == 1);
  const std::vector<int> order = dc::bitOrder(12, 31);
  dc::DotGrid g = gridOf(12, 31, b.dots);
  const int room = b.layout.checkWords - 2;
  // a toss-up: two positions of the slot at 0.5 where the two ways of filling them are both codewords
  int tossUps = 0;
  for (int s = 1; s < b.layout.totalWords && tossUps <= room; ++s) {
    const int p = dc::codewordPattern(b.words[s]);
    for (int x = 0; x < 9; ++x)
      for (int y = 0; y < 9; ++y) {
        if ((p >> x & 1) == 0 || (p >> y & 1) == 1 || dc::codewordValue(p ^ (1 << x) ^ (1 << y)) < 0) continue;
        g.value[order[2 + 9 * (s - 1) + (8 - x)]] = 0.5f;
        g.value[order[2 + 9 * (s - 1) + (8 - y)]] = 0.5f;
        ++tossUps;
        x = y = 9;
      }
  }
  REQUIRE(tossUps == room + 1);
  const dc::SoftCodewords soft = dc::readCodewordsSoft(b.layout, g.value.data(), order, 2, 0.25f);
  CHECK(soft.hopeless);
  CHECK(!dc::decodeDotGrid(g, byReliability()).has_value());
}
