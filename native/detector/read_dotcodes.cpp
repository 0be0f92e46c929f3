// The detector's driver: passes over the image, candidates per pass, grid hypotheses per
// candidate, decodeDotGrid on each. The first pass is the cheap one; the harder passes run only
// when it found nothing. Work per image is bounded by ReadOptions.timeBudgetMs and by caps on
// the number of runs, blobs, clusters and lattice dots.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "detector/detector_internal.h"
#include "detector/dotcode_reader.h"

namespace dc {
namespace det {

namespace {

using Clock = std::chrono::steady_clock;

struct Pass {
  const char* via;
  bool dark;
  float alpha;
  int minContrast;
  int scale;  // 1: as is; 2: upsampled twice (tiny dots)
};

// fast: the common case. adaptive: a stricter threshold splits dots merged by ink spread or
// blur and a lower contrast floor finds faint prints. inverted: light dots on dark (laser-etched,
// reversed print). scaled: dots of 2-3 px are too small for blob shapes at full size.
const Pass kFastPass = {"dotcode:fast", true, 0.15f, 24, 1};
const Pass kHardPasses[] = {
    {"dotcode:inverted", false, 0.15f, 24, 1},
    {"dotcode:adaptive", true, 0.5f, 12, 1},
    {"dotcode:scaled", true, 0.3f, 16, 2},
    {"dotcode:inverted", false, 0.5f, 12, 1},
};

struct Workspace {
  LocateWorkspace locate;
  std::vector<Blob> blobs;
  std::vector<uint8_t> scaled;
};

Workspace& workspace() {
  thread_local Workspace ws;
  return ws;
}

// Bilinear 2x upsampling.
void upsample2(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out) {
  const int W = in.width * 2, H = in.height * 2;
  buf.resize(static_cast<size_t>(W) * H);
  for (int y = 0; y < H; ++y) {
    float sy = (y + 0.5f) / 2 - 0.5f;
    int y0 = std::max(0, static_cast<int>(std::floor(sy)));
    int y1 = std::min(in.height - 1, y0 + 1);
    float fy = std::min(1.0f, std::max(0.0f, sy - y0));
    for (int x = 0; x < W; ++x) {
      float sx = (x + 0.5f) / 2 - 0.5f;
      int x0 = std::max(0, static_cast<int>(std::floor(sx)));
      int x1 = std::min(in.width - 1, x0 + 1);
      float fx = std::min(1.0f, std::max(0.0f, sx - x0));
      float v = (in.at(x0, y0) * (1 - fx) + in.at(x1, y0) * fx) * (1 - fy) + (in.at(x0, y1) * (1 - fx) + in.at(x1, y1) * fx) * fy;
      buf[static_cast<size_t>(y) * W + x] = static_cast<uint8_t>(v + 0.5f);
    }
  }
  out.data = buf.data();
  out.width = W;
  out.height = H;
  out.stride = W;
}

struct Extent {
  int rowMin, rows, colMin, cols;
};

// The extent hypotheses for a lattice, most likely first. Every edge of a DotCode holds a dot, so
// the dots' bounding box is the symbol unless an edge dot was lost (extent one short) or a stray
// blob sat on the lattice just outside (one long). H+W must be odd.
void extentHypotheses(const LatticeFit& f, std::vector<Extent>& out) {
  out.clear();
  const Extent base{f.rowMin, f.rowMax - f.rowMin + 1, f.colMin, f.colMax - f.colMin + 1};
  auto add = [&](int dTop, int dBottom, int dLeft, int dRight) {
    Extent e{base.rowMin - dTop, base.rows + dTop + dBottom, base.colMin - dLeft, base.cols + dLeft + dRight};
    if (e.rows < 5 || e.cols < 5 || e.rows > 200 || e.cols > 200) return;
    if (((e.rows + e.cols) & 1) == 0) return;
    out.push_back(e);
  };
  if (((base.rows + base.cols) & 1) == 1) {
    add(0, 0, 0, 0);
    // both dimensions off by one (a lost corner dot, a stray beyond a corner)
    add(1, 0, 1, 0); add(1, 0, 0, 1); add(0, 1, 1, 0); add(0, 1, 0, 1);
    add(-1, 0, -1, 0); add(-1, 0, 0, -1); add(0, -1, -1, 0); add(0, -1, 0, -1);
  } else {
    add(1, 0, 0, 0); add(0, 1, 0, 0); add(0, 0, 1, 0); add(0, 0, 0, 1);
    add(-1, 0, 0, 0); add(0, -1, 0, 0); add(0, 0, -1, 0); add(0, 0, 0, -1);
  }
}

struct Candidate {
  LatticeFit fit;
  GridMapper mapper;
  SampleContext ctx;
};

// Runs one pass: locate, group, fit. Calls onCandidate for each lattice; it returns false to stop.
template <class F>
void runPass(const GreyImage& image, const Pass& pass, Clock::time_point deadline, F&& onCandidate) {
  Workspace& ws = workspace();
  GreyImage img = image;
  if (pass.scale == 2) {
    if (static_cast<double>(image.width) * image.height > 1.5e6) return;  // tiny dots only matter on small frames
    upsample2(image, ws.scaled, img);
  }
  LocateParams lp;
  lp.dark = pass.dark;
  lp.alpha = pass.alpha;
  lp.minContrast = pass.minContrast;
  locateDots(img, lp, ws.locate, ws.blobs);
  if (ws.blobs.size() < 15 || Clock::now() > deadline) return;
  std::vector<float> ds;
  ds.reserve(ws.blobs.size());
  for (const Blob& b : ws.blobs) ds.push_back(b.d);
  std::nth_element(ds.begin(), ds.begin() + ds.size() / 2, ds.end());
  SpatialIndex index;
  index.build(ws.blobs, img.width, img.height, std::min(64.0f, std::max(4.0f, 3.0f * ds[ds.size() / 2])));
  std::vector<std::vector<int>> clusters;
  groupDots(ws.blobs, index, 15, clusters);
  std::vector<uint8_t> used(ws.blobs.size(), 0);
  int tried = 0;
  for (const auto& cluster : clusters) {
    if (++tried > 24 || Clock::now() > deadline) break;
    // a cluster mostly consumed by an earlier lattice is not tried again
    int fresh = 0;
    for (int k : cluster) fresh += used[k] ? 0 : 1;
    if (fresh < 15) continue;
    Candidate cand;
    if (!fitLattice(ws.blobs, index, cluster, used, cand.fit)) continue;
    if (!cand.mapper.fit(ws.blobs, cand.fit)) continue;
    cand.ctx.img = &img;
    cand.ctx.mapper = &cand.mapper;
    cand.ctx.dark = pass.dark;
    cand.ctx.parity = (cand.fit.dots[0].row + cand.fit.dots[0].col) & 1;
    cand.ctx.pitch = cand.fit.pitch;
    calibrateLevels(cand.ctx, ws.blobs, cand.fit);
    if (!onCandidate(cand, static_cast<float>(pass.scale))) return;
  }
}

void cornersOf(const GridMapper& m, const Extent& e, float scale, PointF out[4]) {
  const float r0 = static_cast<float>(e.rowMin), r1 = static_cast<float>(e.rowMin + e.rows - 1);
  const float c0 = static_cast<float>(e.colMin), c1 = static_cast<float>(e.colMin + e.cols - 1);
  PointF p[4] = {m.map(r0, c0), m.map(r0, c1), m.map(r1, c1), m.map(r1, c0)};
  for (int k = 0; k < 4; ++k) out[k] = PointF{p[k].x / scale, p[k].y / scale};
}

}  // namespace

std::vector<GridCandidate> findGridCandidates(const GreyImage& image, const ReadOptions& options) {
  std::vector<GridCandidate> out;
  if (!image.valid()) return out;
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(options.timeBudgetMs * 1000));
  std::vector<Extent> hyps;
  auto collect = [&](const Pass& pass) {
    runPass(image, pass, deadline, [&](Candidate& cand, float scale) {
      extentHypotheses(cand.fit, hyps);
      if (hyps.empty()) return true;
      const Extent& e = hyps[0];
      GridCandidate gc;
      gc.grid = sampleGrid(cand.ctx, cand.fit, e.rowMin, e.rows, e.colMin, e.cols);
      gc.via = pass.via;
      gc.latticeDots = static_cast<int>(cand.fit.dots.size());
      cornersOf(cand.mapper, e, scale, gc.corners);
      out.push_back(std::move(gc));
      return true;
    });
  };
  collect(kFastPass);
  if (out.empty() && options.tryHarder)
    for (const Pass& p : kHardPasses) {
      collect(p);
      if (!out.empty()) break;
    }
  return out;
}

}  // namespace det

std::vector<ReadResult> readDotCodes(const GreyImage& image, const ReadOptions& options) {
  using namespace det;
  std::vector<ReadResult> results;
  if (!image.valid() || options.maxSymbols <= 0) return results;
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, options.timeBudgetMs) * 1000));
  std::vector<Extent> hyps;
  auto attempt = [&](const Pass& pass) {
    runPass(image, pass, deadline, [&](Candidate& cand, float scale) {
      extentHypotheses(cand.fit, hyps);
      for (const Extent& e : hyps) {
        if (Clock::now() > deadline) return false;
        DotGrid grid = sampleGrid(cand.ctx, cand.fit, e.rowMin, e.rows, e.colMin, e.cols);
        std::optional<DotCodeSymbol> sym = decodeDotGrid(grid);
        if (!sym) continue;
        ReadResult r;
        r.symbol = std::move(*sym);
        r.via = pass.via;
        cornersOf(cand.mapper, e, scale, r.corners);
        results.push_back(std::move(r));
        break;
      }
      return static_cast<int>(results.size()) < options.maxSymbols;
    });
  };
  attempt(kFastPass);
  if (results.empty() && options.tryHarder)
    for (const Pass& p : kHardPasses) {
      attempt(p);
      if (!results.empty()) break;
    }
  return results;
}

}  // namespace dc
