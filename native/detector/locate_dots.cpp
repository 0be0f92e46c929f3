// Stage 1: candidate dots. A local threshold (block statistics over a neighbourhood, so uneven
// lighting does not matter) marks foreground pixels of one polarity; 4-connected runs are joined
// into blobs; blobs that cannot be a printed dot (too big, too thin, too sparse) are dropped.
//
// 4-connectivity on purpose: in a DotCode the nearest dots are diagonal neighbours, and with ink
// spread or blur they tend to touch at a corner first; 8-connectivity would merge them.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"
#include "detector/wide_vectors.h"

namespace dc {
namespace det {

namespace {

// Separable box sum (radius r) over a bw x bh int grid, in place via tmp. Rows are summed
// along a sliding window, then whole rows are added and removed (the vertical pass runs along
// the rows, so it vectorises and stays in the cache).
DC_WIDE_VECTORS void boxSum(std::vector<int32_t>& v, std::vector<int32_t>& tmp, std::vector<int32_t>& acc, int bw, int bh, int r) {
  tmp.resize(v.size());
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
  acc.assign(static_cast<size_t>(bw), 0);
  int32_t* a = acc.data();
  for (int y = 0; y <= std::min(r, bh - 1); ++y) {
    const int32_t* t = &tmp[static_cast<size_t>(y) * bw];
    for (int x = 0; x < bw; ++x) a[x] += t[x];
  }
  for (int y = 0; y < bh; ++y) {
    int32_t* out = &v[static_cast<size_t>(y) * bw];
    for (int x = 0; x < bw; ++x) out[x] = a[x];
    if (y + r + 1 < bh) {
      const int32_t* t = &tmp[static_cast<size_t>(y + r + 1) * bw];
      for (int x = 0; x < bw; ++x) a[x] += t[x];
    }
    if (y - r >= 0) {
      const int32_t* t = &tmp[static_cast<size_t>(y - r) * bw];
      for (int x = 0; x < bw; ++x) a[x] -= t[x];
    }
  }
}

template <bool kMax>
inline uint8_t pick(uint8_t a, uint8_t b) {
  return kMax ? (a > b ? a : b) : (a < b ? a : b);
}

// Separable min (kMax false) or max filter of radius r over a bw x bh byte grid. Both passes
// are plain loops over whole rows (shifted rows for the horizontal one), which the compiler
// vectorises; only the r cells at each row end take the window shrunk to the grid.
template <bool kMax>
void minMaxFilter(std::vector<uint8_t>& v, std::vector<uint8_t>& tmp, int bw, int bh, int r) {
  tmp.resize(v.size());
  for (int y = 0; y < bh; ++y) {
    const uint8_t* src = &v[static_cast<size_t>(y) * bw];
    uint8_t* dst = &tmp[static_cast<size_t>(y) * bw];
    const int lo = std::min(r, bw), hi = std::max(lo, bw - r);  // [lo, hi): the full window fits
    for (int x = lo; x < hi; ++x) dst[x] = src[x - r];
    for (int k = -r + 1; k <= r; ++k)
      for (int x = lo; x < hi; ++x) dst[x] = pick<kMax>(dst[x], src[x + k]);
    for (int x = 0; x < bw; ++x) {
      if (x == lo) x = hi;
      if (x >= bw) break;
      uint8_t m = src[std::max(0, x - r)];
      for (int k = std::max(0, x - r) + 1; k <= std::min(bw - 1, x + r); ++k) m = pick<kMax>(m, src[k]);
      dst[x] = m;
    }
  }
  for (int y = 0; y < bh; ++y) {
    const int a = std::max(0, y - r), b = std::min(bh - 1, y + r);
    uint8_t* dst = &v[static_cast<size_t>(y) * bw];
    const uint8_t* first = &tmp[static_cast<size_t>(a) * bw];
    for (int x = 0; x < bw; ++x) dst[x] = first[x];
    for (int k = a + 1; k <= b; ++k) {
      const uint8_t* s = &tmp[static_cast<size_t>(k) * bw];
      for (int x = 0; x < bw; ++x) dst[x] = pick<kMax>(dst[x], s[x]);
    }
  }
}

// A block whose sampled rows span less than this is "flat" (below every pass' contrast floor
// of 12..24 grey levels, with margin for the rows that were not sampled).
constexpr int kFlatRange = 32;

// Per column, over the rows y0, y0 + step, ... below y1: minimum, maximum and sum (whole rows
// at a time, so the loops vectorise), then folded per block of 2^S columns into bMin, bMax, bSum
// (one value per block; the columns are padded to whole blocks with neutral values).
DC_WIDE_VECTORS void blockRowStats(const GreyImage& img, int y0, int y1, int step, int S, LocateWorkspace& ws) {
  const int W = img.width, Wp = ((W + (1 << S) - 1) >> S) << S;
  ws.colMin.resize(static_cast<size_t>(Wp));
  ws.colMax.resize(static_cast<size_t>(Wp));
  ws.colSum.resize(static_cast<size_t>(Wp));
  uint8_t* mn = ws.colMin.data();
  uint8_t* mx = ws.colMax.data();
  uint16_t* sum = ws.colSum.data();
  {
    const uint8_t* row = img.data + static_cast<size_t>(y0) * img.stride;
    for (int x = 0; x < W; ++x) {
      mn[x] = row[x];
      mx[x] = row[x];
      sum[x] = row[x];
    }
  }
  for (int y = y0 + step; y < y1; y += step) {
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    for (int x = 0; x < W; ++x) {
      mn[x] = row[x] < mn[x] ? row[x] : mn[x];
      mx[x] = row[x] > mx[x] ? row[x] : mx[x];
      sum[x] = static_cast<uint16_t>(sum[x] + row[x]);
    }
  }
  for (int x = W; x < Wp; ++x) {
    mn[x] = 255;
    mx[x] = 0;
    sum[x] = 0;
  }
  // pairs, quads, ...: each step folds neighbouring pairs into half as many values, so after S
  // steps value bx is block bx's (ping-pong buffers, so every step is a plain loop the compiler
  // vectorises; halving the values each step does an eighth of the work of folding every column)
  ws.foldMin.resize(static_cast<size_t>(Wp));
  ws.foldMax.resize(static_cast<size_t>(Wp));
  ws.foldSum.resize(static_cast<size_t>(Wp));
  uint8_t* fmn = ws.foldMin.data();
  uint8_t* fmx = ws.foldMax.data();
  uint16_t* fsum = ws.foldSum.data();
  for (int n = Wp / 2; n >= Wp >> S; n /= 2) {
    // (three loops: one with all six arrays has too many possible overlaps to vectorise)
    for (int x = 0; x < n; ++x) fmn[x] = mn[2 * x + 1] < mn[2 * x] ? mn[2 * x + 1] : mn[2 * x];
    for (int x = 0; x < n; ++x) fmx[x] = mx[2 * x + 1] > mx[2 * x] ? mx[2 * x + 1] : mx[2 * x];
    for (int x = 0; x < n; ++x) fsum[x] = static_cast<uint16_t>(sum[2 * x] + sum[2 * x + 1]);
    std::swap(mn, fmn);
    std::swap(mx, fmx);
    std::swap(sum, fsum);
  }
  const int bw = Wp >> S;
  ws.bMin.assign(mn, mn + bw);
  ws.bMax.assign(mx, mx + bw);
  ws.bSum.assign(sum, sum + bw);
}

// Block statistics of the image itself (sum, count, neighbourhood minimum and maximum per
// block); both polarities derive from them, so a second pass over the same frame reuses them.
DC_WIDE_VECTORS void blockStatistics(const GreyImage& img, int S, int R, LocateWorkspace& ws) {
  const int W = img.width, H = img.height, B = 1 << S;
  const int bw = (W + B - 1) >> S, bh = (H + B - 1) >> S;
  const size_t nb = static_cast<size_t>(bw) * bh;
  ws.blockSum.resize(nb);
  ws.blockCnt.resize(nb);
  ws.rawMin.resize(nb);
  ws.rawMax.resize(nb);
  // Every other row is enough for neighbourhood statistics (half the cost); the exact
  // per-segment minimum is tested again when the runs are extracted.
  const int step = H >= 2 * B ? 2 : 1;
  for (int by = 0; by < bh; ++by) {
    const int y0 = by << S, y1 = std::min(H, y0 + B);
    blockRowStats(img, y0, y1, step, S, ws);
    const int rows = (y1 - y0 + step - 1) / step;
    const size_t base = static_cast<size_t>(by) * bw;
    for (int bx = 0; bx < bw; ++bx) {
      ws.blockSum[base + bx] = ws.bSum[bx];
      ws.blockCnt[base + bx] = rows * (std::min(W, (bx + 1) << S) - (bx << S));
      ws.rawMin[base + bx] = ws.bMin[bx];
      ws.rawMax[base + bx] = ws.bMax[bx];
    }
  }
  boxSum(ws.blockSum, ws.tmpA, ws.tmpB, bw, bh, R);
  boxSum(ws.blockCnt, ws.tmpA, ws.tmpB, bw, bh, R);
  ws.blockMin = ws.rawMin;
  ws.blockMax = ws.rawMax;
  minMaxFilter<false>(ws.blockMin, ws.tmpBytes, bw, bh, R);
  minMaxFilter<true>(ws.blockMax, ws.tmpBytes, bw, bh, R);
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
    for (int by = 0; by < bh; ++by) {
      const size_t base = static_cast<size_t>(by) * bw;
      bool anyFlat = false;
      for (int bx = 0; bx < bw && !anyFlat; ++bx) anyFlat = ws.blockMax[base + bx] - ws.blockMin[base + bx] < kFlatRange;
      const int y0 = (by << S) + 1, y1 = std::min(H, (by + 1) << S);
      if (!anyFlat || y0 >= y1) continue;
      blockRowStats(img, y0, y1, 2, S, ws);
      for (int bx = 0; bx < bw; ++bx) {
        const size_t k = base + bx;
        if (ws.blockMax[k] - ws.blockMin[k] >= kFlatRange) continue;
        if (ws.bMin[bx] + kFlatRange < ws.rawMin[k]) ws.rawMin[k] = ws.bMin[bx], changed = true;
        if (ws.bMax[bx] > ws.rawMax[k] + kFlatRange) ws.rawMax[k] = ws.bMax[bx], changed = true;
      }
    }
    if (changed) {
      ws.blockMin = ws.rawMin;
      ws.blockMax = ws.rawMax;
      minMaxFilter<false>(ws.blockMin, ws.tmpBytes, bw, bh, R);
      minMaxFilter<true>(ws.blockMax, ws.tmpBytes, bw, bh, R);
    }
  }
  ws.statsData = img.data;
  ws.statsW = W;
  ws.statsH = H;
  ws.statsStride = img.stride;
  ws.statsShift = S;
  ws.statsRadius = R;
}

// The statistics of an earlier reuseStats call on the same image (address, size, stride) and
// block layout, made current; false when none was kept.
bool takeKeptStats(const GreyImage& img, int S, int R, LocateWorkspace& ws) {
  for (const LocateWorkspace::KeptStats& k : ws.kept) {
    if (k.data != img.data || k.w != img.width || k.h != img.height || k.stride != img.stride || k.shift != S ||
        k.radius != R)
      continue;
    ws.blockSum = k.blockSum;
    ws.blockCnt = k.blockCnt;
    ws.blockMin = k.blockMin;
    ws.blockMax = k.blockMax;
    ws.statsData = img.data;
    ws.statsW = img.width;
    ws.statsH = img.height;
    ws.statsStride = img.stride;
    ws.statsShift = S;
    ws.statsRadius = R;
    return true;
  }
  return false;
}

// Keeps the current statistics for later reuseStats calls (up to kMaxKeptStats).
void keepStats(LocateWorkspace& ws) {
  if (ws.kept.size() >= LocateWorkspace::kMaxKeptStats) return;
  ws.kept.push_back({ws.statsData, ws.statsW, ws.statsH, ws.statsStride, ws.statsShift, ws.statsRadius, ws.blockSum,
                     ws.blockCnt, ws.blockMin, ws.blockMax});
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

// out[x] = how far the pixel (in dark form) lies below its threshold, 0 where it does not: the
// foreground and each pixel's depth in one saturating subtraction (a loop of its own: inside
// the run extraction the compiler does not vectorise it).
DC_WIDE_VECTORS void foregroundDepth(const uint8_t* row, const uint8_t* thr, uint8_t xorMask, uint8_t* out, int n) {
  for (int x = 0; x < n; ++x) {
    const uint8_t v = static_cast<uint8_t>(row[x] ^ xorMask);
    out[x] = thr[x] > v ? static_cast<uint8_t>(thr[x] - v) : 0;
  }
}

// Foreground runs, row by row (ws.run*, ws.rowStart). False when p.maxRuns was exceeded.
// Eight mask bytes are read as one 64-bit word, byte i at bits 8i..8i+7: every target (x86-64,
// arm64, WebAssembly) is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "extractRuns reads mask bytes as little-endian words");
constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL, kHigh = 0x8080808080808080ULL;

// The index (0..7) of the lowest byte whose top bit is set in m (m != 0).
inline int byteIndex(uint64_t m) { return __builtin_ctzll(m) >> 3; }

// Each row is first turned into bytes of how far each pixel lies beyond its block's threshold
// (0: background), a plain loop the compiler vectorises; they are then scanned eight at a time,
// and most of a frame holds no foreground, so the per-pixel run logic sees only the few
// segments that do.
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
  ws.rowStart.resize(static_cast<size_t>(H) + 1);
  // per pixel of the current block row: its block's threshold (0 where flat: nothing is below)
  ws.thrRow.resize(static_cast<size_t>(W));
  ws.fg.resize(static_cast<size_t>(W) + 8);
  uint8_t* thrRow = ws.thrRow.data();
  uint8_t* fg = ws.fg.data();
  bool capped = false;
  for (int y = 0; y < H && !capped; ++y) {
    ws.rowStart[y] = static_cast<int32_t>(ws.runX0.size());
    const uint8_t* row = img.data + static_cast<size_t>(y) * img.stride;
    if ((y & (B - 1)) == 0) {
      const int16_t* thr = &ws.thr[static_cast<size_t>(y >> S) * bw];
      for (int bx = 0; bx < bw; ++bx) {
        const int x0 = bx << S, len = std::min(W, x0 + B) - x0;
        const uint8_t t = static_cast<uint8_t>(std::max<int16_t>(0, std::min<int16_t>(255, thr[bx])));
        if (len == 8) {  // (the usual 8-pixel block: one word store, not a memset call per block)
          const uint64_t spread = 0x0101010101010101ULL * t;
          std::memcpy(thrRow + x0, &spread, 8);
        } else {
          std::memset(thrRow + x0, t, static_cast<size_t>(len));
        }
      }
    }
    foregroundDepth(row, thrRow, xorMask, fg, W);
    int runStart = -1, depth = 0;
    auto closeRun = [&](int x) {
      ws.runX0.push_back(runStart);
      ws.runX1.push_back(x);
      ws.runY.push_back(y);
      ws.runDepth.push_back(depth);
      runStart = -1;
    };
    int x = 0;
    for (; x + 8 <= W; x += 8) {
      uint64_t word;
      std::memcpy(&word, fg + x, 8);
      if (word == 0) {
        if (runStart >= 0) closeRun(x);
        // background goes on for long stretches: skip it two words at a time
        for (uint64_t a, b; x + 24 <= W; x += 16) {
          std::memcpy(&a, fg + x + 8, 8);
          std::memcpy(&b, fg + x + 16, 8);
          if ((a | b) != 0) break;
        }
        continue;
      }
      // the top bit of every nonzero byte; byte i of the word is fg[x + i] (little-endian)
      const uint64_t nz = (((word & kLow7) + kLow7) | word) & kHigh;
      for (int i = 0; i < 8;) {
        if (runStart < 0) {
          const uint64_t rest = nz >> (8 * i);
          if (rest == 0) break;
          i += byteIndex(rest);
          runStart = x + i;
          depth = 0;
        }
        const uint64_t zeros = (~nz & kHigh) >> (8 * i);
        const int end = zeros ? i + byteIndex(zeros) : 8;
        for (int k = i; k < end; ++k) depth = std::max<int>(depth, fg[x + k]);
        if (end < 8) closeRun(x + end);
        i = end;
      }
    }
    for (; x < W; ++x) {
      if (fg[x]) {
        if (runStart < 0) {
          runStart = x;
          depth = 0;
        }
        depth = std::max<int>(depth, fg[x]);
      } else if (runStart >= 0) {
        closeRun(x);
      }
    }
    if (runStart >= 0) closeRun(W);
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
  if (!reuse && !(p.reuseStats && takeKeptStats(img, S, R, ws))) {
    blockStatistics(img, S, R, ws);
    if (p.reuseStats) keepStats(ws);
  }
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
  xs_.resize(items_.size());
  ys_.resize(items_.size());
  for (size_t k = 0; k < items_.size(); ++k) {
    xs_[k] = blobs[items_[k]].x;
    ys_[k] = blobs[items_[k]].y;
  }
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
