// See jpeg_grey.h. libjpeg reports errors through a callback that must not return: it jumps back
// to decode() with longjmp, past libjpeg's own C frames only (no C++ object lives between the
// setjmp and the library calls).
#include "addon/jpeg_grey.h"

#include <csetjmp>
#include <cstdio>

#include "addon/luma_row.h"

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
    if (!mono) dcluma::rgbxRow(rgbxRow, row, width);
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
