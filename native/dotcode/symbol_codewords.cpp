#include "dotcode/symbol_codewords.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dotcode/codeword_table.h"
#include "dotcode/reed_solomon.h"

namespace dc {

int maskStep(int mask) {
  static const int kSteps[4] = {0, 3, 7, 17};
  return mask >= 0 && mask < 4 ? kSteps[mask] : 0;
}

namespace {

// Every codeword pattern has exactly 5 dots and only 113 of the 512 are valid, so one or two faint
// bits among confident ones are often settled by the pattern itself: when exactly one way of
// filling them in gives a valid pattern, that codeword is read, not erased. If a confident bit was
// wrong the codeword becomes an error (two check words) instead of an erasure (one), but the
// faint bit is far more often the only doubt, and the erasures it saves are what tips symbols
// under glare, uneven ink or blur over their correction limit.
int completion(int pattern, int faintMask, int faint) {
  if (faint > 2) return -1;
  int bitsAt[2], n = 0;
  for (int b = 0; b < 9; ++b)
    if (faintMask >> b & 1) bitsAt[n++] = b;
  int found = -1;
  for (int m = 0; m < (1 << faint); ++m) {
    int p = pattern & ~faintMask;
    for (int k = 0; k < faint; ++k)
      if (m >> k & 1) p |= 1 << bitsAt[k];
    const int v = codewordValue(p);
    if (v < 0) continue;
    if (found >= 0) return -1;  // two valid completions: a true erasure
    found = v;
  }
  return found;
}

// Erasures each block can still take: Reed-Solomon cannot correct more erasures than a block has
// check words (rsDecode refuses them; `spare` of them may be kept back), so the first block past
// its count fails the whole stream. The grids of decoy lattices (text, textures, matrix codes) get
// there early: about 4 of 5 random 9-bit patterns are no codeword, and their decoding is most of
// what a frame without a symbol spends in the decoder. Both readings stop there.
class ErasureRoom {
 public:
  ErasureRoom(const SymbolLayout& l, int spare) : blocks_(std::max(1, l.blocks)) {
    if (blocks_ > kOnStack) {
      heap_.resize(blocks_);
      left_ = heap_.data();
    }
    for (int j = 0; j < blocks_; ++j) left_[j] = (l.blocks > 0 ? blockCheckWords(l, j) : l.totalWords) - spare;
  }
  ErasureRoom(const ErasureRoom&) = delete;
  ErasureRoom& operator=(const ErasureRoom&) = delete;
  // Counts an erasure of slot s; true once its block holds more than it can take.
  bool overflows(int s) { return --left_[s % blocks_] < 0; }

 private:
  static constexpr int kOnStack = 8;
  int blocks_;
  int stack_[kOnStack];
  std::vector<int> heap_;
  int* left_ = stack_;
};

}  // namespace

RawCodewords readCodewords(const SymbolLayout& l, const float* values, const std::vector<int>& sources, float margin) {
  RawCodewords raw;
  raw.words.assign(l.totalWords, 0);
  raw.erased.assign(l.totalWords, 0);
  if (static_cast<int>(sources.size()) < l.dots) {
    raw.erased.assign(l.totalWords, 1);
    return raw;
  }
  // (a NaN value reads as no dot, and not as a faint one)
  auto bit = [&](int i) { return values[sources[i]] >= 0.5f ? 1 : 0; };
  auto weak = [&](int i) { return std::fabs(values[sources[i]] - 0.5f) < margin; };
  ErasureRoom room(l, 0);
  // marks codeword s erased; true once its block has more erasures than it can take
  auto erase = [&](int s) {
    raw.erased[s] = 1;
    raw.hopeless = room.overflows(s);
    return raw.hopeless;
  };
  raw.words[0] = bit(0) * 2 + bit(1);
  if ((weak(0) || weak(1)) && erase(0)) return raw;
  for (int s = 1; s < l.totalWords; ++s) {
    const int start = 2 + 9 * (s - 1);
    int pattern = 0, faintMask = 0, faint = 0;
    for (int b = 0; b < 9; ++b) {
      pattern = pattern << 1 | bit(start + b);
      if (weak(start + b)) faintMask |= 1 << (8 - b), ++faint;
    }
    int v = faint == 0 ? codewordValue(pattern) : completion(pattern, faintMask, faint);
    if (v >= 0)
      raw.words[s] = v;
    else if (erase(s))
      return raw;
  }
  return raw;
}

Correction correctCodewords(const SymbolLayout& l, std::vector<int>& words, const std::vector<uint8_t>& erased) {
  Correction c;
  const int B = l.blocks;
  if (B <= 0 || static_cast<int>(words.size()) != l.totalWords) return c;
  std::vector<int> block, erasures;
  for (int j = 0; j < B; ++j) {
    block.clear();
    erasures.clear();
    for (int p = j; p < l.totalWords; p += B) {
      if (erased[p]) erasures.push_back(static_cast<int>(block.size()));
      block.push_back(words[p]);
    }
    const int k = blockCheckWords(l, j);
    const RsOutcome r = rsDecode(block, k, erasures);
    if (!r.ok) return c;
    for (int p = j, i = 0; p < l.totalWords; p += B, ++i) words[p] = block[i];
    c.record(r, k);
  }
  if (words[0] > 3) return c;  // corrected mask identifier must be one of the four masks
  c.ok = true;
  return c;
}

SoftCodewords readCodewordsSoft(const SymbolLayout& l, const float* values, const std::vector<int>& sources, int minSpare,
                                float ambiguousBelow) {
  SoftCodewords soft;
  soft.words.assign(l.totalWords, 0);
  soft.reliability.assign(l.totalWords, 0.0f);
  if (static_cast<int>(sources.size()) < l.dots || l.blocks <= 0) {
    soft.hopeless = true;
    return soft;
  }
  // A pattern's cost is the sum over its bits of (bit ? 1 - v : v) = sum(v) + sum over its dots
  // of (1 - 2v); the first sum is the same for every pattern, so only the dots' terms compare.
  // (a NaN value, no sample, is a toss-up)
  auto term = [&](int i) {
    const float v = values[sources[i]];
    return v == v ? 1.0f - 2.0f * std::clamp(v, 0.0f, 1.0f) : 0.0f;
  };
  // (every ambiguous slot will be erased: correctByReliability)
  ErasureRoom room(l, minSpare);
  auto settle = [&](int s, int value, float reliability) {
    soft.words[s] = value;
    soft.reliability[s] = reliability;
    if (reliability < ambiguousBelow && room.overflows(s)) soft.hopeless = true;
    return soft.hopeless;
  };
  {
    const float t0 = term(0), t1 = term(1);
    // mask word: two plain bits, each decided alone; its reliability is the cost of flipping the
    // fainter one (1 when clean: the next mask is one dot away, the next codeword two)
    if (settle(0, (t0 < 0 ? 2 : 0) + (t1 < 0 ? 1 : 0), std::min(std::fabs(t0), std::fabs(t1)))) return soft;
  }
  // The 113 patterns' costs side by side in 16-bit integers (a term in thousandths): per bit, its
  // term added where the pattern has that bit (a mask), which vectorises, as do the two minima.
  constexpr int kScale = 1000;
  constexpr int kPadded = 120;  // 113 rounded up to whole vectors of 8
  struct BitMasks {
    int16_t has[9][kPadded];
  };
  static const BitMasks kMasks = [] {
    BitMasks m{};
    for (int v = 0; v < 113; ++v)
      for (int b = 0; b < 9; ++b) m.has[b][v] = (codewordPattern(v) >> b & 1) ? -1 : 0;
    return m;
  }();
  int16_t t[9], cost[kPadded];
  auto smallest = [&]() {
    int16_t m = INT16_MAX;
    for (int v = 0; v < kPadded; ++v) m = std::min(m, cost[v]);
    return m;
  };
  for (int s = 1; s < l.totalWords; ++s) {
    const int start = 2 + 9 * (s - 1);
    for (int b = 0; b < 9; ++b) {  // (in the pattern's bit order)
      const float x = term(start + b) * kScale;
      t[8 - b] = static_cast<int16_t>(x < 0 ? x - 0.5f : x + 0.5f);
    }
    for (int v = 0; v < kPadded; ++v)
      cost[v] = static_cast<int16_t>((kMasks.has[0][v] & t[0]) + (kMasks.has[1][v] & t[1]) + (kMasks.has[2][v] & t[2]) +
                                     (kMasks.has[3][v] & t[3]) + (kMasks.has[4][v] & t[4]) + (kMasks.has[5][v] & t[5]) +
                                     (kMasks.has[6][v] & t[6]) + (kMasks.has[7][v] & t[7]) + (kMasks.has[8][v] & t[8]));
    for (int v = 113; v < kPadded; ++v) cost[v] = INT16_MAX;
    const int16_t best = smallest();
    int bestValue = 0;
    while (cost[bestValue] != best) ++bestValue;
    cost[bestValue] = INT16_MAX;
    const int16_t second = smallest();
    if (settle(s, bestValue, static_cast<float>(second - best) / kScale)) return soft;
  }
  return soft;
}

namespace {

// Reed-Solomon fills the erased slots with whatever makes the block a codeword, and with only the
// spare check words to verify, a block damaged past its budget now and then lands on another
// codeword. Then the filled values are arbitrary, while a true correction mostly fills in what the
// soft reading had as the slot's best guess (a slot is erased for being unsure, not for being
// wrong). So at least a fifth of the filled slots must agree with the reading. On 3 million
// corrupted grids (bench_dotcode_misread, seeds 1, 3 and 7) the plain reading misreads 7; decoding
// by reliability where it refuses added 21 more without this rule and none with it, and still
// reads 63% of the noisy grids instead of the plain reading's 55% (66% without the rule).
// Counted over every filled slot, toss-ups included: over the informative ones alone, 7 fewer of
// the native test's 300 noisy grids read, and one fewer of the packs of seeds 1-400 (measured with
// toss-ups below 0.25).
bool filledLikeRead(const std::vector<int>& block, const std::vector<int>& words, const std::vector<int>& slots,
                    const std::vector<int>& order, int erased) {
  int agree = 0;
  for (int i = 0; i < erased; ++i) agree += block[order[i]] == words[slots[order[i]]];
  return 5 * agree >= erased;
}

}  // namespace

Correction correctByReliability(const SymbolLayout& l, std::vector<int>& words, const std::vector<float>& reliability,
                                int minSpare, float ambiguousBelow, float trustedFrom) {
  Correction c;
  const int B = l.blocks;
  if (B <= 0 || static_cast<int>(words.size()) != l.totalWords || static_cast<int>(reliability.size()) != l.totalWords)
    return c;
  std::vector<int> slots, order, block, erasures;
  for (int j = 0; j < B; ++j) {
    slots.clear();
    for (int p = j; p < l.totalWords; p += B) slots.push_back(p);
    const int n = static_cast<int>(slots.size());
    const int k = blockCheckWords(l, j);
    const int most = std::min(n, k - minSpare);
    // ambiguous slots are always erased, trusted ones never: the trials only move the line
    // between the two through the slots in between
    int ambiguous = 0, untrusted = 0;
    for (int p : slots) {
      ambiguous += reliability[p] < ambiguousBelow;
      untrusted += reliability[p] < trustedFrom;
    }
    if (ambiguous > most) return c;
    order.resize(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return reliability[slots[a]] < reliability[slots[b]]; });
    bool done = false;
    for (int e = std::min(most, untrusted); e >= ambiguous && !done; e -= 2) {
      block.clear();
      for (int p : slots) block.push_back(words[p]);
      erasures.assign(order.begin(), order.begin() + e);
      const RsOutcome r = rsDecode(block, k, erasures);
      if (!r.ok || r.cost() > k - minSpare) continue;
      bool trustedChanged = false;
      for (int i = 0; i < n && !trustedChanged; ++i)
        trustedChanged = block[i] != words[slots[i]] && reliability[slots[i]] >= trustedFrom;
      if (trustedChanged) continue;
      if (!filledLikeRead(block, words, slots, order, e)) continue;
      for (int i = 0; i < n; ++i) words[slots[i]] = block[i];
      c.record(r, k);
      done = true;
    }
    if (!done) return c;
  }
  if (words[0] > 3) return c;
  c.ok = true;
  return c;
}

std::vector<int> unmaskData(const SymbolLayout& l, const std::vector<int>& words) {
  std::vector<int> data;
  const int step = maskStep(words[0]);
  data.reserve(l.dataWords - 1);
  for (int p = 1; p < l.dataWords; ++p) data.push_back(((words[p] - (p - 1) * step) % 113 + 113) % 113);
  return data;
}

}  // namespace dc
