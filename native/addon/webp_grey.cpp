// See webp_grey.h. The two entry points are declared here by their C signatures, which libwebp
// has kept since its first releases (so no libwebp headers are needed to build the addon).
#include "addon/webp_grey.h"

#include <vector>

#include "addon/luma_row.h"

#if defined(__has_include)
#if __has_include(<dlfcn.h>)
#define DCWEBP_WITH_DLOPEN 1
#include <dlfcn.h>
#endif
#endif

namespace dcwebp {

#ifdef DCWEBP_WITH_DLOPEN
namespace {

struct Library {
  int (*getInfo)(const uint8_t* data, size_t size, int* width, int* height) = nullptr;
  uint8_t* (*decodeRgbaInto)(const uint8_t* data, size_t size, uint8_t* out, size_t outSize, int stride) = nullptr;
  bool ok = false;
};

// The RGBA buffer is kept between calls up to this size (a 512 x 512 image).
constexpr size_t kKeepBytes = 1 << 20;

const Library& library() {
  static const Library lib = [] {
    Library l;
    void* h = dlopen("libwebp.so.7", RTLD_NOW | RTLD_LOCAL);
    if (!h) return l;
    l.getInfo = reinterpret_cast<decltype(l.getInfo)>(dlsym(h, "WebPGetInfo"));
    l.decodeRgbaInto = reinterpret_cast<decltype(l.decodeRgbaInto)>(dlsym(h, "WebPDecodeRGBAInto"));
    l.ok = l.getInfo && l.decodeRgbaInto;
    return l;
  }();
  return lib;
}

}  // namespace

bool available() { return library().ok; }

const char* decode(const uint8_t* bytes, size_t size, uint8_t* grey, size_t greySize) {
  const Library& lib = library();
  if (!lib.ok) return "libwebp not available";
  int width = 0, height = 0;
  if (!lib.getInfo(bytes, size, &width, &height) || width <= 0 || height <= 0) return "not a WebP libwebp reads";
  if (static_cast<size_t>(width) * static_cast<size_t>(height) != greySize) return "size";
  // (one buffer per thread, kept: the in-thread decodes are of small images, one after another)
  thread_local std::vector<uint8_t> rgba;
  const size_t stride = static_cast<size_t>(width) * 4;
  rgba.resize(stride * height);
  if (!lib.decodeRgbaInto(bytes, size, rgba.data(), rgba.size(), static_cast<int>(stride))) {
    if (rgba.size() > kKeepBytes) std::vector<uint8_t>().swap(rgba);
    return "damaged data";
  }
  for (int y = 0; y < height; ++y) dcluma::rgbaRow(rgba.data() + stride * y, grey + static_cast<size_t>(width) * y, width);
  if (rgba.size() > kKeepBytes) std::vector<uint8_t>().swap(rgba);
  return nullptr;
}

#else

bool available() { return false; }

const char* decode(const uint8_t*, size_t, uint8_t*, size_t) { return "built without dlopen"; }

#endif

}  // namespace dcwebp
