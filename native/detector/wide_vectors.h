// Pixel loops compiled twice on x86-64 Linux with GCC: for AVX2 (16 lanes of 16 bits instead of
// SSE2's 8) and for the baseline, the loader picking one per machine (an ifunc, resolved once).
// Integer loops, and float loops without contraction or reassociation, give the same values
// either way, so the output does not depend on the machine. Elsewhere (clang, arm64 with NEON,
// WebAssembly, musl without ifuncs) the baseline alone.
#pragma once

#include <cstdlib>  // (defines __GLIBC__ where the C library is glibc)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define DC_WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define DC_WIDE_VECTORS
#endif
