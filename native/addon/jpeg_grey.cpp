// See jpeg_grey.h. libjpeg reports errors through a callback that must not return: it jumps back
// to decode() with longjmp, past libjpeg's own C frames only (no C++ object lives between the
// setjmp and the library calls).
#include "addon/jpeg_grey.h"

#include <csetjmp>
#include <cstdio>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__has_include)
// jconfig.h too: a cross compiler may see the build machine's jpeglib.h without its own jconfig.h
#if __has_include(<jpeglib.h>) && __has_include(<jconfig.h>) && __has_include(<dlfcn.h>)
#define DCJPEG_WITH_LIBJPEG 1
#endif
#endif

#ifdef DCJPEG_WITH_LIBJPEG
#include <dlfcn.h>
#include <jpeglib.h>
#ifndef JCS_EXTENSIONS  // not libjpeg-turbo: its RGBX output is what the luma loop reads
#undef DCJPEG_WITH_LIBJPEG
#endif
#endif

namespace dcjpeg {

#ifdef DCJPEG_WITH_LIBJPEG
namespace {

// The few libjpeg entry points used, resolved from libjpeg.so.62 (libjpeg-turbo's ABI, the one
// jpeglib.h of Debian/Ubuntu describes; jpeg_CreateDecompress checks the struct size it gets).
struct Library {
  decltype(&jpeg_std_error) stdError = nullptr;
  decltype(&jpeg_CreateDecompress) create = nullptr;
  decltype(&jpeg_mem_src) memSrc = nullptr;
  decltype(&jpeg_read_header) readHeader = nullptr;
  decltype(&jpeg_start_decompress) start = nullptr;
  decltype(&jpeg_read_scanlines) readScanlines = nullptr;
  decltype(&jpeg_finish_decompress) finish = nullptr;
  decltype(&jpeg_destroy_decompress) destroy = nullptr;
  bool ok = false;
};

template <class F>
bool resolve(void* handle, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  return out != nullptr;
}

const Library& library() {
  static const Library lib = [] {
    Library l;
    void* h = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    if (!h) return l;
    l.ok = resolve(h, "jpeg_std_error", l.stdError) && resolve(h, "jpeg_CreateDecompress", l.create) &&
        resolve(h, "jpeg_mem_src", l.memSrc) && resolve(h, "jpeg_read_header", l.readHeader) &&
        resolve(h, "jpeg_start_decompress", l.start) && resolve(h, "jpeg_read_scanlines", l.readScanlines) &&
        resolve(h, "jpeg_finish_decompress", l.finish) && resolve(h, "jpeg_destroy_decompress", l.destroy);
    return l;
  }();
  return lib;
}

struct ErrorTrap {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  int warnings;
};

[[noreturn]] void onError(j_common_ptr c) { std::longjmp(reinterpret_cast<ErrorTrap*>(c->err)->jump, 1); }

// level -1: a warning about the data (corrupt or truncated); higher levels are trace messages.
void onMessage(j_common_ptr c, int level) {
  if (level < 0) reinterpret_cast<ErrorTrap*>(c->err)->warnings++;
}

// One row of RGBX pixels -> luma, floor((299 R + 587 G + 114 B) / 1000) as lib/engine/luma.ts
// defines it, in single floats: the weighted sum is an integer under 2^18, exact in a float, and
// truncating it times 0.001f (just above 1/1000) gives the floor of its thousandth for every sum up
// to 255000 (test/engine/jpeg-grey.test.ts checks each). With SSE2 (every x64) eight pixels a
// step: the 16-bit multiply-add sums R and G, and B, per pixel; about 0.35 ms for 1280x720 against
// 1.1 ms for the integer loop the compiler vectorised, 2 ms for three bytes a pixel.
void lumaRow(const uint8_t* rgbx, uint8_t* grey, size_t width) {
  size_t x = 0;
#if defined(__SSE2__)
  const __m128i weights = _mm_setr_epi16(299, 587, 114, 0, 299, 587, 114, 0);
  const __m128i zero = _mm_setzero_si128();
  const __m128 thousandth = _mm_set1_ps(0.001f);
  // four pixels -> their four sums: madd gives [R0+G0, B0, R1+G1, B1] for each pair of pixels
  auto sums = [&](const uint8_t* p) {
    const __m128i px = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128 lo = _mm_cvtepi32_ps(_mm_madd_epi16(_mm_unpacklo_epi8(px, zero), weights));
    const __m128 hi = _mm_cvtepi32_ps(_mm_madd_epi16(_mm_unpackhi_epi8(px, zero), weights));
    return _mm_add_ps(_mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
  };
  for (; x + 8 <= width; x += 8) {
    const __m128i a = _mm_cvttps_epi32(_mm_mul_ps(sums(rgbx + 4 * x), thousandth));
    const __m128i b = _mm_cvttps_epi32(_mm_mul_ps(sums(rgbx + 4 * x + 16), thousandth));
    const __m128i words = _mm_packs_epi32(a, b);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(grey + x), _mm_packus_epi16(words, words));
  }
#endif
  for (; x < width; ++x) {
    const float sum = 299.f * rgbx[4 * x] + 587.f * rgbx[4 * x + 1] + 114.f * rgbx[4 * x + 2];
    grey[x] = static_cast<uint8_t>(static_cast<int>(sum * 0.001f));
  }
}

// The decode proper. Kept free of C++ objects with destructors between setjmp and the library
// calls, which longjmp would skip.
const char* decodeInto(const Library& lib, const uint8_t* bytes, size_t size, uint8_t* grey, size_t greySize) {
  jpeg_decompress_struct info{};
  ErrorTrap trap{};
  info.err = lib.stdError(&trap.mgr);
  trap.mgr.error_exit = onError;
  trap.mgr.emit_message = onMessage;
  uint8_t* volatile rgbxRow = nullptr;  // volatile: read again after a longjmp
  if (setjmp(trap.jump)) {
    lib.destroy(&info);
    delete[] rgbxRow;
    return "libjpeg error";
  }
  lib.create(&info, JPEG_LIB_VERSION, sizeof(info));
  lib.memSrc(&info, bytes, static_cast<unsigned long>(size));
  lib.readHeader(&info, TRUE);
  const bool ycc = info.jpeg_color_space == JCS_YCbCr && info.num_components == 3 && !info.saw_Adobe_marker;
  const bool mono = info.jpeg_color_space == JCS_GRAYSCALE && info.num_components == 1;
  if ((!ycc && !mono) || static_cast<size_t>(info.image_width) * info.image_height != greySize) {
    lib.destroy(&info);
    return ycc || mono ? "size" : "colour space";
  }
  info.out_color_space = mono ? JCS_GRAYSCALE : JCS_EXT_RGBX;
  lib.start(&info);
  const size_t width = info.output_width;
  if (!mono) rgbxRow = new uint8_t[width * 4];
  while (info.output_scanline < info.output_height) {
    uint8_t* row = grey + info.output_scanline * width;
    JSAMPROW target = mono ? row : rgbxRow;
    if (lib.readScanlines(&info, &target, 1) != 1) break;
    if (!mono) lumaRow(rgbxRow, row, width);
  }
  const bool whole = info.output_scanline == info.output_height;
  if (whole) lib.finish(&info);
  lib.destroy(&info);
  delete[] rgbxRow;
  return whole && trap.warnings == 0 ? nullptr : "damaged data";
}

}  // namespace

bool available() { return library().ok; }

const char* decode(const uint8_t* bytes, size_t size, uint8_t* grey, size_t greySize) {
  const Library& lib = library();
  if (!lib.ok) return "libjpeg not available";
  return decodeInto(lib, bytes, size, grey, greySize);
}

#else

bool available() { return false; }

const char* decode(const uint8_t*, size_t, uint8_t*, size_t) { return "built without libjpeg-turbo"; }

#endif

}  // namespace dcjpeg
