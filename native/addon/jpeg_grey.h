// A baseline or progressive YCbCr/greyscale JPEG -> the engine's grey plane, through the system's
// libjpeg-turbo opened at run time (dlopen): the addon links no image library, so the prebuilt
// binaries still load where libjpeg is missing, and the engine then decodes with sharp as before.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dcjpeg {

// Whether libjpeg could be opened (once per process; false where the addon was built without
// libjpeg-turbo's jpeglib.h or the library is missing).
bool available();

// Decodes `bytes` to RGB with libjpeg's defaults (ISLOW DCT, fancy upsampling: what libvips'
// jpegload asks for) and folds each pixel to floor((299 R + 587 G + 114 B) / 1000), the luma of
// lib/engine/luma.ts, into `grey` (`greySize` bytes, one per pixel): byte for byte the plane sharp +
// lumaPlane make. Answers nullptr when done, else why it refused (then `grey` holds nothing
// useful and the engine decodes with sharp): other colour spaces (CMYK, YCCK, Adobe), a size
// other than `greySize` pixels, and any data libjpeg warns about (a damaged file, where libvips'
// own recovery may differ). Throws nothing but std::bad_alloc.
const char* decode(const uint8_t* bytes, size_t size, uint8_t* grey, size_t greySize);

}  // namespace dcjpeg
