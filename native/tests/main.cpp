#include <chrono>
#include <cstring>
#include <iostream>

#include "check.h"

int main(int argc, char** argv) {
  const char* filter = argc > 1 ? argv[1] : nullptr;
  int run = 0;
  for (auto& c : check::registry()) {
    if (filter && !std::strstr(c.name, filter)) continue;
    ++run;
    int before = check::failures();
    const auto started = std::chrono::steady_clock::now();
    try {
      c.body();
    } catch (const check::Abort&) {
    } catch (const check::Skip& s) {
      ++check::skips();
      std::cout << "  skipped: " << c.name << " (" << s.why << ")\n";
    } catch (const std::exception& e) {
      check::fail(c.name, 0, std::string("exception: ") + e.what());
    }
    if (check::failures() != before) std::cerr << "  in case: " << c.name << "\n";
    // Slow cases are named so that CI time (the sanitizer build runs every case) stays visible.
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (seconds >= 2.0) std::cout << "  slow case (" << seconds << " s): " << c.name << "\n";
  }
  std::cout << run << " native test cases, " << check::failures() << " failures";
  if (check::skips()) std::cout << ", " << check::skips() << " skipped for want of ../shared";
  std::cout << "\n";
  return check::failures() == 0 ? 0 : 1;
}
