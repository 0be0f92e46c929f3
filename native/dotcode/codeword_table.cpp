#include "dotcode/codeword_table.h"

#include <algorithm>
#include <array>
#include <vector>

namespace dc {
namespace {

struct Table {
  std::array<short, 113> pattern{};
  std::array<short, 512> value{};

  Table() {
    // FORMAT.md 4: all 9-bit words with five 1s, most bit transitions first, then by numeric
    // value; the first 113 are codewords 0..112.
    std::vector<int> words;
    for (int w = 0; w < 512; ++w)
      if (__builtin_popcount(static_cast<unsigned>(w)) == 5) words.push_back(w);
    auto transitions = [](int w) { return __builtin_popcount(static_cast<unsigned>((w ^ (w >> 1)) & 0xFF)); };
    std::stable_sort(words.begin(), words.end(), [&](int a, int b) {
      int ta = transitions(a), tb = transitions(b);
      return ta != tb ? ta > tb : a < b;
    });
    value.fill(-1);
    for (int v = 0; v < 113; ++v) {
      pattern[v] = static_cast<short>(words[v]);
      value[words[v]] = static_cast<short>(v);
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

int codewordPattern(int value) { return value >= 0 && value < 113 ? table().pattern[value] : -1; }

int codewordValue(int pattern9) { return pattern9 >= 0 && pattern9 < 512 ? table().value[pattern9] : -1; }

}  // namespace dc
