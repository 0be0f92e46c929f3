// A borrowed view of an 8-bit greyscale image: the one input type of the native engine.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dc {

struct GreyImage {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int stride = 0;  // bytes from one row to the next (>= width)

  uint8_t at(int x, int y) const { return data[static_cast<size_t>(y) * stride + x]; }
  bool valid() const { return data && width > 0 && height > 0 && stride >= width; }

  // A view of w x h pixels packed row after row (stride = width), as the detector's resampled
  // and filtered copies are laid out.
  static GreyImage packed(const uint8_t* pixels, int w, int h) { return GreyImage{pixels, w, h, w}; }
};

struct PointF {
  float x = 0;
  float y = 0;
};

}  // namespace dc
