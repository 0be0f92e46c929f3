// The public face of the DotCode decoding core: a sampled dot grid in, exact data out.
//
// The detector (native/detector) samples a grid from an image and calls decodeDotGrid(); the
// addon exposes the same call to JavaScript. Everything behind it (orientation, unmasking,
// Reed-Solomon, the data layer) lives in its own file in this folder.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dc {

// Dot presence sampled at every position of an H x W grid, row-major, top row first.
// value[r*cols + c] is the likelihood that a dot is printed there: 1 = surely a dot,
// 0 = surely empty, values near 0.5 are weak and are treated as erasures by the decoder.
// The grid may be handed over in any of the 8 rotations/reflections of the true symbol.
struct DotGrid {
  int rows = 0;
  int cols = 0;
  std::vector<float> value;

  float at(int r, int c) const { return value[static_cast<size_t>(r) * cols + c]; }
};

// Where an ECI takes effect: bytes[offset..] (up to the next segment's offset) are in that ECI's
// character set. Bytes before the first segment are in the default set (ISO-8859-1, FORMAT.md 8.8).
struct EciSegment {
  size_t offset = 0;  // index into DotCodeSymbol::bytes of the first byte the ECI applies to
  int eci = 0;
  bool operator==(const EciSegment& o) const { return offset == o.offset && eci == o.eci; }
};

struct DotCodeSymbol {
  std::string bytes;                    // payload bytes exactly as encoded (GS1: FNC1 -> 0x1D)
  bool gs1 = false;                     // FNC1 in first position
  std::vector<int> ecis;                // ECI designators in order of appearance
  std::vector<EciSegment> eciSegments;  // the same ECIs with their byte offsets, same order
  int structuredAppendIndex = 0;        // 1..count when part of a structured append sequence, else 0
  int structuredAppendCount = 0;
  int structuredAppendFileId = -1;  // -1: none in the symbol
  bool readerInit = false;
  std::string macro;        // "05", "06", "12", "generic" or "" (ISO/IEC 15434 header)
  std::string symbologyId;  // AIM identifier, e.g. "]J0" (never part of bytes)
  int rows = 0;             // symbol size in canonical orientation
  int cols = 0;
  int mask = 0;
  int errorsCorrected = 0;
  int erasuresCorrected = 0;
  int ecBudget = 0;     // total check codewords (sum over blocks)
  int orientation = 0;  // which of the 8 transforms of the input grid was canonical
  bool mirrored = false;
  // The corrected codeword array, mask word first (symbol_writer.h's placeCodewords lays it out
  // again): what the symbol's dots are, positions the decoder erased or corrected included.
  std::vector<int> codewords;
};

struct GridDecodeOptions {
  // Presence values within this distance of 0.5 are passed to Reed-Solomon as erasures.
  float erasureMargin = 0.15f;
  // Check words per Reed-Solomon block that a correction must leave unused (erasures + 2*errors
  // <= NC_j - this). 1 is FORMAT.md 7's rule (enough to reject mirror readings); each further
  // spare word cuts the chance of accepting a miscorrected block by about 113x. Measured on 100,000
  // corrupted grids (bench/RESULTS.md): 1 -> 67 misreads, 2 -> none. 2 costs one erasure of
  // correction per block. Values below 1 are treated as 1.
  int minSpareCheckWords = 2;
  // Read every slot as its most likely codeword and correct by reliability (generalised minimum
  // distance: symbol_codewords.h, correctByReliability) instead of erasing the slots with a faint
  // dot. For grids the plain reading refuses; the spare-word rule is the same.
  bool byReliability = false;
  // With byReliability, a slot's reliability is the gap between its best and second best
  // pattern's cost (a clean slot's is 2, a toss-up's 0). Below this a slot is always erased
  // (0.15: on the packs of seeds 1-700, 0.25 read 9 fewer and 0.1 no more; on the misread bench
  // 0.1 added a misread, 0.15 none).
  float ambiguousReliability = 0.15f;
  // ... and from this on a correction may not change it.
  float trustedReliability = 1.2f;
};

// Tries the orientations of the grid, decodes each plausible reading and returns the one that
// needed the fewest corrections. Returns nothing when no reading is a valid symbol, or when two
// readings tie (a wrong text is worse than no text). Never throws, whatever the grid holds.
std::optional<DotCodeSymbol> decodeDotGrid(const DotGrid& grid, const GridDecodeOptions& options = {});

}  // namespace dc
