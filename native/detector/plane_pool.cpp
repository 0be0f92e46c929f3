#include "detector/plane_pool.h"

#include <utility>

namespace dc {
namespace det {
namespace {

// At most this many planes are kept: the most a read holds at once is the gradient correlation's
// six and the transform's two.
constexpr size_t kMaxKept = 12;

struct Pool {
  int depth = 0;
  std::vector<std::vector<float>> kept;
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

}  // namespace

PlanePoolScope::PlanePoolScope() { ++pool().depth; }

PlanePoolScope::~PlanePoolScope() {
  Pool& p = pool();
  if (--p.depth == 0) p.kept.clear();
}

std::vector<float> takePlane(size_t n) {
  Pool& p = pool();
  // the smallest kept plane that holds n values (so a large plane stays for a large request)
  size_t best = p.kept.size();
  for (size_t i = 0; i < p.kept.size(); ++i)
    if (p.kept[i].capacity() >= n && (best == p.kept.size() || p.kept[i].capacity() < p.kept[best].capacity())) best = i;
  if (best == p.kept.size()) return std::vector<float>(n);
  std::vector<float> plane = std::move(p.kept[best]);
  p.kept[best] = std::move(p.kept.back());
  p.kept.pop_back();
  plane.resize(n);
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
  size_t smallest = 0;
  for (size_t i = 1; i < p.kept.size(); ++i)
    if (p.kept[i].capacity() < p.kept[smallest].capacity()) smallest = i;
  if (plane.capacity() > p.kept[smallest].capacity()) p.kept[smallest] = std::move(plane);
}

}  // namespace det
}  // namespace dc
