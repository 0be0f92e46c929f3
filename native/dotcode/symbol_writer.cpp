#include "dotcode/symbol_writer.h"

#include "dotcode/codeword_table.h"
#include "dotcode/reed_solomon.h"
#include "dotcode/symbol_codewords.h"

namespace dc {

std::vector<int> buildCodewords(const SymbolLayout& l, const std::vector<int>& data, int mask) {
  if (!l.valid || mask < 0 || mask > 3 || static_cast<int>(data.size()) > l.dataWords - 1) return {};
  std::vector<int> words(l.totalWords, 0);
  words[0] = mask;
  for (int p = 1; p < l.dataWords; ++p) {
    const int v = p - 1 < static_cast<int>(data.size()) ? data[p - 1] : 106;
    words[p] = (v + (p - 1) * maskStep(mask)) % 113;
  }
  const int B = l.blocks;
  for (int j = 0; j < B; ++j) {
    std::vector<int> blockData;
    for (int p = j; p < l.dataWords; p += B) blockData.push_back(words[p]);
    const std::vector<int> check = rsCheckWords(blockData, blockCheckWords(l, j));
    int i = 0;
    for (int p = j; p < l.totalWords; p += B)
      if (p >= l.dataWords) words[p] = check[i++];
  }
  return words;
}

std::vector<uint8_t> placeCodewords(const SymbolLayout& l, const std::vector<int>& words) {
  std::vector<uint8_t> grid(static_cast<size_t>(l.rows) * l.cols, 0);
  const std::vector<int> order = bitOrder(l.rows, l.cols);
  if (order.empty() || static_cast<int>(words.size()) != l.totalWords) return grid;
  std::vector<uint8_t> bits(l.dots, 1);
  bits[0] = (words[0] >> 1) & 1;
  bits[1] = words[0] & 1;
  for (int s = 1; s < l.totalWords; ++s) {
    const int pattern = codewordPattern(words[s]);
    for (int b = 0; b < 9; ++b) bits[2 + 9 * (s - 1) + b] = (pattern >> (8 - b)) & 1;
  }
  for (int i = 0; i < l.dots; ++i) grid[order[i]] = bits[i];
  return grid;
}

}  // namespace dc
