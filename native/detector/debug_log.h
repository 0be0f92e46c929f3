// The detector's debug output, compiled out of every normal build. -DDC_DEBUG prints what the
// stages decide (basis rounds, extended lines, weak positions: DBG); -DDC_PROF prints where a
// frame's time goes (per pass and per locate step: PPROF). Both write to stderr.
#pragma once
#if defined(DC_DEBUG) || defined(DC_PROF)
#include <cstdio>
#endif

#ifdef DC_DEBUG
#define DBG(...) fprintf(stderr, __VA_ARGS__)
#else
#define DBG(...)
#endif

#ifdef DC_PROF
#include <chrono>
#define PPROF(...) fprintf(stderr, __VA_ARGS__)
// Milliseconds since a std::chrono::steady_clock::time_point.
#define PPROF_MS_SINCE(t0) (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - (t0)).count())
#else
#define PPROF(...)
#endif
