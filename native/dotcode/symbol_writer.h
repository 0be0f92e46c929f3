// The inverse of the reading path, from codewords to dots: masks data codewords, adds the
// interleaved Reed-Solomon check words and places the bit stream on the grid. It is not a DotCode
// encoder (no text -> codewords, no mask choice); tests, benches and fuzz targets use it to build
// symbols from chosen codewords and to damage them in controlled ways, and the detector to see
// where a decoded symbol puts its dots (read_dotcodes.cpp, addedLinesFollow).
#pragma once
#include <cstdint>
#include <vector>

#include "dotcode/symbol_layout.h"

namespace dc {

// Builds the full NW-word array from unmasked data codewords (mask word excluded), padding with
// 106 up to ND-1 words. Returns empty if the data does not fit.
std::vector<int> buildCodewords(const SymbolLayout& layout, const std::vector<int>& data, int mask);

// Dots (row-major, 0/1) of the canonical grid for a full codeword array; unused bits are 1.
std::vector<uint8_t> placeCodewords(const SymbolLayout& layout, const std::vector<int>& words);

}  // namespace dc
