// Float planes reused while a read lasts (detector/plane_pool.h): a plane given back inside a scope
// comes back for the next request it can hold, and the deconvolution gives the same values whatever
// a reused plane held before.
#include <limits>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"
#include "detector/plane_pool.h"

using dc::det::givePlane;
using dc::det::PlanePoolScope;
using dc::det::PooledPlane;
using dc::det::takePlane;

TEST("plane pool: inside a scope a plane given back is taken again for a request it can hold") {
  const PlanePoolScope scope;
  std::vector<float> a = takePlane(1000);
  CHECK_EQ(a.size(), 1000u);
  const float* pa = a.data();
  givePlane(std::move(a));
  std::vector<float> b = takePlane(600);
  CHECK(b.data() == pa);
  CHECK_EQ(b.size(), 600u);
  // too small for a larger request: a new plane
  givePlane(std::move(b));
  std::vector<float> c = takePlane(5000);
  CHECK(c.data() != pa);
  CHECK_EQ(c.size(), 5000u);
  givePlane(std::move(c));
}

TEST("plane pool: the smallest kept plane that holds the request is the one taken") {
  const PlanePoolScope scope;
  std::vector<float> big = takePlane(8000), small = takePlane(1000), middle = takePlane(3000);
  const float *pBig = big.data(), *pSmall = small.data(), *pMiddle = middle.data();
  givePlane(std::move(big));
  givePlane(std::move(small));
  givePlane(std::move(middle));
  std::vector<float> x = takePlane(2000), y = takePlane(900), z = takePlane(7000);
  CHECK(x.data() == pMiddle);
  CHECK(y.data() == pSmall);
  CHECK(z.data() == pBig);
}

TEST("plane pool: a nested scope keeps the outer one's planes; without a scope nothing is kept") {
  std::vector<float> loose = takePlane(100);
  givePlane(std::move(loose));
  CHECK_EQ(loose.capacity(), 100u);  // not taken into a pool: still the caller's, freed with it
  const PlanePoolScope outer;
  std::vector<float> a = takePlane(2000);
  const float* pa = a.data();
  {
    const PlanePoolScope inner;
    givePlane(std::move(a));
  }
  std::vector<float> b = takePlane(2000);
  CHECK(b.data() == pa);
}

TEST("plane pool: the deconvolution reads the same with reused planes full of NaN as with fresh ones") {
  const int w = 96, h = 80;
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h);
  std::mt19937 rng(11);
  for (auto& p : pixels) p = static_cast<uint8_t>(rng() % 256);
  const dc::GreyImage img{pixels.data(), w, h, w};
  dc::det::BlurEstimate blur;
  blur.radius = 1.7f;
  std::vector<uint8_t> freshBuf, reusedBuf;
  dc::GreyImage fresh, reused;
  dc::det::deblurRegion(img, blur, 0.01f, freshBuf, fresh);
  const PlanePoolScope scope;
  {
    // planes of every size the transform takes, poisoned, then given back for it to reuse
    PooledPlane p1(1 << 16), p2(1 << 16), p3(1 << 16), p4(1 << 16), p5(1 << 16), p6(1 << 16);
    for (PooledPlane* p : {&p1, &p2, &p3, &p4, &p5, &p6})
      for (size_t i = 0; i < p->size(); ++i) (*p)[i] = std::numeric_limits<float>::quiet_NaN();
  }
  dc::det::deblurRegion(img, blur, 0.01f, reusedBuf, reused);
  REQUIRE(fresh.width == reused.width && fresh.height == reused.height);
  CHECK(freshBuf == reusedBuf);
}
