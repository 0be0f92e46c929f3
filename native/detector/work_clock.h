// The clock of the detector's time budget (ReadOptions::timeBudgetMs): the CPU time of the
// calling thread where the platform has one, wall time elsewhere.
//
// Why CPU time: the budget bounds the work spent on one image, so that a hard image cannot hold
// a worker for seconds. On wall time, the same image read on a busy machine (other processes,
// the engine's other workers on the same cores) was cut short and not read, while it read on
// an idle one: on this 2-core machine at load 6, 3-5% of heavily blurred renders were lost to
// the budget alone (docs/detector.md, "An independent renderer"). A result should depend on the
// image, not on what else the machine is doing.
#pragma once
#include <chrono>
#include <ctime>

namespace dc {
namespace det {

struct WorkClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<WorkClock>;
  static constexpr bool is_steady = true;

  static time_point now() noexcept {
#if defined(CLOCK_THREAD_CPUTIME_ID) && !defined(__EMSCRIPTEN__)
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
      return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
#endif
    // WebAssembly (one thread per worker, no per-thread CPU clock) and platforms without one.
    return time_point(std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
  }
};

}  // namespace det
}  // namespace dc
