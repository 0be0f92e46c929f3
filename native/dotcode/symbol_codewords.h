// From canonical bit stream to corrected, unmasked data codewords (FORMAT.md 1.3, 4, 5, 6).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dotcode/reed_solomon.h"
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
  // A block corrected as `r` with k check words.
  void record(const RsOutcome& r, int k) {
    errors += r.errors;
    erasures += r.erasures;
    blockCost.push_back(r.cost());
    blockBudget.push_back(k);
  }
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

// Soft reading: every slot gets its most likely codeword, the valid pattern whose dots best fit
// the sampled values (cost: how far each value lies from its bit), and a reliability, the second
// best pattern's cost minus the best one's (0: a toss-up). A pattern that is no codeword, one
// flipped dot of the 9, is then settled by how faint each of its dots was, not erased.
// Stops early (hopeless) once a block holds more slots read less reliably than `ambiguousBelow`
// than it has check words beyond `minSpare` (correctByReliability erases every such slot).
struct SoftCodewords {
  std::vector<int> words;
  std::vector<float> reliability;
  bool hopeless = false;
};
SoftCodewords readCodewordsSoft(const SymbolLayout& layout, const float* values, const std::vector<int>& sources, int minSpare,
                                float ambiguousBelow);

// Generalised minimum distance decoding (Forney), block by block. Slots read less reliably than
// `ambiguousBelow` are always erased (a block with more of them than it can take is refused, as
// the plain reading refuses a block with too many invalid patterns), slots read at least
// `trustedFrom` never are; in between, the least reliable are erased, as many as the block can
// take first (Reed-Solomon only fills them in and the spare check words verify), then two fewer
// at a time (each trial corrects one more error). A block is accepted at the first trial whose
// correction leaves `minSpare` check words unused, changes no trusted slot, and fills at least a
// fifth of its erased slots with the value the soft reading had there: a miscorrection lands on
// arbitrary values, a true correction mostly on the reading's best guesses.
Correction correctByReliability(const SymbolLayout& layout, std::vector<int>& words, const std::vector<float>& reliability,
                                int minSpare, float ambiguousBelow, float trustedFrom);

// Data codewords 1..ND-1 with the mask of words[0] removed (FORMAT.md 6).
std::vector<int> unmaskData(const SymbolLayout& layout, const std::vector<int>& words);

// The mask steps of masks 0..3.
int maskStep(int mask);

}  // namespace dc
