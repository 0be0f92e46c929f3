// Codeword table, GF(113) and Reed-Solomon (errors and erasures) of the DotCode core.
#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "check.h"
#include "dotcode/codeword_table.h"
#include "dotcode/gf113.h"
#include "dotcode/reed_solomon.h"
#include "dotcode_test_util.h"

using namespace dctest;

TEST("dotcode table: generated table equals the one printed in FORMAT.md") {
  std::ifstream in(check::sharedFile("dotcode/FORMAT.md"));
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::regex entry(R"((\d{1,3}) ([01]{9}))");
  int seen = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it) {
    const int value = std::stoi((*it)[1]);
    const int pattern = std::stoi((*it)[2], nullptr, 2);
    if (value > 112) continue;
    CHECK_EQ(dc::codewordPattern(value), pattern);
    CHECK_EQ(dc::codewordValue(pattern), value);
    ++seen;
  }
  CHECK(seen >= 113);
}

TEST("dotcode table: 113 valid patterns, all 5-of-9, everything else erased") {
  int valid = 0;
  for (int p = 0; p < 512; ++p) {
    const int v = dc::codewordValue(p);
    if (v < 0) continue;
    ++valid;
    CHECK_EQ(__builtin_popcount(p), 5);
    CHECK_EQ(dc::codewordPattern(v), p);
  }
  CHECK_EQ(valid, 113);
  CHECK_EQ(dc::codewordValue(0x1FF), -1);  // padding slot 111111111
  CHECK_EQ(dc::codewordPattern(113), -1);
  CHECK_EQ(dc::codewordPattern(-1), -1);
}

TEST("dotcode gf113: field axioms and primitive element") {
  namespace gf = dc::gf113;
  std::set<int> powers;
  for (int i = 0; i < 112; ++i) powers.insert(gf::pow3(i));
  CHECK_EQ(powers.size(), static_cast<size_t>(112));
  CHECK_EQ(gf::pow3(112), 1);
  CHECK_EQ(gf::pow3(-1), gf::inv(3));
  for (int a = 1; a < 113; ++a) CHECK_EQ(gf::mul(a, gf::inv(a)), 1);
  CHECK_EQ(gf::sub(0, 1), 112);
  CHECK_EQ(gf::neg(5), 108);
}

TEST("dotcode rs: generator self-check values from FORMAT.md") {
  CHECK(dc::rsGenerator(3) == (std::vector<int>{1, 74, 12, 62}));
  CHECK(dc::rsGenerator(5) == (std::vector<int>{1, 89, 13, 101, 52, 59}));
  CHECK(dc::rsGenerator(6) == (std::vector<int>{1, 38, 107, 3, 99, 6, 42}));
}

TEST("dotcode rs: worked example block from FORMAT.md (vector \"binary 4 bytes\")") {
  // NW=13, ND=7 (mask word + 6 data), NC=6: the check words are the last six.
  const std::vector<int> data{0, 112, 19, 86, 13, 93, 45};
  CHECK(dc::rsCheckWords(data, 6) == (std::vector<int>{67, 2, 110, 46, 60, 1}));
}

namespace {
std::vector<int> randomCodeword(Rng& rng, int n, int k) {
  std::vector<int> data(n - k);
  for (int& d : data) d = rng.below(113);
  std::vector<int> block = data;
  const std::vector<int> check = dc::rsCheckWords(data, k);
  block.insert(block.end(), check.begin(), check.end());
  return block;
}
}  // namespace

TEST("dotcode rs: random errors and erasures within budget are corrected exactly") {
  Rng rng(0xD07C0DE);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 5 + rng.below(108);  // 5..112
    const int k = 2 + rng.below(std::min(n - 2, 60));
    const std::vector<int> clean = randomCodeword(rng, n, k);
    REQUIRE(dc::rsSyndromesZero(clean, k));
    std::vector<int> positions(n);
    for (int i = 0; i < n; ++i) positions[i] = i;
    for (int i = n - 1; i > 0; --i) std::swap(positions[i], positions[rng.below(i + 1)]);
    const int erasures = rng.below(k + 1);
    const int errors = (k - erasures) / 2 == 0 ? 0 : rng.below((k - erasures) / 2 + 1);
    std::vector<int> block = clean, erased;
    for (int i = 0; i < erasures; ++i) {
      erased.push_back(positions[i]);
      block[positions[i]] = rng.below(113);  // may or may not equal the true value
    }
    for (int i = erasures; i < erasures + errors; ++i) block[positions[i]] = (clean[positions[i]] + 1 + rng.below(112)) % 113;
    const dc::RsOutcome r = dc::rsDecode(block, k, erased);
    if (!r.ok || block != clean) {
      std::ostringstream os;
      os << "n=" << n << " k=" << k << " erasures=" << erasures << " errors=" << errors;
      check::fail(__FILE__, __LINE__, "not corrected: " + os.str());
      continue;
    }
    CHECK_EQ(r.erasures, erasures);
    CHECK_EQ(r.errors, errors);
    CHECK(r.cost() <= k);
  }
}

TEST("dotcode rs: beyond budget never returns an unverified or over-budget block") {
  Rng rng(42);
  int refused = 0, trials = 3000;
  for (int trial = 0; trial < trials; ++trial) {
    const int n = 10 + rng.below(100);
    const int k = 3 + rng.below(std::min(n - 4, 40));
    const std::vector<int> clean = randomCodeword(rng, n, k);
    std::vector<int> block = clean;
    const int errors = k / 2 + 1 + rng.below(4);  // 2*errors > k: beyond budget
    std::vector<int> positions(n);
    for (int i = 0; i < n; ++i) positions[i] = i;
    for (int i = n - 1; i > 0; --i) std::swap(positions[i], positions[rng.below(i + 1)]);
    for (int i = 0; i < std::min(errors, n); ++i) block[positions[i]] = (clean[positions[i]] + 1 + rng.below(112)) % 113;
    const std::vector<int> before = block;
    const dc::RsOutcome r = dc::rsDecode(block, k, {});
    if (!r.ok) {
      ++refused;
      CHECK(block == before);  // untouched on refusal
      continue;
    }
    // A decode beyond the budget can only land on another valid codeword within budget of it.
    CHECK(dc::rsSyndromesZero(block, k));
    CHECK(r.cost() <= k);
    CHECK(block != clean);
  }
  CHECK(refused > trials * 9 / 10);
}

TEST("dotcode rs: too many erasures or bad input is refused") {
  Rng rng(7);
  std::vector<int> block = randomCodeword(rng, 20, 6);
  std::vector<int> erased{0, 1, 2, 3, 4, 5, 6};
  CHECK(!dc::rsDecode(block, 6, erased).ok);
  std::vector<int> bad = block;
  bad[3] = 200;
  CHECK(!dc::rsDecode(bad, 6, {}).ok);
  CHECK(!dc::rsDecode(block, 6, {25}).ok);
  std::vector<int> tooLong(113, 0);
  CHECK(!dc::rsDecode(tooLong, 6, {}).ok);
  // Exactly k erasures is still decodable (no error capacity left).
  std::vector<int> exact = block;
  for (int i = 0; i < 6; ++i) exact[i] = 0;
  const dc::RsOutcome r = dc::rsDecode(exact, 6, {0, 1, 2, 3, 4, 5});
  CHECK(r.ok);
  CHECK(exact == block);
}
