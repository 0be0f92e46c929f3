// From canonical bit stream to corrected, unmasked data codewords (FORMAT.md 1.3, 4, 5, 6).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dotcode/symbol_layout.h"

namespace dc {

// The NW codewords read from the stream, with an erasure flag per codeword. Index 0 is the mask
// identifier (2 bits); slots whose pattern is not a codeword, or that hold a weak dot, are erased
// and given the value 0.
struct RawCodewords {
  std::vector<int> words;
  std::vector<uint8_t> erased;
};

// bits[i] / weak[i] are the i-th stream bit and whether its dot was too faint to trust.
RawCodewords readCodewords(const SymbolLayout& layout, const std::vector<uint8_t>& bits,
                           const std::vector<uint8_t>& weak);

struct Correction {
  bool ok = false;
  int errors = 0, erasures = 0;
  std::vector<int> blockCost;    // erasures + 2*errors per block
  std::vector<int> blockBudget;  // check words per block
  // At least `spare` check words left unused in every block.
  bool hasSpare(int spare = 1) const {
    for (std::size_t j = 0; j < blockCost.size(); ++j)
      if (blockCost[j] > blockBudget[j] - spare) return false;
    return true;
  }
};

// De-interleaves into B blocks (stride B), Reed-Solomon corrects each, and writes the corrected
// words back. Fails if any block cannot be corrected or the mask identifier comes out above 3.
Correction correctCodewords(const SymbolLayout& layout, std::vector<int>& words, const std::vector<uint8_t>& erased);

// Data codewords 1..ND-1 with the mask of words[0] removed (FORMAT.md 6).
std::vector<int> unmaskData(const SymbolLayout& layout, const std::vector<int>& words);

// The mask steps of masks 0..3.
int maskStep(int mask);

}  // namespace dc
