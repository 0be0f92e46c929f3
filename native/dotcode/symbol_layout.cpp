#include "dotcode/symbol_layout.h"

namespace dc {

SymbolLayout layoutFor(int rows, int cols) {
  SymbolLayout l;
  l.rows = rows;
  l.cols = cols;
  if (rows < 5 || cols < 5 || rows > kMaxSymbolSide || cols > kMaxSymbolSide || (rows + cols) % 2 == 0) return l;
  l.dots = rows * cols / 2;
  int nw = 1 + (l.dots - 2) / 9;  // the mask word plus every complete 9-bit slot
  if (nw % 3 == 0) --nw;          // a valid total is never a multiple of 3 (FORMAT.md 2)
  l.totalWords = nw;
  l.checkWords = nw / 3 + 2;
  l.dataWords = nw - l.checkWords;
  l.blocks = (nw + 111) / 112;
  l.valid = l.dataWords >= 2;  // the mask word and at least one data codeword
  return l;
}

int blockCheckWords(const SymbolLayout& l, int j) {
  const int B = l.blocks;
  auto ceilDiv = [](int a, int b) { return a <= 0 ? 0 : (a + b - 1) / b; };
  return ceilDiv(l.totalWords - j, B) - ceilDiv(l.dataWords - j, B);
}

std::vector<int> bitOrder(int rows, int cols) {
  std::vector<int> order;
  const SymbolLayout l = layoutFor(rows, cols);
  if (!l.valid) return order;
  order.reserve(l.dots);
  const int H = rows, W = cols;
  int corners[6];
  if (W % 2 == 1) {  // column layout: columns left to right, each top to bottom
    const int rc[6][2] = {{H - 2, W - 1}, {H - 2, 0}, {H - 1, W - 2}, {H - 1, 1}, {0, W - 1}, {0, 0}};
    for (int i = 0; i < 6; ++i) corners[i] = rc[i][0] * W + rc[i][1];
  } else {  // row layout: rows bottom to top, each left to right
    const int rc[6][2] = {{0, W - 2}, {H - 1, W - 2}, {1, W - 1}, {H - 2, W - 1}, {0, 0}, {H - 1, 0}};
    for (int i = 0; i < 6; ++i) corners[i] = rc[i][0] * W + rc[i][1];
  }
  auto isCorner = [&](int pos) {
    for (int c : corners)
      if (c == pos) return true;
    return false;
  };
  if (W % 2 == 1) {
    for (int c = 0; c < W; ++c)
      for (int r = c % 2; r < H; r += 2)
        if (!isCorner(r * W + c)) order.push_back(r * W + c);
  } else {
    for (int r = H - 1; r >= 0; --r)
      for (int c = r % 2; c < W; c += 2)
        if (!isCorner(r * W + c)) order.push_back(r * W + c);
  }
  for (int c : corners) order.push_back(c);
  return order;
}

}  // namespace dc
