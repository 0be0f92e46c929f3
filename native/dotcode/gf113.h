// Arithmetic in GF(113), the prime field of DotCode's Reed-Solomon code (FORMAT.md section 5).
// Elements are ints 0..112; the primitive element is 3 (order 112). Tables make mul/inv O(1).
#pragma once
#include <array>

namespace dc::gf113 {

constexpr int kP = 113;
constexpr int kAlpha = 3;
constexpr int kOrder = 112;  // multiplicative group order

struct Tables {
  std::array<int, 2 * kOrder> exp{};  // exp[i] = 3^i, doubled so exp[a+b] needs no reduction
  std::array<int, kP> log{};          // log[x] for x != 0
  std::array<int, kP> inv{};
  constexpr Tables() {
    int x = 1;
    for (int i = 0; i < 2 * kOrder; ++i) {
      exp[i] = x;
      if (i < kOrder) log[x] = i;
      x = x * kAlpha % kP;
    }
    inv[0] = 0;
    for (int a = 1; a < kP; ++a) inv[a] = exp[(kOrder - log[a]) % kOrder];
  }
};
inline constexpr Tables kTables{};

inline int add(int a, int b) {
  int s = a + b;
  return s >= kP ? s - kP : s;
}
inline int sub(int a, int b) {
  int s = a - b;
  return s < 0 ? s + kP : s;
}
inline int neg(int a) { return a == 0 ? 0 : kP - a; }
inline int mul(int a, int b) { return a * b % kP; }
inline int inv(int a) { return kTables.inv[a]; }  // inv(0) is 0: callers never divide by zero
// alpha^e for any integer e (negative allowed).
inline int pow3(int e) {
  e %= kOrder;
  if (e < 0) e += kOrder;
  return kTables.exp[e];
}

}  // namespace dc::gf113
