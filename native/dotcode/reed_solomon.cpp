#include "dotcode/reed_solomon.h"

#include <algorithm>

#include "dotcode/gf113.h"

namespace dc {
namespace gf = gf113;

namespace {

constexpr int kMaxPoly = gf::kP + 2;  // degrees never exceed k <= 112

// Polynomial with coefficients lowest degree first, fixed capacity; `size` bounds the work (all
// coefficients at index >= size are zero).
struct Poly {
  int c[kMaxPoly];
  int size;
  explicit Poly(int n) : size(n) { std::fill(c, c + kMaxPoly, 0); }
  int deg() const {
    for (int i = size - 1; i >= 0; --i)
      if (c[i]) return i;
    return -1;
  }
  int eval(int x, int d) const {
    int r = 0;
    for (int i = d; i >= 0; --i) r = (r * x + c[i]) % gf::kP;
    return r;
  }
};

// S[i] = c(3^i), i = 1..k, by Horner (first codeword = highest power). All k evaluations run
// side by side so that the multiply-mod chains are independent (this is the hot loop).
// Returns true when all are zero.
bool syndromes(const std::vector<int>& block, int k, int* S) {
  int x[gf::kP];
  for (int i = 1; i <= k; ++i) {
    x[i] = gf::pow3(i);
    S[i] = 0;
  }
  for (int v : block)
    for (int i = 1; i <= k; ++i) S[i] = (S[i] * x[i] + v) % gf::kP;
  for (int i = 1; i <= k; ++i)
    if (S[i]) return false;
  return true;
}

}  // namespace

std::vector<int> rsGenerator(int k) {
  std::vector<int> g{1};  // highest power first
  for (int i = 1; i <= k; ++i) {
    const int root = gf::pow3(i);
    std::vector<int> next(g.size() + 1, 0);
    for (size_t j = 0; j < g.size(); ++j) {
      next[j] = gf::add(next[j], g[j]);                         // * x
      next[j + 1] = gf::sub(next[j + 1], gf::mul(g[j], root));  // * (-root)
    }
    g.swap(next);
  }
  return g;
}

std::vector<int> rsCheckWords(const std::vector<int>& data, int k) {
  const std::vector<int> g = rsGenerator(k);
  std::vector<int> rem(k, 0);  // running remainder of data(x)*x^k mod g, highest power first
  for (int d : data) {
    const int factor = gf::add(d % gf::kP, rem.empty() ? 0 : rem[0]);
    for (int j = 0; j + 1 < k; ++j) rem[j] = gf::sub(rem[j + 1], gf::mul(factor, g[j + 1]));
    if (k > 0) rem[k - 1] = gf::sub(0, gf::mul(factor, g[k]));
  }
  // rem is now data(x)*x^k mod g(x); the check words are its negation so that the whole block
  // divides evenly by g (FORMAT.md 5).
  for (int& r : rem) r = gf::neg(r);
  return rem;
}

bool rsSyndromesZero(const std::vector<int>& block, int k) {
  if (k < 0 || k >= gf::kP) return false;
  int S[gf::kP + 1];
  return syndromes(block, k, S);
}

RsOutcome rsDecode(std::vector<int>& block, int k, const std::vector<int>& erasuresIn) {
  RsOutcome out;
  const int n = static_cast<int>(block.size());
  if (n <= k || n > gf::kOrder || k < 0) return out;
  for (int v : block)
    if (v < 0 || v >= gf::kP) return out;

  std::vector<int> erasures = erasuresIn;
  std::sort(erasures.begin(), erasures.end());
  erasures.erase(std::unique(erasures.begin(), erasures.end()), erasures.end());
  for (int e : erasures)
    if (e < 0 || e >= n) return out;
  const int rho = static_cast<int>(erasures.size());
  if (rho > k) return out;  // more unknowns than check words: hopeless, never guess
  out.erasures = rho;

  int S[gf::kP + 1] = {};        // S[1..k]
  if (syndromes(block, k, S)) {  // nothing wrong, erased positions already hold the right values
    out.ok = true;
    return out;
  }

  // Erasure locator Gamma(x) = prod (1 - X_j x), X_j = 3^(n-1-idx).
  const int size = k + 2;  // room for degree k+1 during the update
  Poly lambda(size);
  lambda.c[0] = 1;
  for (int idx : erasures) {
    const int X = gf::pow3(n - 1 - idx);
    for (int d = rho; d >= 1; --d) lambda.c[d] = gf::sub(lambda.c[d], gf::mul(X, lambda.c[d - 1]));
  }
  Poly B = lambda;
  int L = rho;

  // Berlekamp-Massey with erasures (Blahut's formulation).
  for (int r = rho + 1; r <= k; ++r) {
    int delta = 0;
    for (int j = 0; j <= r - 1 && j < size; ++j)
      if (lambda.c[j]) delta = gf::add(delta, gf::mul(lambda.c[j], S[r - j]));
    if (delta == 0) {
      for (int j = size - 1; j >= 1; --j) B.c[j] = B.c[j - 1];
      B.c[0] = 0;
      continue;
    }
    Poly T = lambda;
    for (int j = 1; j < size; ++j) T.c[j] = gf::sub(T.c[j], gf::mul(delta, B.c[j - 1]));
    if (2 * L <= r + rho - 1) {
      const int dinv = gf::inv(delta);
      for (int j = 0; j < size; ++j) B.c[j] = gf::mul(lambda.c[j], dinv);
      L = r - L + rho;
    } else {
      for (int j = size - 1; j >= 1; --j) B.c[j] = B.c[j - 1];
      B.c[0] = 0;
    }
    lambda = T;
  }

  const int degL = lambda.deg();
  if (degL != L || degL < rho) return out;
  const int nu = degL - rho;
  if (rho + 2 * nu > k) return out;

  // Omega(x) = S(x) * Lambda(x) mod x^k, with S(x) = S_1 + S_2 x + ...
  Poly omega(size);
  for (int i = 0; i < k; ++i) {
    int acc = 0;
    for (int j = 0; j <= i && j <= degL; ++j) acc = gf::add(acc, gf::mul(lambda.c[j], S[i - j + 1]));
    omega.c[i] = acc;
  }
  Poly dLambda(size);  // formal derivative: integer multiples mod 113
  for (int i = 1; i <= degL; ++i) dLambda.c[i - 1] = gf::mul(i % gf::kP, lambda.c[i]);

  std::vector<int> corrected = block;
  int roots = 0, errors = 0;
  for (int idx = 0; idx < n; ++idx) {
    const int power = n - 1 - idx;
    const int Xinv = gf::pow3(-power);
    if (lambda.eval(Xinv, degL) != 0) continue;
    ++roots;
    const int denom = dLambda.eval(Xinv, degL - 1);
    if (denom == 0) return out;
    const int e = gf::neg(gf::mul(omega.eval(Xinv, k - 1), gf::inv(denom)));
    corrected[idx] = gf::sub(corrected[idx], e);
    if (!std::binary_search(erasures.begin(), erasures.end(), idx)) ++errors;
  }
  if (roots != degL || errors != nu) return out;   // locator does not split over this block
  if (!rsSyndromesZero(corrected, k)) return out;  // never accept an unverified correction
  block.swap(corrected);
  out.errors = errors;
  out.ok = true;
  return out;
}

}  // namespace dc
