// Internal types of video fusion (frame_fusion.h), shared by its three files:
//   track_symbols.cpp  a frame's sampled lattice -> the track it continues (placement, agreement)
//   fuse_frames.cpp    per-position weights, the fused grid of a track, decoding it
//   frame_fusion.cpp   the driver: read the frame, match, fuse, decode, report
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/grey_image.h"
#include "detector/dotcode_reader.h"
#include "detector/sampled_lattice.h"
#include "dotcode/dotcode_symbol.h"

namespace dc {
namespace fusion {

// A plane projective map (row-major 3x3, h[8] = 1). Grid positions are mapped as (x = col, y = row).
struct Homography {
  double h[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  PointF map(double x, double y) const;
  // The map taking src[k] to dst[k] (k = 0..3); false when degenerate.
  bool fromPoints(const PointF src[4], const PointF dst[4]);
};

// Where a lattice's grid lies in a track's grid: track = A * (row, col) + (dr, dc), A one of the
// 8 signed permutations (the lattice fit may choose its axes differently in every frame).
struct Placement {
  bool swap = false;   // A exchanges rows and columns
  int sr = 1, sc = 1;  // signs of the two axes after the exchange
  int dr = 0, dc = 0;
  void apply(int r, int c, int& tr, int& tc) const {
    const int a = swap ? c : r, b = swap ? r : c;
    tr = sr * a + dr;
    tc = sc * b + dc;
  }
};

// One frame's contribution to a track, kept to be taken back out when it leaves the window.
struct Observation {
  int frame = 0;
  std::vector<int32_t> row, col;  // track coordinates
  std::vector<float> wv, w;       // weight x value, weight
};

struct Extent {
  int row0 = 0, rows = 0, col0 = 0, cols = 0;
};

struct Track {
  int id = 0;
  bool dark = true;
  int parity = 0;  // (row + col) & 1 of the lattice positions in track coordinates
  // The fused sums over [row0, row0 + rows) x [col0, col0 + cols), row-major.
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
  std::vector<float> sumWV, sumW;
  std::deque<Observation> observations;
  // Geometry as of the last frame that saw it: image -> track grid, and its image box.
  Homography fromImage, toImage;
  float pitch = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float bestContrast = 0;
  int lastFrame = 0;
  bool hasText = false;
  std::string text;                  // payload once read (a later read of another text starts a new track)
  std::optional<Extent> lastExtent;  // the extent that decoded last (tried first)
  // What the fused grid said at the last decode that failed (per position of the sums: -1 sure
  // empty, 0 unsure, 1 sure dot): a grid that has not changed since is not decoded again.
  std::vector<int8_t> lastTried;
  int lastTriedRow0 = 0, lastTriedCol0 = 0, lastTriedCols = 0;
};

// Per grid position of a sampled lattice, how much its value may count (0: washed out by glare,
// or an erasure); `toImage` maps the lattice's grid to the image.
void positionWeights(const GreyImage& image, const SampledLattice& lattice, const Homography& toImage,
                     std::vector<float>& weights);

struct Match {
  bool ok = false;
  Placement placement;
  float agreement = 0;  // weighted share of confident positions where lattice and track agree
  int overlap = 0;      // confident positions compared
};

// How sure a placement must be. Across frames (the hand moved the symbol since the track's
// geometry was taken) the shift is searched over a few positions and the values must agree
// clearly. Within a frame, against the geometry of a lattice of the same frame that matched
// (a part of the symbol cut off by a glare streak), the geometry alone places the lattice to
// within a position; the values only have to not disagree.
struct MatchRules {
  int shiftWindow = 4;         // positions searched around the geometric guess
  double maxCornerMisfit = 3;  // grid positions (root mean square) of the corners after the best shift
  float minAgreement = 0.8f;   // weighted share of agreeing confident positions
  int minOverlap = 16;         // confident positions compared, at least
  float maxRunnerUp = 0.7f;    // no other shift may agree this well (periodic textures)
  bool trustGeometry = false;  // with fewer than minOverlap positions to compare, take the guess
};
MatchRules acrossFrames();
MatchRules withinFrame();

// Whether `lattice` (seen in this frame) continues `track`, and where it lies in the track's grid.
Match matchTrack(const Track& track, const SampledLattice& lattice, const std::vector<float>& weights, const MatchRules& rules);

// The image box of the lattice's sampled grid.
void latticeBox(const SampledLattice& lattice, float& x0, float& y0, float& x1, float& y1);

// Adds a frame's values to the track (frameWeight scales every position's weight).
void addObservation(Track& track, const SampledLattice& lattice, const Placement& placement,
                    const std::vector<float>& weights, float frameWeight, int frame);
// Takes back the observations older than `maxFrames` frames (and the oldest beyond 4 per frame).
void forgetOld(Track& track, int frame, int maxFrames);
// Share of the extent's lattice positions that observations of `frame` saw with some weight.
float frameCoverage(const Track& track, const Extent& extent, int frame);
// Distinct frames among the track's observations (a frame can show a symbol in parts).
int framesOf(const Track& track);
// The fused presence of a track position: the weighted mean pulled towards 0.5 (an erasure) when
// little weight stands behind it.
float fusedValue(const Track& track, int row, int col);

struct FusedSymbol {
  DotCodeSymbol symbol;
  Extent extent;
  PointF corners[4];
};
// Decodes the track's fused grid (its extent hypotheses, each through decodeDotGrid unchanged),
// with at most `decodes` calls of decodeDotGrid (counted down; the frame's budget).
std::optional<FusedSymbol> decodeTrack(Track& track, int& decodes);

}  // namespace fusion
}  // namespace dc
