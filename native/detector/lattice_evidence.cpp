// Lattice evidence: does a sampled lattice hold DotCode content at all? Every codeword of a
// DotCode but the mask word is a 9-position pattern with exactly five dots (FORMAT.md 4), so over
// any stretch of a symbol about 5/9 of the lattice positions are inked, whatever the data, the
// mask, the print or the part of the symbol the lattice covers. Even at the decoder's correction
// limit (a sixth of the codewords wrong, each by at most four dots) the share stays within
// 0.48-0.63; erasures (0.5) pull it towards 0.5. A lattice grown on text, sparse speckles or
// noise holds whatever share its growth picked up (0.22-0.99 in empty frames). Such a lattice
// cannot decode under any extent, so its hypotheses and its extension over the image are skipped:
// in an empty frame they are most of what a decoy lattice costs.
#include "detector/detector_internal.h"

namespace dc {
namespace det {

float latticeInkShare(const DotGrid& grid, int gridRow0, int gridCol0, const LatticeFit& fit, int parity) {
  double sum = 0;
  int positions = 0;
  for (int r = fit.rowMin; r <= fit.rowMax; ++r) {
    const int gr = r - gridRow0;
    if (gr < 0 || gr >= grid.rows) continue;
    // (the first column of this row on the lattice's parity)
    const int first = fit.colMin + (((r + fit.colMin) & 1) == parity ? 0 : 1);
    for (int c = first; c <= fit.colMax; c += 2) {
      const int gc = c - gridCol0;
      if (gc < 0 || gc >= grid.cols) continue;
      sum += grid.at(gr, gc);
      ++positions;
    }
  }
  return positions > 0 ? static_cast<float>(sum / positions) : 0.0f;
}

bool plausibleInkShare(float share) { return share >= kMinInkShare && share <= kMaxInkShare; }

}  // namespace det
}  // namespace dc
