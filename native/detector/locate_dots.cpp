// Stage 1: candidate dots. A local threshold (block statistics over a neighbourhood, so uneven
// lighting does not matter) marks foreground pixels of one polarity; 4-connected runs are joined
// into blobs; blobs that cannot be a printed dot (too big, too thin, too sparse) are dropped.
//
// 4-connectivity on purpose: in a DotCode the nearest dots are diagonal neighbours, and with ink
// spread or blur they tend to touch at a corner first; 8-connectivity would merge them.
#include <algorithm>
#include <cmath>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"

namespace dc {
namespace det {

namespace {

// Separable box sum (radius r) over a bw x bh int grid, in place via tmp.
void boxSum(std::vector<int32_t>& v, std::vector<int32_t>& tmp, int bw, int bh, int r) {
  tmp.assign(v.size(), 0);
  for (int y = 0; y < bh; ++y) {
    const int32_t* row = &v[static_cast<size_t>(y) * bw];
    int32_t* out = &tmp[static_cast<size_t>(y) * bw];
    int32_t acc = 0;
    for (int x = 0; x <= std::min(r, bw - 1); ++x) acc += row[x];
    for (int x = 0; x < bw; ++x) {
      out[x] = acc;
      int add = x + r + 1, sub = x - r;
      if (add < bw) acc += row[add];
      if (sub >= 0) acc -= row[sub];
    }
  }
  for (int x = 0; x < bw; ++x) {
    int32_t acc = 0;
    for (int y = 0; y <= std::min(r, bh - 1); ++y) acc += tmp[static_cast<size_t>(y) * bw + x];
    for (int y = 0; y < bh; ++y) {
      v[static_cast<size_t>(y) * bw + x] = acc;
      int add = y + r + 1, sub = y - r;
      if (add < bh) acc += tmp[static_cast<size_t>(add) * bw + x];
      if (sub >= 0) acc -= tmp[static_cast<size_t>(sub) * bw + x];
    }
  }
}

// Min (isMax=false) or max of radius r along one line of n cells, `step` apart in the grid.
void minMaxLine(const uint8_t* src, uint8_t* dst, int n, size_t step, int r, bool isMax) {
  for (int i = 0; i < n; ++i) {
    const int a = std::max(0, i - r), b = std::min(n - 1, i + r);
    uint8_t m = src[a * step];
    for (int k = a + 1; k <= b; ++k) m = isMax ? std::max(m, src[k * step]) : std::min(m, src[k * step]);
    dst[i * step] = m;
  }
}

// Separable min (isMax=false) or max filter of radius r over a bw x bh byte grid.
void minMaxFilter(std::vector<uint8_t>& v, int bw, int bh, int r, bool isMax) {
  std::vector<uint8_t> tmp(v.size());
  for (int y = 0; y < bh; ++y) {
    const size_t row = static_cast<size_t>(y) * bw;
    minMaxLine(v.data() + row, tmp.data() + row, bw, 1, r, isMax);
  }
  for (int x = 0; x < bw; ++x) minMaxLine(tmp.data() + x, v.data() + x, bh, static_cast<size_t>(bw), r, isMax);
}

// A block whose sampled rows span less than this is "flat" (below every pass' contrast floor
// of 12..24 grey levels, with margin for the rows that were not sampled).
constexpr int kFlatRange = 32;

// Block statistics of the image itself (sum, count, neighbourhood minimum and maximum per
// block); both polarities derive from them, so a second pass over the same frame reuses them.
void blockStatistics(const GreyImage& img, int S, int R, LocateWorkspace& ws) {
  const int W = img.width, H = img.height, B = 1 << S;
  const int bw = (W + B - 1) >> S, bh = (H + B - 1) >> S;
  const size_t nb = static_cast<size_t>(bw) * bh;
  ws.blockSum.assign(nb, 0);
  ws.blockCnt.assign(nb, 0);
  ws.rawMin.assign(nb, 255);
  ws.rawMax.assign(nb, 0);
  // Every other row is enough for neighbourhood statistics (half the cost); the exact
  // per-segment minimum is tested again when the runs are extracted.
  for (int y = 0; y < H; y += (H >= 2 * B ? 2 : 1)) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    const size_t base = static_cast<size_t>(y >> S) * bw;
    for (int bx = 0; bx < bw; ++bx) {
      const int x0 = bx << S, x1 = std::min(W, x0 + B);
      int sum = 0;
      uint8_t mn = 255, mx = 0;
      for (int x = x0; x < x1; ++x) {
        const uint8_t v = row[x];
        sum += v;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
      }
      ws.blockSum[base + bx] += sum;
      ws.blockCnt[base + bx] += x1 - x0;
      if (mn < ws.rawMin[base + bx]) ws.rawMin[base + bx] = mn;
      if (mx > ws.rawMax[base + bx]) ws.rawMax[base + bx] = mx;
    }
  }
  boxSum(ws.blockSum, ws.tmpA, bw, bh, R);
  boxSum(ws.blockCnt, ws.tmpA, bw, bh, R);
  ws.blockMin = ws.rawMin;
  ws.blockMax = ws.rawMax;
  minMaxFilter(ws.blockMin, bw, bh, R, false);
  minMaxFilter(ws.blockMax, bw, bh, R, true);
  // A neighbourhood that looked flat on the sampled rows may still hold ink on the others: a
  // print at one pixel per dot and two per module (zint --scale=1) has all its dots on rows of
  // one parity, and the sampled ones can be blank paper (no threshold, nothing found). Where
  // the neighbourhood has any contrast, the runs below test every row against its threshold,
  // so only flat neighbourhoods need their skipped rows read; their blocks take those rows'
  // minimum or maximum when it is clear ink, well beyond the sampled range (the paper's noise
  // would only shift ordinary frames' statistics). Measured on empty 1280x720 frames: reading
  // every row, or every flat block's rows, costs 5-30%; this costs little.
  if (H >= 2 * B) {
    bool changed = false;
    for (int by = 0; by < bh; ++by)
      for (int bx = 0; bx < bw; ++bx) {
        const size_t k = static_cast<size_t>(by) * bw + bx;
        if (ws.blockMax[k] - ws.blockMin[k] >= kFlatRange) continue;
        const int x0 = bx << S, x1 = std::min(W, x0 + B);
        uint8_t mn = 255, mx = 0;
        for (int y = (by << S) + 1; y < std::min(H, (by + 1) << S); y += 2) {
          const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
          for (int x = x0; x < x1; ++x) {
            mn = row[x] < mn ? row[x] : mn;
            mx = row[x] > mx ? row[x] : mx;
          }
        }
        if (mn + kFlatRange < ws.rawMin[k]) ws.rawMin[k] = mn, changed = true;
        if (mx > ws.rawMax[k] + kFlatRange) ws.rawMax[k] = mx, changed = true;
      }
    if (changed) {
      ws.blockMin = ws.rawMin;
      ws.blockMax = ws.rawMax;
      minMaxFilter(ws.blockMin, bw, bh, R, false);
      minMaxFilter(ws.blockMax, bw, bh, R, true);
    }
  }
  ws.statsData = img.data;
  ws.statsW = W;
  ws.statsH = H;
  ws.statsStride = img.stride;
  ws.statsShift = S;
  ws.statsRadius = R;
}

// Per block, in dark form: the neighbourhood mean and minimum, and the threshold (0: flat, no
// dot can be seen there).
void blockThresholds(const LocateParams& p, size_t nb, LocateWorkspace& ws) {
  ws.thr.assign(nb, 0);
  ws.blkMean.resize(nb);
  ws.blkLo.resize(nb);
  for (size_t b = 0; b < nb; ++b) {
    const float m = static_cast<float>(ws.blockSum[b]) / static_cast<float>(ws.blockCnt[b]);
    const int lo = p.dark ? ws.blockMin[b] : 255 - ws.blockMax[b];
    const int hi = p.dark ? ws.blockMax[b] : 255 - ws.blockMin[b];
    const float mean = p.dark ? m : 255.0f - m;
    ws.blkMean[b] = mean;
    ws.blkLo[b] = static_cast<uint8_t>(lo);
    if (hi - lo < p.minContrast) continue;  // flat: no dot can be seen here
    // the floor keeps sensor/JPEG noise on mottled backgrounds from becoming thousands of blobs
    const float delta = std::max(p.alpha * (mean - lo), 8.0f);
    int t = static_cast<int>(std::max(0.0f, std::ceil(mean - delta)));
    ws.thr[b] = static_cast<int16_t>(t);
  }
}

// Foreground runs, row by row (ws.run*, ws.rowStart). False when p.maxRuns was exceeded.
bool extractRuns(const GreyImage& img, const LocateParams& p, LocateWorkspace& ws) {
  const int W = img.width, H = img.height, S = p.blockShift, B = 1 << S;
  const int bw = (W + B - 1) >> S;
  const uint8_t xorMask = p.dark ? 0 : 0xFF;
  ws.runX0.clear();
  ws.runX1.clear();
  ws.runY.clear();
  ws.runDepth.clear();
  ws.rejectedShapes = 0;
  ws.merged.clear();
  ws.rowStart.assign(static_cast<size_t>(H) + 1, 0);
  bool capped = false;
  for (int y = 0; y < H && !capped; ++y) {
    ws.rowStart[y] = static_cast<int32_t>(ws.runX0.size());
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    const int16_t* thr = &ws.thr[static_cast<size_t>(y >> S) * bw];
    int runStart = -1, depth = 0;
    // ends the open run (if any) before column x
    auto closeRun = [&](int x) {
      if (runStart < 0) return;
      ws.runX0.push_back(runStart);
      ws.runX1.push_back(x);
      ws.runY.push_back(y);
      ws.runDepth.push_back(depth);
      runStart = -1;
    };
    for (int bx = 0; bx < bw; ++bx) {
      const int x0 = bx << S, x1 = std::min(W, x0 + B);
      const int t = thr[bx];
      if (t <= 0) {
        closeRun(x0);
        continue;
      }
      if (x1 - x0 == B) {
        // Most row segments hold no foreground: test their minimum first (vectorises well).
        int mn = 255;
        for (int x = x0; x < x1; ++x) mn = std::min(mn, row[x] ^ xorMask);
        if (mn >= t) {
          closeRun(x0);
          continue;
        }
      }
      for (int x = x0; x < x1; ++x) {
        const int v = row[x] ^ xorMask;
        if (v < t) {
          if (runStart < 0) {
            runStart = x;
            depth = 0;
          }
          depth = std::max(depth, t - v);
        } else {
          closeRun(x);
        }
      }
    }
    closeRun(W);
    if (static_cast<int>(ws.runX0.size()) > p.maxRuns) capped = true;
  }
  if (capped) return false;
  ws.rowStart[H] = static_cast<int32_t>(ws.runX0.size());
  return true;
}

// Union runs that overlap a run of the row above (4-connectivity: shared columns).
void joinRuns(int H, LocateWorkspace& ws) {
  const int nRuns = static_cast<int>(ws.runX0.size());
  ws.parent.resize(nRuns);
  for (int i = 0; i < nRuns; ++i) ws.parent[i] = i;
  for (int y = 1; y < H; ++y) {
    int a = ws.rowStart[y - 1], ae = ws.rowStart[y];
    int c = ws.rowStart[y], ce = ws.rowStart[y + 1];
    while (a < ae && c < ce) {
      if (ws.runX1[a] > ws.runX0[c] && ws.runX1[c] > ws.runX0[a]) {
        int ra = unionRoot(ws.parent, a), rc = unionRoot(ws.parent, c);
        if (ra != rc) {
          if (ra < rc)
            ws.parent[rc] = ra;
          else
            ws.parent[ra] = rc;
        }
      }
      if (ws.runX1[a] < ws.runX1[c])
        ++a;
      else
        ++c;
    }
  }
}

// Per component (indexed by its root run): pixel count, coordinate sums, bounding box, depth.
void componentStats(int W, int H, LocateWorkspace& ws) {
  const int nRuns = static_cast<int>(ws.runX0.size());
  ws.cnt.assign(nRuns, 0);
  ws.sumX2.assign(nRuns, 0);
  ws.sumY2.assign(nRuns, 0);
  ws.minX.assign(nRuns, W);
  ws.maxX.assign(nRuns, -1);
  ws.minY.assign(nRuns, H);
  ws.maxY.assign(nRuns, -1);
  ws.depth.assign(nRuns, 0);
  for (int i = 0; i < nRuns; ++i) {
    const int r = unionRoot(ws.parent, i);
    const int len = ws.runX1[i] - ws.runX0[i];
    ws.cnt[r] += len;
    ws.sumX2[r] += static_cast<int64_t>(len) * (ws.runX0[i] + ws.runX1[i]);
    ws.sumY2[r] += static_cast<int64_t>(len) * (2 * ws.runY[i] + 1);
    ws.minX[r] = std::min(ws.minX[r], ws.runX0[i]);
    ws.maxX[r] = std::max(ws.maxX[r], ws.runX1[i] - 1);
    ws.minY[r] = std::min(ws.minY[r], ws.runY[i]);
    ws.maxY[r] = std::max(ws.maxY[r], ws.runY[i]);
    ws.depth[r] = std::max(ws.depth[r], ws.runDepth[i]);
  }
}

// The components that can be printed dots, as blobs; the others are counted (and the merged
// ones boxed) for the driver. False when p.maxBlobs was reached.
bool keepDotShapes(const GreyImage& img, const LocateParams& p, LocateWorkspace& ws, std::vector<Blob>& out) {
  const int W = img.width, H = img.height, S = p.blockShift, B = 1 << S;
  const int bw = (W + B - 1) >> S;
  const int nRuns = static_cast<int>(ws.runX0.size());
  for (int i = 0; i < nRuns; ++i) {
    if (ws.cnt[i] == 0) continue;
    const int w = ws.maxX[i] - ws.minX[i] + 1, h = ws.maxY[i] - ws.minY[i] + 1;
    // Rejected shapes are counted: many of them (dots merged by blur or ink spread, chains
    // along the diagonals) tell the driver that the stricter threshold pass is worth running.
    if (w > p.maxDot || h > p.maxDot) {
      ++ws.rejectedShapes;
      // a filled, compact component (not a text line or a frame): perhaps dots merged by blur
      const int a = ws.cnt[i], mn = std::min(w, h), mx = std::max(w, h);
      if (a * 5 >= w * h && mx <= 4 * mn && static_cast<int>(ws.merged.size()) < LocateWorkspace::kMaxMerged)
        ws.merged.push_back({ws.minX[i], ws.minY[i], ws.maxX[i] + 1, ws.maxY[i] + 1});
      continue;
    }
    const int a = ws.cnt[i];
    const int mn = std::min(w, h), mx = std::max(w, h);
    if ((mx >= 4 && mx > 3 * mn + 1) ||         // a stroke, not a dot
        (w * h >= 12 && a * 10 < w * h * 3)) {  // a sparse shape (ring, letter, chain)
      if (a >= 6) ++ws.rejectedShapes;
      continue;
    }
    // A printed dot reaches well beyond the threshold; noise specks only graze it.
    {
      const int cxp = std::min(W - 1, static_cast<int>(ws.sumX2[i] / (2 * a))) >> S;
      const int cyp = std::min(H - 1, static_cast<int>(ws.sumY2[i] / (2 * a))) >> S;
      const size_t blk = static_cast<size_t>(cyp) * bw + cxp;
      const float range = ws.blkMean[blk] - ws.blkLo[blk];
      // one- and two-pixel specks are mostly sensor noise: they must be clearly dark
      const float need = a <= 2 ? std::max(10.0f, 0.4f * range) : std::max(4.0f, 0.2f * range);
      if (ws.depth[i] < need) continue;
    }
    Blob b;
    b.area = a;
    b.w = w;
    b.h = h;
    b.x = static_cast<float>(ws.sumX2[i]) / (2.0f * a);
    b.y = static_cast<float>(ws.sumY2[i]) / (2.0f * a);
    b.d = std::sqrt(4.0f * a / 3.14159265f);
    b.depth = ws.depth[i];
    out.push_back(b);
    if (static_cast<int>(out.size()) >= p.maxBlobs) return false;
  }
  return true;
}

}  // namespace

bool locateDots(const GreyImage& img, const LocateParams& p, LocateWorkspace& ws, std::vector<Blob>& out) {
  out.clear();
  if (!img.valid()) return true;
#ifdef DC_PROF
  auto t0_ = std::chrono::steady_clock::now();
#endif
  const int W = img.width, H = img.height, S = p.blockShift, B = 1 << S;
  const size_t nb = static_cast<size_t>((W + B - 1) >> S) * ((H + B - 1) >> S);
  const int R = p.radiusBlocks;
  const bool reuse = p.reuseStats && ws.statsData == img.data && ws.statsW == W && ws.statsH == H &&
      ws.statsStride == img.stride && ws.statsShift == S && ws.statsRadius == R;
  if (!reuse) blockStatistics(img, S, R, ws);
  PPROF("  blockstats %.2fms\n", PPROF_MS_SINCE(t0_));
  blockThresholds(p, nb, ws);
  PPROF("  thresholds %.2fms\n", PPROF_MS_SINCE(t0_));
  if (!extractRuns(img, p, ws)) return false;
  PPROF("  runs %.2fms\n", PPROF_MS_SINCE(t0_));
  joinRuns(H, ws);
  PPROF("  union %.2fms\n", PPROF_MS_SINCE(t0_));
  componentStats(W, H, ws);
  PPROF("  stats %.2fms\n", PPROF_MS_SINCE(t0_));
  return keepDotShapes(img, p, ws, out);
}

void SpatialIndex::build(const std::vector<Blob>& blobs, int width, int height, float cell) {
  blobs_ = &blobs;
  cell_ = std::max(2.0f, cell);
  gw_ = std::max(1, static_cast<int>(width / cell_) + 1);
  gh_ = std::max(1, static_cast<int>(height / cell_) + 1);
  start_.assign(static_cast<size_t>(gw_) * gh_ + 1, 0);
  items_.resize(blobs.size());
  auto cellOf = [&](const Blob& b) {
    int cx = std::min(gw_ - 1, std::max(0, static_cast<int>(b.x / cell_)));
    int cy = std::min(gh_ - 1, std::max(0, static_cast<int>(b.y / cell_)));
    return cy * gw_ + cx;
  };
  for (const Blob& b : blobs) ++start_[cellOf(b) + 1];
  for (size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
  std::vector<int32_t> fill(start_.begin(), start_.end() - 1);
  for (size_t i = 0; i < blobs.size(); ++i) items_[fill[cellOf(blobs[i])]++] = static_cast<int32_t>(i);
}

int SpatialIndex::nearest(float x, float y, float r, const std::vector<Blob>& blobs) const {
  int best = -1;
  float bestD = r * r + 1;
  forEachNear(x, y, r, [&](int i) {
    float dx = blobs[i].x - x, dy = blobs[i].y - y, d2 = dx * dx + dy * dy;
    if (d2 < bestD) {
      bestD = d2;
      best = i;
    }
  });
  return best;
}

}  // namespace det
}  // namespace dc
