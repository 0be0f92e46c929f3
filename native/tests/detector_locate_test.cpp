// Locate-stage tests: the dot and peak locators read rows in vectorised chunks (8-byte mask words,
// blocks padded to whole columns, 16-pixel loops), so their results must not depend on the row
// stride, on widths that are no multiple of those chunks, or on what lies beyond a row's end;
// and block statistics kept for a crop (reuseStats) must never outlive the image they describe.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "check.h"
#include "detector/detector_internal.h"

namespace {

// Dark (or light) discs of 2-5 px on a noisy ground with a brightness ramp, in a buffer whose rows
// are `stride` bytes apart; the bytes past each row's end are random (what a caller's padding or a
// crop's neighbours may hold).
std::vector<uint8_t> discs(int w, int h, int stride, unsigned seed, uint8_t ink, uint8_t ground) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> px(static_cast<size_t>(stride) * h);
  for (uint8_t& v : px) v = static_cast<uint8_t>(rng() & 0xFF);
  std::normal_distribution<double> noise(0, 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) px[static_cast<size_t>(y) * stride + x] = static_cast<uint8_t>(std::lround(std::min(255.0, std::max(0.0, ground - 20.0 * x / w + noise(rng)))));
  std::uniform_real_distribution<double> ux(0, w), uy(0, h), ur(1.0, 2.5);
  const int n = w * h / 150;
  for (int k = 0; k < n; ++k) {
    const double cx = ux(rng), cy = uy(rng), r = ur(rng);
    for (int y = std::max(0, static_cast<int>(cy - r - 1)); y <= std::min(h - 1, static_cast<int>(cy + r + 1)); ++y)
      for (int x = std::max(0, static_cast<int>(cx - r - 1)); x <= std::min(w - 1, static_cast<int>(cx + r + 1)); ++x)
        if ((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy) <= r * r) px[static_cast<size_t>(y) * stride + x] = ink;
  }
  return px;
}

// The same pixels in a tight buffer (stride = width).
std::vector<uint8_t> tight(const std::vector<uint8_t>& px, int w, int h, int stride) {
  std::vector<uint8_t> out(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[static_cast<size_t>(y) * w + x] = px[static_cast<size_t>(y) * stride + x];
  return out;
}

bool sameBlobs(const std::vector<dc::det::Blob>& a, const std::vector<dc::det::Blob>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].d != b[i].d || a[i].area != b[i].area || a[i].w != b[i].w ||
        a[i].h != b[i].h || a[i].depth != b[i].depth)
      return false;
  return true;
}

const int kSizes[][2] = {{13, 11}, {37, 29}, {64, 40}, {101, 67}, {250, 133}, {333, 17}};

}  // namespace

TEST("locate: dots do not depend on the stride, the width's remainder or the bytes past a row") {
  unsigned seed = 1;
  for (const auto& wh : kSizes) {
    const int w = wh[0], h = wh[1], stride = w + 29;
    for (bool dark : {true, false}) {
      const std::vector<uint8_t> padded = discs(w, h, stride, seed++, dark ? 20 : 235, dark ? 200 : 60);
      const std::vector<uint8_t> plain = tight(padded, w, h, stride);
      dc::det::LocateParams p;
      p.dark = dark;
      dc::det::LocateWorkspace ws1, ws2;
      std::vector<dc::det::Blob> a, b;
      dc::det::locateDots(dc::GreyImage{padded.data(), w, h, stride}, p, ws1, a);
      dc::det::locateDots(dc::GreyImage{plain.data(), w, h, w}, p, ws2, b);
      CHECK(sameBlobs(a, b));
      if (w * h >= 64 * 40) CHECK(a.size() >= 5);  // the discs are found at all
    }
  }
}

TEST("locate: peaks do not depend on the stride, the width's remainder or the bytes past a row") {
  unsigned seed = 100;
  for (const auto& wh : kSizes) {
    const int w = wh[0], h = wh[1], stride = w + 31;
    for (bool dark : {true, false}) {
      const std::vector<uint8_t> padded = discs(w, h, stride, seed++, dark ? 60 : 190, dark ? 160 : 90);
      const std::vector<uint8_t> plain = tight(padded, w, h, stride);
      dc::det::PeakParams p;
      p.dark = dark;
      dc::det::PeakWorkspace ws1, ws2;
      std::vector<dc::det::Blob> a, b;
      dc::det::locatePeaks(dc::GreyImage{padded.data(), w, h, stride}, p, ws1, a);
      dc::det::locatePeaks(dc::GreyImage{plain.data(), w, h, w}, p, ws2, b);
      CHECK(sameBlobs(a, b));
      CHECK(ws1.keep == ws2.keep);
      if (w * h >= 64 * 40) CHECK(a.size() >= 5);
    }
  }
}

TEST("locate: kept block statistics serve the same pixels only until forgotten") {
  const int w = 160, h = 120;
  std::vector<uint8_t> buf = discs(w, h, w, 7, 20, 220);
  const std::vector<uint8_t> other = discs(w, h, w, 8, 110, 140);  // low contrast: other thresholds
  dc::det::LocateParams p;
  p.reuseStats = true;
  const dc::GreyImage img{buf.data(), w, h, w};
  dc::det::LocateWorkspace kept;
  std::vector<dc::det::Blob> first, again, stale, fresh, forgotten;
  dc::det::locateDots(img, p, kept, first);
  dc::det::locateDots(img, p, kept, again);  // the same image: statistics reused, same dots
  CHECK(sameBlobs(first, again));
  // A new frame in the same buffer: the kept statistics are the old frame's (the driver forgets
  // them when a read starts; without that the new frame is thresholded with the old statistics).
  std::copy(other.begin(), other.end(), buf.begin());
  dc::det::locateDots(img, p, kept, stale);
  dc::det::LocateWorkspace clean;
  dc::det::locateDots(img, p, clean, fresh);
  CHECK(!sameBlobs(stale, fresh));
  kept.forgetStats();
  dc::det::locateDots(img, p, kept, forgotten);
  CHECK(sameBlobs(forgotten, fresh));
}
