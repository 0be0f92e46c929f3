// Reading a DotCode from several camera frames together (video): a symbol that no single frame
// shows whole (a glare streak sliding over it, motion blur that comes and goes, focus hunting) is
// tracked from frame to frame by its lattice, and its presence values are fused, weighted by how
// sure each frame was of each position. The fused grid goes to decodeDotGrid unchanged: the
// decoder's safety rules (two spare check words per block) hold for fused grids as for any other.
// docs/engine.md ("Video: FrameReader") explains tracking, fusion and when a symbol is new.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "detector/dotcode_reader.h"

namespace dc {

struct FrameRead {
  ReadResult read;     // via "dotcode:fused" when only the fused frames read it
  int framesUsed = 1;  // 1: this frame alone read it; else the frames whose values were fused
  int track = -1;      // the symbol's track (stable while it stays in view)
};

struct FramePush {
  std::vector<FrameRead> reads;  // this frame's own reads first, then fused reads
  // Payloads of symbols read before whose lattice this frame saw without reading it: the symbol
  // is still in view (the engine's `new` flag).
  std::vector<std::string> seen;
  double detectMs = 0;  // readDotCodes on this frame
  double fuseMs = 0;    // tracking, fusion and decoding the fused grids
};

class FrameFusion {
 public:
  // maxFrames: how many frames a track remembers (memory and the fused window are bounded by it).
  explicit FrameFusion(int maxFrames = 12);
  ~FrameFusion();
  FrameFusion(const FrameFusion&) = delete;
  FrameFusion& operator=(const FrameFusion&) = delete;

  // Reads one frame (options as for readDotCodes; `sampled` is the fusion's own).
  FramePush push(const GreyImage& image, const ReadOptions& options);
  // Forgets every track (a new scene).
  void reset();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace dc
