// Rows of decoded colour pixels -> the engine's grey levels, exactly as lib/engine/luma.ts defines
// them (the levels sharp's pipeline gives): floor((299 R + 587 G + 114 B) / 1000), pixels with
// alpha flattened onto white first. Shared by the decoders the addon runs (jpeg_grey, webp_grey).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dcluma {

// `width` RGBX pixels (the fourth byte ignored) -> `width` grey levels.
void rgbxRow(const uint8_t* rgbx, uint8_t* grey, size_t width);

// `width` RGBA pixels (not premultiplied) -> grey levels: an opaque pixel as rgbxRow, any other
// with each channel flattened onto white, trunc((c a + 255 (255 - a)) / 255), as libvips' flatten.
void rgbaRow(const uint8_t* rgba, uint8_t* grey, size_t width);

}  // namespace dcluma
