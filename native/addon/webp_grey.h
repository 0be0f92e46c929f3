// A WebP -> the engine's grey plane, through the system's libwebp opened at run time (dlopen), as
// jpeg_grey does for JPEGs: the addon links no image library, so it still loads where libwebp is
// missing, and the engine then decodes with libwebp compiled to WebAssembly as before
// (lib/engine/webp-grey.ts). Native libwebp decodes the small lossy WebPs of the zxing samples
// about four times as fast as the WebAssembly build.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dcwebp {

// Whether libwebp could be opened (once per process; false where dlopen is not available or the
// library is missing).
bool available();

// Decodes `bytes` to RGBA with libwebp's simple API (its defaults, as the WebAssembly decoder and
// libvips use them) and folds each pixel to grey (luma_row.h: opaque pixels as the luma, others
// flattened onto white first) into `grey` (`greySize` bytes, one per pixel). Answers nullptr when
// done, else why it refused (then `grey` holds nothing useful): a size other than `greySize`
// pixels, and data libwebp cannot decode (damaged or cut short). Throws nothing but
// std::bad_alloc.
const char* decode(const uint8_t* bytes, size_t size, uint8_t* grey, size_t greySize);

}  // namespace dcwebp
