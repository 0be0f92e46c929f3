// Reed-Solomon over GF(113) for one DotCode block (FORMAT.md section 5): generator roots
// 3^1..3^k, first codeword = highest power. Errors-and-erasures decoding with Berlekamp-Massey
// seeded by the erasure locator, Chien search and Forney.
#pragma once
#include <vector>

namespace dc {

// Check words (k of them) for the given data block: -(data(x) * x^k mod g(x)).
std::vector<int> rsCheckWords(const std::vector<int>& data, int k);

// Generator polynomial of degree k, highest power first (g[0] = 1). Exposed for tests.
std::vector<int> rsGenerator(int k);

struct RsOutcome {
  bool ok = false;
  int errors = 0;    // corrected positions that were not flagged as erasures
  int erasures = 0;  // erasure positions handed in (each costs one check word)
  int cost() const { return erasures + 2 * errors; }
};

// Corrects `block` (n codewords, last k are check words) in place. `erasures` lists indices
// (0..n-1) known to be unreliable. Refuses (ok=false, block untouched) when the damage exceeds
// erasures + 2*errors <= k, when the locator does not factor over the block, or when the
// corrected block does not have all-zero syndromes.
RsOutcome rsDecode(std::vector<int>& block, int k, const std::vector<int>& erasures);

// True when every syndrome c(3^i), i = 1..k, is zero.
bool rsSyndromesZero(const std::vector<int>& block, int k);

}  // namespace dc
