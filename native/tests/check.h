// A minimal test harness for the native core: TEST(name) registers a case, CHECK records a
// failure and carries on, REQUIRE stops the case. native_tests runs every case (or those whose
// name contains argv[1]) and exits non-zero when any failed.
#pragma once
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace check {

struct Case {
  const char* name;
  std::function<void()> body;
};

inline std::vector<Case>& registry() {
  static std::vector<Case> cases;
  return cases;
}
inline int& failures() {
  static int n = 0;
  return n;
}
struct Register {
  Register(const char* name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};
struct Abort {};
// Thrown by a case that needs a file this checkout does not have (../shared beside it): the case
// is reported as skipped with the reason, not passed and not failed.
struct Skip {
  std::string why;
};
inline int& skips() {
  static int n = 0;
  return n;
}

#ifndef DOTCODE_SHARED_DIR
#define DOTCODE_SHARED_DIR "../shared"
#endif
// The path of a file of ../shared (DotCode vectors, FORMAT.md); a case that reads one is skipped
// with a notice where the checkout has no ../shared beside it.
inline std::string sharedFile(const std::string& relative) {
  const std::string path = std::string(DOTCODE_SHARED_DIR) + "/" + relative;
  if (!std::ifstream(path).good()) throw Skip{path + " is absent"};
  return path;
}

// The sanitizer build (tools/fuzz-native.sh, CMake's DOTCODE_SANITIZE) is there to catch memory
// errors and undefined behaviour, not to measure read rates, and reads each scene ten to fifty
// times slower: the cases that read many scenes to show a rate read their first round of scenes
// there (sceneRounds), the short wide pack cases and the zero-ended symbols' cases three of their
// six symbol sizes (detector_stages_test.cpp, kShortWideSizes, kZeroEndedSizes), and leave their
// absolute rate checks (CHECK_RATE) to the normal build, which npm test runs in full. Checks of the form "read >= tried - k" and
// every misread check still hold on those scenes, which are the first of the full set.
#ifdef DOTCODE_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
inline int sceneRounds(int rounds) { return kSanitized ? 1 : rounds; }

inline void fail(const char* file, int line, const std::string& what) {
  ++failures();
  std::cerr << file << ":" << line << ": FAILED " << what << "\n";
}

}  // namespace check

#define CHECK_CAT2(a, b) a##b
#define CHECK_CAT(a, b) CHECK_CAT2(a, b)
#define TEST(name)                                                                            \
  static void CHECK_CAT(test_fn_, __LINE__)();                                                \
  static check::Register CHECK_CAT(test_reg_, __LINE__)(name, CHECK_CAT(test_fn_, __LINE__)); \
  static void CHECK_CAT(test_fn_, __LINE__)()

#define CHECK(cond)                                      \
  do {                                                   \
    if (!(cond)) check::fail(__FILE__, __LINE__, #cond); \
  } while (0)
#define REQUIRE(cond)                         \
  do {                                        \
    if (!(cond)) {                            \
      check::fail(__FILE__, __LINE__, #cond); \
      throw check::Abort{};                   \
    }                                         \
  } while (0)
#define CHECK_RATE(cond)                 \
  do {                                   \
    if (!check::kSanitized) CHECK(cond); \
  } while (0)
#define CHECK_EQ(a, b)                                                  \
  do {                                                                  \
    auto va_ = (a);                                                     \
    auto vb_ = (b);                                                     \
    if (!(va_ == vb_)) {                                                \
      std::ostringstream os_;                                           \
      os_ << #a << " == " << #b << " (" << va_ << " vs " << vb_ << ")"; \
      check::fail(__FILE__, __LINE__, os_.str());                       \
    }                                                                   \
  } while (0)
