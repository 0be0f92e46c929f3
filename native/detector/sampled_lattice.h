// What the detector hands to video fusion (frame_fusion.h): for every lattice it fitted and
// sampled in a frame, the sampled presence values with the grid's place in the image. Filled only
// when ReadOptions.sampled is set; the read itself is the same with or without it.
#pragma once
#include <vector>

#include "core/grey_image.h"
#include "dotcode/dotcode_symbol.h"

namespace dc {

struct SampledLattice {
  DotGrid grid;     // presence over the lattice's dot box plus a margin, as sampled (0.5 = erasure)
  int parity = 0;   // (row + col) & 1 of the lattice positions in grid coordinates
  int boxRow0 = 0;  // the accepted dots' bounding box within the grid
  int boxRows = 0;
  int boxCol0 = 0;
  int boxCols = 0;
  PointF corners[4];   // image points of grid positions (0,0), (0,cols-1), (rows-1,cols-1), (rows-1,0)
  bool dark = true;    // polarity of the dots
  float pitch = 0;     // image pixels between adjacent grid positions
  float contrast = 0;  // grey levels between the lattice's ground and its dots (blur lowers it)
  int result = -1;     // index into readDotCodes' results when one of its extents decoded
};

}  // namespace dc
