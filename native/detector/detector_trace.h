// What each stage of the detector saw, for `dotcode inspect` and the engine's debug option: a
// user whose code does not read can see where it was lost (no dots found, dots not grouped, no
// lattice, a lattice whose grid the decoder refused). Filled only when ReadOptions.trace is set;
// the read itself is the same with or without it. Coordinates are the caller's image pixels.
#pragma once
#include <string>
#include <vector>

#include "dotcode/dotcode_symbol.h"

namespace dc {

struct TraceDot {
  float x, y, d;  // centre and diameter
};

// One cluster the lattice stage tried.
struct TraceLattice {
  int cluster = -1;            // index into TracePass::clusters
  std::string outcome;         // "no lattice", "texture", "too few dots", "no grid map", "sampled"
  std::vector<TraceDot> dots;  // the accepted lattice dots
  std::vector<int> row, col;   // their grid positions
  int rows = 0, cols = 0;      // the dots' bounding extent
  float pitch = 0;             // pixels between adjacent grid positions (caller's image)
};

struct TracePass {
  std::string via;
  bool dark = true;                        // polarity of the dots looked for
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;      // the region read (caller's image)
  float scale = 1;                         // the pass image's pixels per caller pixel (2: upsampled)
  bool deconvolving = false;               // a deconvolving stage's (after the image's direct stages and its halved copy)
  std::vector<TraceDot> dots;              // dot candidates (at most kMaxTraceDots)
  std::vector<std::vector<int>> clusters;  // indices into dots
  std::vector<TraceLattice> lattices;
};

// One sampled grid hypothesis as handed to the decoder.
struct TraceHypothesis {
  int pass = -1, lattice = -1;  // indices into DetectorTrace::passes and that pass's lattices
  int rows = 0, cols = 0;
  std::vector<float> values;  // row-major presence, 0.5 = erasure
  PointF corners[4];          // image positions of the grid's corner positions (as sampled)
  std::string outcome;        // "decoded", "refused"
};

// One read of a window of a large photo (read again in windows when the whole read nothing), in
// the order the reads ran: every window's first stages, then the deconvolving stages of those
// that read nothing. A window the time budget did not reach has no entry.
struct TraceWindow {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the window (caller's image)
  bool deconvolving = false;           // the second sweep (false: the first stages)
  int read = 0;                        // symbols this read found (overlapping windows may hold the same one)
};

struct DetectorTrace {
  static constexpr size_t kMaxTraceDots = 50000;
  static constexpr size_t kMaxHypotheses = 400;
  std::vector<TracePass> passes;
  std::vector<TraceHypothesis> hypotheses;
  std::vector<TraceWindow> windows;
};

}  // namespace dc
