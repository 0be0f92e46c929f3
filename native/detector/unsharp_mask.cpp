// A whole image sharpened by an unsharp mask, for the re-read of an image nothing else read.
//
// Why: the passes find dots against their neighbourhood's light, and what defeats them on pack
// and vial photos is light that changes over a few modules: a glare slope or an aimer band
// lifting one end of a symbol, a cylinder's shading and specular stripe, a blur that spreads each
// dot into the gaps beside it. Subtracting a Gaussian's blur of about two modules (the slow
// light) and adding the difference back lifts each dot against its own surroundings wherever it
// stands; in the image as given the same dots lie at levels no single threshold or peak height
// separates (read_dotcodes.cpp, readWithCopies; docs/detector.md, "A sharpened copy").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "detector/detector_internal.h"

namespace dc {
namespace det {

void unsharpMask(const GreyImage& in, float sigma, float amount, std::vector<uint8_t>& buf, GreyImage& out) {
  const int W = in.width, H = in.height;
  const std::vector<float> f = greyToFloat(in);
  std::vector<uint8_t> blurBuf;
  GreyImage blurred;
  blurToGrey(f, W, H, sigma * sigma, blurBuf, blurred);
  // (f and the blur are both packed rows of W)
  buf.resize(f.size());
  for (size_t i = 0; i < f.size(); ++i)
    buf[i] = static_cast<uint8_t>(std::clamp(std::lround(f[i] + amount * (f[i] - blurred.data[i])), 0L, 255L));
  out = GreyImage::packed(buf.data(), W, H);
}

}  // namespace det
}  // namespace dc
