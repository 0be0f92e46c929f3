// libFuzzer target: the whole detector on arbitrary and adversarial greyscale images. The first
// bytes choose the size, stride and a generator; the rest drive it:
//   mode 0: the bytes are the pixels (random images, all shapes of noise)
//   mode 1: a lattice of dots whose pitch, size, contrast and gaps come from the bytes (dense
//           "all dots" images, near-DotCode lattices, dotted textures)
//   mode 2: stripes and checkerboards of byte-chosen periods
// Nothing may crash, read out of bounds or run past the bounded work per image.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "detector/detector_internal.h"
#include "detector/grid_candidates.h"
#include "detector/dotcode_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  const int width = 1 + data[0] % 200 + (data[1] & 1) * 200;
  const int height = 1 + data[2] % 200;
  const int pad = data[1] >> 5;  // stride > width
  const int mode = data[3] % 3;
  const int stride = width + pad;
  const uint8_t* rest = data + 4;
  const size_t n = size - 4;
  std::vector<uint8_t> img(static_cast<size_t>(stride) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < stride; ++x) {
      const size_t i = static_cast<size_t>(y) * stride + x;
      uint8_t v = 0;
      if (mode == 0) {
        v = rest[i % n];
      } else if (mode == 1) {
        const int pitch = 2 + rest[0] % 14, dot = 1 + rest[1 % n] % pitch;
        const int gx = x / pitch, gy = y / pitch;
        const bool lattice = ((gx + gy) & 1) == 0;
        const bool on = lattice && (rest[(gx * 7 + gy * 13) % n] & 1) && x % pitch < dot && y % pitch < dot;
        v = on ? rest[2 % n] / 4 : 128 + rest[3 % n] / 2;
      } else {
        const int px = 1 + rest[0] % 9, py = 1 + rest[1 % n] % 9;
        v = (((x / px) + (rest[2 % n] & 1 ? y / py : 0)) & 1) ? 250 : 5;
      }
      img[i] = v;
    }
  dc::GreyImage gi{img.data(), width, height, stride};
  dc::ReadOptions opt;
  opt.timeBudgetMs = 50;
  opt.maxSymbols = 1 + rest[n - 1] % 4;
  for (const dc::ReadResult& r : dc::readDotCodes(gi, opt)) {
    if (r.symbol.rows <= 0 || r.symbol.cols <= 0) __builtin_trap();
  }
  (void)dc::det::findGridCandidates(gi, opt);
  return 0;
}
