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
  // Some block holds more erasures than check words, so no correction can succeed; the stream
  // was not read past that point (words and erased are then incomplete).
  bool hopeless = false;
};

// The stream's i-th bit is the sampled ink values[sources[i]] (0..1): a dot at 0.5 or more, too
// faint to trust (weak) within margin of 0.5. Stops early (hopeless) once a block has more
// erasures than it has check words.
RawCodewords readCodewords(const SymbolLayout& layout, const float* values, const std::vector<int>& sources, float margin);

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
