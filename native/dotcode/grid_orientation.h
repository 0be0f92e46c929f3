// The 8 rotations/reflections of a sampled grid (FORMAT.md section 7).
#pragma once
#include <vector>

namespace dc {

// Transform t (0..7) of an R x C grid: t&3 = clockwise quarter turns, t>=4 = mirrored first
// (columns reversed). Gives the transformed size and, for a position of the transformed grid,
// the index (r*C+c) of the input value it shows.
struct GridTransform {
  int t = 0, inRows = 0, inCols = 0;
  int rows() const { return (t & 1) ? inCols : inRows; }
  int cols() const { return (t & 1) ? inRows : inCols; }
  int sourceIndex(int r, int c) const {
    int a, b;  // position in the input grid
    switch (t & 3) {
      case 0:
        a = r;
        b = c;
        break;
      case 1:
        a = inRows - 1 - c;
        b = r;
        break;  // quarter turn clockwise
      case 2:
        a = inRows - 1 - r;
        b = inCols - 1 - c;
        break;
      default:
        a = c;
        b = inCols - 1 - r;
        break;
    }
    if (t >= 4) b = inCols - 1 - b;
    return a * inCols + b;
  }
};

}  // namespace dc
