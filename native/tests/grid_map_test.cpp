// GridMap (detector/grid_map.h) against std::map on the positions a lattice growth visits: around
// the seed (negative coordinates, (-1, -1) included: a packed key of all ones is the table's empty
// mark), far past its first capacity, with overwrites.
#include <map>
#include <random>
#include <utility>

#include "check.h"
#include "detector/grid_map.h"

TEST("grid map: finds what std::map finds, negative positions and growth included") {
  dc::det::GridMap<int> m(4);
  std::map<std::pair<int, int>, int> ref;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coord(-40, 40);
  for (int k = 0; k < 3000; ++k) {
    const int r = coord(rng), c = coord(rng);
    m.set(r, c, k);
    ref[{r, c}] = k;
  }
  m.set(-1, -1, -5);
  ref[{-1, -1}] = -5;
  CHECK(m.size() == ref.size());
  int mismatches = 0;
  for (int r = -42; r <= 42; ++r)
    for (int c = -42; c <= 42; ++c) {
      const int* v = m.find(r, c);
      auto it = ref.find({r, c});
      if ((v != nullptr) != (it != ref.end()) || (v && *v != it->second)) ++mismatches;
    }
  CHECK(mismatches == 0);
  REQUIRE(m.find(-1, -1) != nullptr);
  CHECK(*m.find(-1, -1) == -5);
  m.reset(8);
  CHECK(m.size() == 0u);
  CHECK(!m.contains(-1, -1));
}
