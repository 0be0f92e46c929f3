// The detector's grid hypotheses without the decoder, for the stage tests and the fuzzer: what
// locate -> lattice -> sample produced, checkable against a known matrix. Not used by the reader.
#pragma once
#include <string>
#include <vector>

#include "detector/detector_internal.h"
#include "detector/dotcode_reader.h"

namespace dc {
namespace det {

// One sampled grid hypothesis, as handed to decodeDotGrid (exposed for the stage tests).
struct GridCandidate {
  DotGrid grid;
  std::string via;
  PointF corners[4];  // image positions of the grid's corner positions (sampled orientation)
  int latticeDots = 0;
};

// Runs the passes and returns the first (base) grid hypothesis of every lattice found, without
// decoding. Used by the tests to check locate/lattice/sample independently of the decoder.
std::vector<GridCandidate> findGridCandidates(const GreyImage& image, const ReadOptions& options);

}  // namespace det
}  // namespace dc
