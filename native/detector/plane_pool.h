// Float planes kept for reuse while a read lasts (plane_pool.cpp). The deconvolving stages
// transform planes of the same few sizes many times per image; each fresh plane of a megabyte or
// more comes from the system as untouched pages, and the page faults on first writing them were a
// quarter of a hard image's CPU time (docs/detector.md, "Planes reused within a read").
#pragma once

#include <cstddef>
#include <vector>

namespace dc {
namespace det {

// While one is alive on a thread (readDotCodes holds one per read), planes given back are kept and
// handed out again; the last one to end frees them. Nested scopes share the outermost's planes.
class PlanePoolScope {
 public:
  PlanePoolScope();
  ~PlanePoolScope();
  PlanePoolScope(const PlanePoolScope&) = delete;
  PlanePoolScope& operator=(const PlanePoolScope&) = delete;
};

// A plane of `n` floats whose values are unspecified: a kept plane of at least that capacity, or
// a new one. Outside any scope, always a new one.
std::vector<float> takePlane(size_t n);
// The same, every value `fill` (one pass over the plane, new or kept).
std::vector<float> takePlane(size_t n, float fill);
// Back to the thread's planes (inside a scope), else freed.
void givePlane(std::vector<float>&& plane);

// A plane taken on construction and given back when it goes out of scope.
struct PooledPlane {
  std::vector<float> v;
  explicit PooledPlane(size_t n) : v(takePlane(n)) {}
  PooledPlane(size_t n, float fill) : v(takePlane(n, fill)) {}
  ~PooledPlane() { givePlane(std::move(v)); }
  PooledPlane(const PooledPlane&) = delete;
  PooledPlane& operator=(const PooledPlane&) = delete;
  float* data() { return v.data(); }
  float& operator[](size_t i) { return v[i]; }
  float operator[](size_t i) const { return v[i]; }
  size_t size() const { return v.size(); }
};

}  // namespace det
}  // namespace dc
