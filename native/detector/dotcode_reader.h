// The public face of the DotCode detector: a greyscale image in, every DotCode symbol found out.
// Pipeline, one file per stage: locate dots -> fit lattice -> fit grid -> sample -> decode
// (decodeDotGrid in native/dotcode).
#pragma once
#include <string>
#include <vector>

#include "core/grey_image.h"
#include "detector/detector_trace.h"
#include "detector/sampled_lattice.h"
#include "dotcode/dotcode_symbol.h"

namespace dc {

struct ReadOptions {
  bool tryHarder = true;           // run the slower passes when the fast one finds nothing
  int maxSymbols = 8;              // stop after this many symbols
  double timeBudgetMs = 250;       // hard bound on detector work per image (this thread's CPU time: work_clock.h)
  bool thorough = false;           // wider per-image allowances of the harder passes (speed 'thorough')
  DetectorTrace* trace = nullptr;  // when set, filled with what every stage saw (inspect)
  // When set, every lattice that was sampled is appended (video fusion, frame_fusion.h).
  std::vector<SampledLattice>* sampled = nullptr;
  // Internal to readDotCodes: the texts its checks refused so far (a window that lost to another
  // of the same lattice, a read that may be its symbol cut short), shared by every copy of the
  // image it reads (upsampled, smoothed, toned, halved), so no copy reports what another refused.
  std::vector<std::string>* refusedTexts = nullptr;
  // Internal to readDotCodes: when set, lowered to the pitch (px of the image read) of every
  // lattice whose positions were inked as DotCode content inks them (its extents were decoded).
  float* finestDotCodePitch = nullptr;
};

struct ReadResult {
  DotCodeSymbol symbol;
  std::string via;    // the pass that read it: "dotcode:fast", "dotcode:adaptive", ...
  PointF corners[4];  // symbol corners in image pixels: TL, TR, BR, BL (canonical)
};

std::vector<ReadResult> readDotCodes(const GreyImage& image, const ReadOptions& options = {});

}  // namespace dc
