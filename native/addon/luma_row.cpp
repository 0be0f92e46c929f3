// See luma_row.h.
#include "addon/luma_row.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dcluma {

// One row of RGBX pixels -> luma, floor((299 R + 587 G + 114 B) / 1000) as lib/engine/luma.ts
// defines it, in single floats: the weighted sum is an integer under 2^18, exact in a float, and
// truncating it times 0.001f (just above 1/1000) gives the floor of its thousandth for every sum up
// to 255000 (test/engine/jpeg-grey.test.ts checks each). With SSE2 (every x64) eight pixels a
// step: the 16-bit multiply-add sums R and G, and B, per pixel; about 0.35 ms for 1280x720 against
// 1.1 ms for the integer loop the compiler vectorised, 2 ms for three bytes a pixel.
void rgbxRow(const uint8_t* rgbx, uint8_t* grey, size_t width) {
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

void rgbaRow(const uint8_t* rgba, uint8_t* grey, size_t width) {
  // runs of opaque pixels (nearly every image) through the vector loop
  size_t x = 0;
  while (x < width) {
    size_t end = x;
    while (end < width && rgba[4 * end + 3] == 255) ++end;
    if (end > x) rgbxRow(rgba + 4 * x, grey + x, end - x);
    for (x = end; x < width && rgba[4 * x + 3] != 255; ++x) {
      const uint8_t* p = rgba + 4 * x;
      const unsigned a = p[3];
      auto flat = [a](unsigned c) { return (c * a + 255u * (255u - a)) / 255u; };
      grey[x] = static_cast<uint8_t>((299u * flat(p[0]) + 587u * flat(p[1]) + 114u * flat(p[2])) / 1000u);
    }
  }
}

}  // namespace dcluma
