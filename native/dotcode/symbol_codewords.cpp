#include "dotcode/symbol_codewords.h"

#include <algorithm>
#include <cmath>

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
  // Erasures each block can still take: Reed-Solomon cannot correct more erasures than a block
  // has check words (rsDecode refuses them), so the first block past its count fails the whole
  // stream. The grids of decoy lattices (text, textures, matrix codes) get there early: about 4 of
  // 5 random 9-bit patterns are no codeword, and their decoding is most of what a frame without a
  // symbol spends in the decoder.
  const int B = std::max(1, l.blocks);
  int leftStack[8];
  std::vector<int> leftHeap;
  int* left = leftStack;
  if (B > 8) {
    leftHeap.resize(B);
    left = leftHeap.data();
  }
  for (int j = 0; j < B; ++j) left[j] = l.blocks > 0 ? blockCheckWords(l, j) : l.totalWords;
  // marks codeword s erased; true once its block has more erasures than it can take
  auto erase = [&](int s) {
    raw.erased[s] = 1;
    raw.hopeless = --left[s % B] < 0;
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
    c.errors += r.errors;
    c.erasures += r.erasures;
    c.blockCost.push_back(r.cost());
    c.blockBudget.push_back(k);
  }
  if (words[0] > 3) return c;  // corrected mask identifier must be one of the four masks
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
