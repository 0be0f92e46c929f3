#include "detector/plane_pool.h"

#include <utility>

namespace dc {
namespace det {
namespace {

// At most this many planes are kept: the most a read holds at once is the gradient correlation's
// three pooled planes and the transform's two.
constexpr size_t kMaxKept = 12;

struct Pool {
  int depth = 0;
  std::vector<std::vector<float>> kept;
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

// The index of the smallest kept plane of at least `n` values' capacity, or kept.size().
size_t smallestHolding(const Pool& p, size_t n) {
  size_t best = p.kept.size();
  for (size_t i = 0; i < p.kept.size(); ++i)
    if (p.kept[i].capacity() >= n && (best == p.kept.size() || p.kept[i].capacity() < p.kept[best].capacity())) best = i;
  return best;
}

// The smallest kept plane that holds n values, out of the pool (so a large plane stays for a
// large request); empty when none does.
std::vector<float> takeKept(size_t n) {
  Pool& p = pool();
  const size_t best = smallestHolding(p, n);
  if (best == p.kept.size()) return {};
  std::vector<float> plane = std::move(p.kept[best]);
  p.kept[best] = std::move(p.kept.back());
  p.kept.pop_back();
  return plane;
}

}  // namespace

PlanePoolScope::PlanePoolScope() { ++pool().depth; }

PlanePoolScope::~PlanePoolScope() {
  Pool& p = pool();
  if (--p.depth == 0) p.kept.clear();
}

std::vector<float> takePlane(size_t n) {
  std::vector<float> plane = takeKept(n);
  plane.resize(n);
  return plane;
}

std::vector<float> takePlane(size_t n, float fill) {
  std::vector<float> plane = takeKept(n);
  plane.assign(n, fill);
  return plane;
}

void givePlane(std::vector<float>&& plane) {
  Pool& p = pool();
  if (p.depth == 0 || plane.capacity() == 0) return;
  if (p.kept.size() < kMaxKept) {
    p.kept.push_back(std::move(plane));
    return;
  }
  // full: keep the larger of this plane and the smallest kept one
  const size_t smallest = smallestHolding(p, 0);
  if (plane.capacity() > p.kept[smallest].capacity()) p.kept[smallest] = std::move(plane);
}

}  // namespace det
}  // namespace dc
