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

namespace {

// The peak locator's definition, computed the plain way (every window summed pixel by pixel,
// every neighbour compared): the binomial (1 2 1)^2 smoothing with the edges repeated, minus the
// mean over the (2R+1)^2 surround shrunk to the image (fixed point: 16/count as a multiplier
// rounded to 1/65536), the noise floor from the median absolute response on every third pixel
// of every third row, and the maxima (strict towards the left and up, non-strict towards the
// right and down) that are no ridge. locatePeaks computes the same with running sums, pair sums
// and byte masks; its results must be the same to the bit.
std::vector<dc::det::Blob> plainPeaks(const std::vector<uint8_t>& px, int W, int H, bool dark) {
  const int R = std::max(1, std::min(3, std::min(W, H) / 2 - 1));
  const int sign = dark ? -1 : 1;
  auto pixel = [&](int x, int y) { return static_cast<int>(px[static_cast<size_t>(std::clamp(y, 0, H - 1)) * W + std::clamp(x, 0, W - 1)]); };
  std::vector<int> sm(static_cast<size_t>(W) * H), resp(sm.size());
  const int binomial[3] = {1, 2, 1};
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      int s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += binomial[dy + 1] * binomial[dx + 1] * pixel(x + dx, y + dy);
      int box = 0;
      const int x0 = std::max(0, x - R), x1 = std::min(W - 1, x + R), y0 = std::max(0, y - R), y1 = std::min(H - 1, y + R);
      for (int yy = y0; yy <= y1; ++yy)
        for (int xx = x0; xx <= x1; ++xx) box += pixel(xx, yy);
      const int64_t mult = std::lround(16.0 * 65536.0 / ((x1 - x0 + 1) * (y1 - y0 + 1)));
      const int mean16 = static_cast<int>((box * mult + 32768) >> 16);
      sm[static_cast<size_t>(y) * W + x] = s;
      resp[static_cast<size_t>(y) * W + x] = sign * (s - mean16);
    }
  std::vector<int> sampled;
  for (int y = 2; y < H; y += 3)
    for (int x = 2; x < W - 2; x += 3) sampled.push_back(std::min(16 * 256 - 1, std::abs(resp[static_cast<size_t>(y) * W + x])));
  std::sort(sampled.begin(), sampled.end());
  const int noise = sampled.empty() ? 0 : sampled[(sampled.size() - 1) / 2];
  const int thr = std::max(4 * 16, 4 * noise);
  auto r = [&](int x, int y) { return resp[static_cast<size_t>(y) * W + x]; };
  auto s = [&](int x, int y) { return sm[static_cast<size_t>(y) * W + x]; };
  std::vector<dc::det::Blob> out;
  for (int y = 1; y < H - 1; ++y)
    for (int x = 1; x < W - 1; ++x) {
      const int v = r(x, y);
      if (v < thr) continue;
      bool peak = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          const bool before = dy < 0 || (dy == 0 && dx < 0);  // (strict towards these)
          if (before ? v <= r(x + dx, y + dy) : v < r(x + dx, y + dy)) peak = false;
        }
      if (!peak) continue;
      const float dxx = static_cast<float>(sign * (s(x - 1, y) + s(x + 1, y) - 2 * s(x, y)));
      const float dyy = static_cast<float>(sign * (s(x, y - 1) + s(x, y + 1) - 2 * s(x, y)));
      const float dxy = 0.25f * static_cast<float>(sign * (s(x + 1, y + 1) + s(x - 1, y - 1) - s(x + 1, y - 1) - s(x - 1, y + 1)));
      const float det = dxx * dyy - dxy * dxy, tr = dxx + dyy;
      if (tr >= 0 || det <= 0 || tr * tr > 25.0f / 4.0f * det) continue;
      const float ddx = 0.5f * (r(x - 1, y) - r(x + 1, y)) / std::max(1.0f, static_cast<float>(r(x - 1, y) - 2 * v + r(x + 1, y)) * -1.0f);
      const float ddy = 0.5f * (r(x, y - 1) - r(x, y + 1)) / std::max(1.0f, static_cast<float>(r(x, y - 1) - 2 * v + r(x, y + 1)) * -1.0f);
      int area = 0;
      for (int yy = std::max(0, y - 2); yy <= std::min(H - 1, y + 2); ++yy)
        for (int xx = std::max(0, x - 2); xx <= std::min(W - 1, x + 2); ++xx) area += 2 * r(xx, yy) >= v ? 1 : 0;
      dc::det::Blob b;
      b.x = x + 0.5f + std::max(-0.5f, std::min(0.5f, -ddx));
      b.y = y + 0.5f + std::max(-0.5f, std::min(0.5f, -ddy));
      b.area = area;
      b.d = std::sqrt(4.0f * area / 3.14159265f);
      b.w = b.h = static_cast<int>(std::lround(b.d));
      b.depth = v / 16;
      out.push_back(b);
    }
  return out;
}

}  // namespace

TEST("locate: peaks are the maxima of the centre-surround response as defined, plateaus and borders included") {
  // (narrow images take a smaller surround; coarse grey steps make plateaus of equal responses)
  const int sizes[][2] = {{6, 40}, {7, 7}, {8, 8}, {9, 31}, {15, 9}, {37, 29}, {101, 67}, {333, 17}};
  unsigned seed = 300;
  int found = 0;
  for (const auto& wh : sizes) {
    const int w = wh[0], h = wh[1];
    for (bool dark : {true, false})
      for (int step : {1, 40}) {
        std::vector<uint8_t> px = discs(w, h, w, seed++, dark ? 60 : 190, dark ? 160 : 90);
        for (uint8_t& v : px) v = static_cast<uint8_t>(v / step * step);
        dc::det::PeakParams p;
        p.dark = dark;
        dc::det::PeakWorkspace ws;
        std::vector<dc::det::Blob> got;
        dc::det::locatePeaks(dc::GreyImage{px.data(), w, h, w}, p, ws, got);
        CHECK(sameBlobs(got, plainPeaks(px, w, h, dark)));
        found += static_cast<int>(got.size());
      }
  }
  CHECK(found >= 50);  // (the images do hold peaks)
}

TEST("locate: a dot after a long stretch of background is found wherever it starts in a word") {
  // (the run extraction skips background two 8-pixel words at a time: a dot in either word, at
  // any offset, must stop the skip; and each block's threshold is spread over its 8 pixels as one
  // word: every byte of it must hold the threshold, or the dot loses pixels at some offsets)
  const int w = 120, h = 24;
  for (int cx = 20; cx < 100; ++cx) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h, 200);
    for (int y = 10; y < 14; ++y)
      for (int x = cx; x < cx + 4; ++x) px[static_cast<size_t>(y) * w + x] = 30;
    dc::det::LocateParams p;
    dc::det::LocateWorkspace ws;
    std::vector<dc::det::Blob> blobs;
    dc::det::locateDots(dc::GreyImage{px.data(), w, h, w}, p, ws, blobs);
    REQUIRE(blobs.size() == 1);
    CHECK(std::fabs(blobs[0].x - (cx + 2.0f)) < 0.5f);
    CHECK(std::fabs(blobs[0].y - 12.0f) < 0.5f);
    CHECK(blobs[0].area == 16);
  }
}

TEST("locate: block statistics are each block's minimum, maximum and sum over its sampled rows") {
  // (the column statistics of a block row are folded into blocks in halving steps over padded
  // columns: widths that are no multiple of a block, and block sizes 2-16, must give each block
  // its own pixels; each odd row repeats the row above, so a flat block's skipped rows add no
  // clear ink, and the neighbourhood has radius 0, so the blocks' own values are kept)
  std::mt19937 rng(11);
  for (const auto& wh : kSizes)
    for (int S = 1; S <= 4; ++S) {
      const int w = wh[0], h = wh[1], B = 1 << S;
      std::vector<uint8_t> px(static_cast<size_t>(w) * h);
      for (uint8_t& v : px) v = static_cast<uint8_t>(rng() & 0xFF);
      for (int y = 1; y < h; y += 2)
        for (int x = 0; x < w; ++x) px[static_cast<size_t>(y) * w + x] = px[static_cast<size_t>(y - 1) * w + x];
      dc::det::LocateParams p;
      p.blockShift = S;
      p.radiusBlocks = 0;
      dc::det::LocateWorkspace ws;
      std::vector<dc::det::Blob> blobs;
      dc::det::locateDots(dc::GreyImage{px.data(), w, h, w}, p, ws, blobs);
      const int bw = (w + B - 1) / B, bh = (h + B - 1) / B, step = h >= 2 * B ? 2 : 1;
      REQUIRE(ws.blockSum.size() == static_cast<size_t>(bw) * bh);
      int bad = 0;
      for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
          int mn = 255, mx = 0, sum = 0;
          for (int y = by * B; y < std::min(h, (by + 1) * B); y += step)
            for (int x = bx * B; x < std::min(w, (bx + 1) * B); ++x) {
              const int v = px[static_cast<size_t>(y) * w + x];
              mn = std::min(mn, v), mx = std::max(mx, v), sum += v;
            }
          const size_t k = static_cast<size_t>(by) * bw + bx;
          bad += ws.blockMin[k] != mn || ws.blockMax[k] != mx || ws.blockSum[k] != sum ? 1 : 0;
        }
      CHECK(bad == 0);
    }
}

TEST("locate: a dark peak read that takes the light read's kept response finds its own peaks") {
  // (the dark response is the light one negated, with the same smoothed image and noise floor;
  // a response is taken only for the same pixels: another crop of the buffer computes its own)
  unsigned seed = 500;
  size_t found = 0;
  for (const auto& wh : kSizes) {
    const int w = wh[0], h = wh[1], stride = w + 5;
    std::vector<uint8_t> px = discs(w, h, stride, seed++, 70, 170);
    // light discs too, so both polarities have peaks
    std::vector<uint8_t> light = discs(w, h, stride, seed++, 230, 170);
    for (size_t i = 0; i < px.size(); ++i) px[i] = light[i] > 200 ? light[i] : px[i];
    const dc::GreyImage img{px.data(), w, h, stride};
    const dc::GreyImage inner{px.data() + stride + 1, w - 2, h - 2, stride};
    dc::det::PeakParams lightP, darkP;
    lightP.dark = false;
    darkP.dark = true;
    dc::det::PeakWorkspace own;
    std::vector<dc::det::Blob> want, wantInner, got, gotInner, scratch;
    dc::det::locatePeaks(img, darkP, own, want);
    const std::vector<uint8_t> wantSeeds = own.keep;
    dc::det::locatePeaks(inner, darkP, own, wantInner);
    dc::det::PeakWorkspace shared;
    lightP.keepResponse = true;
    dc::det::locatePeaks(img, lightP, shared, scratch);
    REQUIRE(shared.kept.size() == 1);
    darkP.takeResponse = true;
    dc::det::locatePeaks(inner, darkP, shared, gotInner);
    CHECK(sameBlobs(gotInner, wantInner));
    dc::det::locatePeaks(img, darkP, shared, got);
    CHECK(sameBlobs(got, want));
    CHECK(shared.keep == wantSeeds);
    found += want.size();
  }
  CHECK(found >= 50);  // (the images do hold dark peaks)
}
