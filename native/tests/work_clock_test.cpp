// The detector's time budget runs on the reading thread's CPU time (detector/work_clock.h), so a
// read is not cut short because other processes or workers held the cores.
#include <chrono>
#include <cmath>
#include <thread>

#include "check.h"
#include "detector/work_clock.h"

namespace {

double msBetween(dc::det::WorkClock::time_point a, dc::det::WorkClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

TEST("work clock: time the thread spends waiting does not count against the budget") {
  const auto t0 = dc::det::WorkClock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  const double waited = msBetween(t0, dc::det::WorkClock::now());
  CHECK(waited < 20.0);  // steady_clock: >= 80
}

TEST("work clock: the thread's own work does count") {
  const auto t0 = dc::det::WorkClock::now();
  const auto wall0 = std::chrono::steady_clock::now();
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() - wall0 < std::chrono::milliseconds(40)) sink = sink + std::sqrt(2.0);
  const double worked = msBetween(t0, dc::det::WorkClock::now());
  // At most 40 ms; at least a little even when the machine gives this thread a small share.
  CHECK(worked > 2.0);
  CHECK(worked < 45.0);
}
