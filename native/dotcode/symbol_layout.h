// Geometry of a DotCode symbol in canonical orientation (FORMAT.md sections 1 and 2): how many
// codewords an H x W grid holds, and the order in which its dot positions carry the bit stream.
#pragma once
#include <vector>

namespace dc {

// Largest side accepted. zint stops at 200, but BWIPP/bwip-js draws taller symbols when the width
// is forced (404 x 27 seen), and the addon accepts up to 1000.
constexpr int kMaxSymbolSide = 1000;

struct SymbolLayout {
  int rows = 0, cols = 0;
  int dots = 0;        // N = rows*cols/2 dot positions
  int totalWords = 0;  // NW: mask word + data + check words
  int dataWords = 0;   // ND: mask word included
  int checkWords = 0;  // NC
  int blocks = 0;      // B = ceil(NW/112)
  bool valid = false;  // false when the size cannot hold a symbol
};

// Size-derived counts. valid = false for H+W even, sizes under 5, or no room for data.
SymbolLayout layoutFor(int rows, int cols);

// Dot positions (row*cols+col, canonical grid) in bit-stream order: the scan of FORMAT.md 1.1
// (column layout when cols is odd, row layout when rows is odd) without the six corner dots,
// then the corners in the order of 1.2. Empty when the size is invalid.
std::vector<int> bitOrder(int rows, int cols);

// Check words of block j (FORMAT.md 5): ceil((NW-j)/B) - ceil((ND-j)/B).
int blockCheckWords(const SymbolLayout& layout, int block);

}  // namespace dc
