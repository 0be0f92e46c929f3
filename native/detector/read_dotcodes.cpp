// The detector's driver: passes over the image, candidates per pass, grid hypotheses per
// candidate, decodeDotGrid on each. The first pass is the cheap one; the harder passes run only
// when it found nothing. Work per image is bounded by ReadOptions.timeBudgetMs and by caps on
// the number of runs, blobs, clusters and lattice dots.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"
#include "detector/grid_candidates.h"
#include "detector/plane_pool.h"
#include "detector/dotcode_reader.h"
#include "detector/work_clock.h"
#include "dotcode/grid_orientation.h"
#include "dotcode/symbol_writer.h"
#ifdef DC_PROF
#include <ctime>
#endif

namespace dc {
namespace det {

namespace {

using Clock = WorkClock;  // the budget counts this thread's work, not the machine's load

struct Pass {
  const char* via;
  bool dark;
  float alpha;
  int minContrast;
  bool peaks = false;  // candidates are response maxima (locate_peaks.cpp), not thresholded blobs
};

// fast: the common case, dark dots. inverted: light dots on dark (laser-etched, reversed print);
// both always run (most frames hold no symbol, so these two are what a frame costs).
// adaptive: a stricter threshold splits dots merged by ink spread or blur, and a lower contrast
// floor finds faint prints; it runs only for a polarity where the cheap pass saw something
// lattice-like. scaled: dots of 2-3 px are too small for blob shapes, so regions holding clusters
// of tiny blobs are upsampled twice and read again.
const Pass kFast = {"dotcode:fast", true, 0.15f, 24};
const Pass kInverted = {"dotcode:inverted", false, 0.15f, 24};
const Pass kAdaptive = {"dotcode:adaptive", true, 0.5f, 12};
const Pass kAdaptiveInverted = {"dotcode:inverted", false, 0.5f, 12};
const Pass kScaled = {"dotcode:scaled", true, 0.3f, 16};
// sharpened: strong defocus and motion blur merge neighbouring dots into chains that no threshold
// splits, but the saddle between two dots stays lighter than the dots. A high-pass image (the
// pixel minus the mean over a window of about one dot) turns each dot into its own blob and
// levels the contrast; the adaptive threshold runs on it (the fast one finds thousands of noise
// blobs in a high-pass image).
const Pass kSharpenedAdaptive = {"dotcode:sharpened", true, 0.5f, 12};
// deblurred: defocus and motion blur so strong that even the high-pass image holds too few
// separate dots: the region's blur is estimated and deconvolved (deblur_region.cpp), and both
// thresholds read the result. The deconvolution keeps the print's polarity: light dots (where the
// window's ground is dark) are thresholded as such first, else only the peaks pass, the last and
// slowest, read light dots under heavy blur.
const Pass kDeblurredFast = {"dotcode:deblurred", true, 0.15f, 24};
const Pass kDeblurredAdaptive = {"dotcode:deblurred", true, 0.5f, 12};
const Pass kDeblurredInverted = {"dotcode:deblurred", false, 0.15f, 24};
const Pass kDeblurredAdaptiveInverted = {"dotcode:deblurred", false, 0.5f, 12};
// peaks: small dots (2-4 px per module) that touch their neighbours or stand only a few grey
// levels out of their ground (tobacco packs: light dots on a small dark panel under cellophane).
const Pass kPeaksLight = {"dotcode:peaks", false, 0, 4, true};
const Pass kPeaksDark = {"dotcode:peaks", true, 0, 4, true};

struct Workspace {
  LocateWorkspace locate;
  PeakWorkspace peaks;
  std::vector<Blob> blobs;
  std::vector<uint8_t> scaled;
  std::vector<uint32_t> integral;
  std::vector<uint8_t> sharpened;
  std::vector<uint8_t> half;
};

Workspace& workspace() {
  thread_local Workspace ws;
  return ws;
}

struct Rect {
  int x0, y0, x1, y1;
};

bool sameRect(const Rect& a, const Rect& b) { return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1; }
bool overlaps(const Rect& a, const Rect& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }
double areaOf(const Rect& r) { return static_cast<double>(r.x1 - r.x0) * (r.y1 - r.y0); }

// highPass for the columns [xa, xb), whose box (2R+1 wide) lies inside the crop: the same
// arithmetic per pixel, in a loop the compiler vectorises.
void highPassInterior(const uint8_t* row, const uint32_t* top, const uint32_t* bot, int R, float area, float gain,
                      uint8_t* out, int xa, int xb) {
  for (int x = xa; x < xb; ++x) {
    const float mean = static_cast<float>(bot[x + R + 1] - bot[x - R] - top[x + R + 1] + top[x - R]) / area;
    const float v = 128.0f + gain * (row[x] - mean);
    out[x] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v + 0.5f)));
  }
}

// High-pass image of a crop: 128 + gain * (pixel - mean over a (2R+1)^2 box), clamped. The box
// mean comes from an integral image (exact in 32 bits: at most 255 * 2^24 pixels per crop).
void highPass(const GreyImage& in, int R, float gain, std::vector<uint32_t>& integral, std::vector<uint8_t>& buf,
              GreyImage& out) {
  const int W = in.width, H = in.height, W1 = W + 1;
  integral.assign(static_cast<size_t>(W1) * (H + 1), 0);
  for (int y = 0; y < H; ++y) {
    uint32_t rowSum = 0;
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    uint32_t* cur = &integral[static_cast<size_t>(y + 1) * W1];
    const uint32_t* prev = &integral[static_cast<size_t>(y) * W1];
    for (int x = 0; x < W; ++x) {
      rowSum += row[x];
      cur[x + 1] = prev[x + 1] + rowSum;
    }
  }
  buf.resize(static_cast<size_t>(W) * H);
  // columns whose box lies inside the crop: one window size, contiguous loads (vectorises)
  const int xa = std::min(R, W), xb = std::max(xa, W - R - 1);
  for (int y = 0; y < H; ++y) {
    const int y0 = std::max(0, y - R), y1 = std::min(H, y + R + 1);
    const uint8_t* row = in.data + static_cast<size_t>(y) * in.stride;
    const uint32_t* top = &integral[static_cast<size_t>(y0) * W1];
    const uint32_t* bot = &integral[static_cast<size_t>(y1) * W1];
    uint8_t* out = &buf[static_cast<size_t>(y) * W];
    auto pixel = [&](int x, int x0, int x1) {
      const float mean = static_cast<float>(bot[x1] - bot[x0] - top[x1] + top[x0]) / static_cast<float>((x1 - x0) * (y1 - y0));
      const float v = 128.0f + gain * (row[x] - mean);
      out[x] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v + 0.5f)));
    };
    for (int x = 0; x < W; ++x) {
      if (x == xa) x = xb;
      if (x >= W) break;
      pixel(x, std::max(0, x - R), std::min(W, x + R + 1));
    }
    highPassInterior(row, top, bot, R, static_cast<float>((2 * R + 1) * (y1 - y0)), gain, out, xa, xb);
  }
  out = GreyImage::packed(buf.data(), W, H);
}

// What a pass saw, to decide whether the harder passes are worth their time.
struct PassStats {
  bool lattice = false;    // a cluster looked like a dot lattice
  int rejectedShapes = 0;  // blob-like components too big or irregular for a dot (merged dots?)
  std::vector<Rect> tiny;  // regions of lattice-like clusters of very small dots
  // Regions where a harder pass could succeed: lattice-like clusters that did not read, and
  // filled components too big for a dot (dots merged by blur or ink spread).
  std::vector<Rect> focus;
  float medianD = 0;           // median blob diameter of the last run (0: too few blobs)
  int clusters = 0;            // clusters of similar dots the last run grouped (textures excluded)
  std::vector<Rect> merged;    // the filled components too big for a dot (pass coordinates)
  std::vector<Rect> textures;  // boxes of large dotted textures (image coordinates)
  std::vector<Rect> lattices;  // boxes of the clusters that looked like a dot lattice (image coordinates)
};

// How pass coordinates map back to the caller's image: p_image = p_pass / scale + offset.
struct Frame {
  float scale = 1;
  float ox = 0, oy = 0;
};

// The regions a harder pass should read: each rectangle grown by a margin (the symbol may reach
// beyond the dots that were seen, and local thresholds need some surroundings), overlapping ones
// merged when that costs no more and the union is at most maxArea (a region larger than a pass's
// pixel budget is never read). When they cover most of the image, the image itself (one region) is cheaper.
void focusRegions(const std::vector<Rect>& in, int W, int H, std::vector<Rect>& out, bool allowWhole = true, double maxArea = 1e18) {
  out.clear();
  for (const Rect& r0 : in) {
    const int m = std::max(24, std::max(r0.x1 - r0.x0, r0.y1 - r0.y0) / 4);
    out.push_back({std::max(0, r0.x0 - m), std::max(0, r0.y0 - m), std::min(W, r0.x1 + m), std::min(H, r0.y1 + m)});
  }
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < out.size() && !merged; ++i)
      for (size_t j = i + 1; j < out.size(); ++j) {
        Rect& a = out[i];
        const Rect& b = out[j];
        const Rect u{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
        // merged only when the union costs no more than the two apart (overlap is only re-read)
        if (overlaps(a, b) && areaOf(u) <= areaOf(a) + areaOf(b) && areaOf(u) <= maxArea) {
          a = u;
          out.erase(out.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
          break;
        }
      }
  }
  double area = 0;
  for (const Rect& r : out) area += areaOf(r);
  if (allowWhole && (area > 0.85 * W * H || out.size() > 24)) out.assign(1, Rect{0, 0, W, H});
}

struct Extent {
  int rowMin, rows, colMin, cols;
  bool holds(int r, int c) const { return r >= rowMin && r < rowMin + rows && c >= colMin && c < colMin + cols; }
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
    add(1, 0, 1, 0);
    add(1, 0, 0, 1);
    add(0, 1, 1, 0);
    add(0, 1, 0, 1);
    add(-1, 0, -1, 0);
    add(-1, 0, 0, -1);
    add(0, -1, -1, 0);
    add(0, -1, 0, -1);
  } else {
    add(1, 0, 0, 0);
    add(0, 1, 0, 0);
    add(0, 0, 1, 0);
    add(0, 0, 0, 1);
    add(-1, 0, 0, 0);
    add(0, -1, 0, 0);
    add(0, 0, -1, 0);
    add(0, 0, 0, -1);
  }
}

// `e` when H+W is odd (a valid DotCode size); else one edge line was lost, and `e` one line longer
// along its rows (growRows) or its columns, at either end, are the two candidates.
template <class Push>
void withOddSize(const Extent& e, bool growRows, Push&& push) {
  if (((e.rows + e.cols) & 1) == 1) {
    push(e);
    return;
  }
  Extent e1 = e, e2 = e;
  (growRows ? e1.rows : e1.cols) += 1;
  (growRows ? e2.rows : e2.cols) += 1;
  (growRows ? e2.rowMin : e2.colMin) -= 1;
  push(e1);
  push(e2);
}

// The windows of an extent cut short by 2, 4 or 6 lines along a side (an even cut keeps H+W
// odd), taken from either end or from both, down to the smallest symbol side (5). From both:
// where glare washes out a symbol's end and the panel past it, the read's window can reach past
// the symbol at that end and stop a line short at the other, and a window longer than a symbol
// whose extra lines are erased decodes to another text for those erasures alone (the misread
// bench's model 11: 2.4% of such grids).
std::vector<Extent> shorterWindows(const Extent& e) {
  std::vector<Extent> out;
  constexpr int kLongestCut = 6;
  for (int alongCols = 0; alongCols < 2; ++alongCols)
    for (int cut = 2; cut <= kLongestCut; cut += 2)
      for (int lo = 0; lo <= cut; ++lo) {
        Extent x = e;
        int& start = alongCols ? x.colMin : x.rowMin;
        int& len = alongCols ? x.cols : x.rows;
        if (len - cut < 5) continue;
        start += lo;
        len -= cut;
        out.push_back(x);
      }
  return out;
}

// The windows of an extent grown by 2 lines at one end of a side (kept odd), or by 4 where two
// lines hold less than a codeword, up to the largest symbol side the extents allow. A symbol's
// Reed-Solomon codeword whose last word is 0 is, without that word, a codeword of the symbol one
// word shorter (the same check count), and its text lacks the last data word: a window that stops
// one codeword short of such a symbol (1 in 113), where glare or blur hid its last lines, reads
// the text cut short. (Two words short needs two zero words: 1 in 12,769.)
constexpr int kLongerWindowLines = 4;
// A read that may be cut short of a zero-ended symbol is refused where, past one end, a line with
// at least this share of its positions erased (or a clear dot) comes before one with at least
// kGlareErased erased: a glare slope that begins at the read's end and washes out what follows
// (the native stage test's faint-end stress: 29 of 600 scenes read cut short before, 9 after,
// 245 read either way; none of the reference images or renders lost a read).
constexpr float kGlareFootErased = 0.4f, kGlareErased = 0.75f;
// A read with at most this many check words to spare whose grown window adds clear dots is refused.
constexpr int kMaxSpareShortOfDots = 2;
// A small symbol's read at the correction limit whose window inks more than this share of the
// positions between its dots is refused (offParityInkShare: reads of sharp symbols at most 0.22,
// a PDF417's bars read as a symbol 0.42). Small: at most this many check words (7 data words).
constexpr float kMaxReadOffParityInk = 0.3f;
constexpr int kSmallSymbolCheckWords = 6;
std::vector<Extent> longerWindows(const Extent& e) {
  std::vector<Extent> out;
  for (int alongCols = 0; alongCols < 2; ++alongCols)
    for (int grow = 2; grow <= kLongerWindowLines; grow += 2)
      for (int atStart = 0; atStart < 2; ++atStart) {
        Extent x = e;
        int& start = alongCols ? x.colMin : x.rowMin;
        int& len = alongCols ? x.cols : x.rows;
        const int across = alongCols ? x.rows : x.cols;  // = the dot positions of two lines
        if (len + grow > 200 || (grow > 2 && across >= 9)) continue;
        if (atStart) start -= grow;
        len += grow;
        out.push_back(x);
      }
  return out;
}

// Whether a window of extent `e` could be a symbol one codeword longer cut short along its side
// `alongCols`: its total word count NW is 1 mod 3 (so NW + 1 words keep the same check count, and a
// Reed-Solomon codeword of NW + 1 words whose last word is 0 is one of NW words), and the size 2
// or 4 lines longer along that side holds NW + 1 words. Only the lines the dot stream is read in
// (the side with an odd count: columns of a column-layout symbol, rows of a row-layout one) can be
// missing from the stream's end: lines cut from the other side shorten every stream line, and the
// window's stream is then no prefix of the symbol's (of 10,000 zint symbols' windows cut 2 or 4
// lines short across that side, none decoded; along the stream lines, 10 did). A wrapped symbol's
// columns close up into erasures past its end on a cylinder, which this check read as glare.
bool cutShortPossible(const Extent& e, bool alongCols) {
  if ((alongCols ? e.cols : e.rows) % 2 == 0) return false;
  const SymbolLayout l = layoutFor(e.rows, e.cols);
  if (!l.valid || l.totalWords % 3 != 1) return false;
  for (int grow = 2; grow <= kLongerWindowLines; grow += 2) {
    const SymbolLayout longer = alongCols ? layoutFor(e.rows, e.cols + grow) : layoutFor(e.rows + grow, e.cols);
    if (longer.valid && longer.totalWords == l.totalWords + 1) return true;
  }
  return false;
}

// The extents an extended lattice's line ends allow (extendLattice), after the ones already in
// `out`: every combination of the sides' candidate ends, a short side made odd both ways.
void endHypotheses(const LineEnds& ends, std::vector<Extent>& out) {
  constexpr size_t kMaxHypotheses = 24;
  for (int a = 0; a < ends.count[0]; ++a)
    for (int b = 0; b < ends.count[1]; ++b)
      for (int c = 0; c < ends.count[2]; ++c)
        for (int d = 0; d < ends.count[3]; ++d) {
          const int r0 = ends.line[0][a], r1 = ends.line[1][b], c0 = ends.line[2][c], c1 = ends.line[3][d];
          Extent e{r0, r1 - r0 + 1, c0, c1 - c0 + 1};
          if (e.rows < 5 || e.cols < 5 || e.rows > 200 || e.cols > 200) continue;
          auto push = [&](const Extent& x) {
            for (const Extent& y : out)
              if (y.rowMin == x.rowMin && y.rows == x.rows && y.colMin == x.colMin && y.cols == x.cols) return;
            if (out.size() < kMaxHypotheses) out.push_back(x);
          };
          withOddSize(e, e.rows <= e.cols, push);  // (a lost line: the shorter side one longer)
        }
}

// A short wide lattice of small light dots often grows into the text printed just above or below
// the symbol (its strokes leave peaks on the same lattice), so its short side is too long. Every
// band of the short side down to 5 lines is one more extent, the long side as grown (one longer at
// either end where H+W would be even), the widest bands first; the decoder refuses the others.
constexpr int kMinBandLines = 5;
constexpr size_t kMaxBandHypotheses = 64;
void shortBands(const LatticeFit& f, bool alongCols, std::vector<Extent>& out) {
  const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
  const int shortLen = alongCols ? H : W, shortMin = alongCols ? f.rowMin : f.colMin;
  if (shortLen <= kMinBandLines + 2) return;
  size_t added = 0;
  for (int h = shortLen - 1; h >= kMinBandLines && added < kMaxBandHypotheses; --h)
    for (int off = 0; off + h <= shortLen && added < kMaxBandHypotheses; ++off) {
      Extent e{f.rowMin, H, f.colMin, W};
      (alongCols ? e.rowMin : e.colMin) = shortMin + off;
      (alongCols ? e.rows : e.cols) = h;
      withOddSize(e, !alongCols, [&](const Extent& x) {  // (a lost end line: the long side one longer)
        out.push_back(x);
        ++added;
      });
    }
}

// Lattices extended per image at most (extendLattice): a frame without a symbol can hold dozens of
// decoy lattices (dot-matrix text, dotted textures), each worth an extension, a new map and a
// second round of hypotheses; the symbol's own lattice is among the first few (the largest
// clusters go first). 8 costs the synthetic categories and the real photos no read and empty
// 720p frames 4% of their work (callgrind, five frames: 1387M -> 1326M instructions).
constexpr int kMaxExtendedLattices = 8;

// The deblurred pass: one region per image of at most 300k pixels (a transform of at most 1024 x
// 512). The cues that pick it: a structure tensor eigenvalue ratio over 2.5 (motion: 3.3-9.1 on
// the heavy blur renders, 1.0-1.6 on most text and texture) or edges over 2.5 px wide (defocus:
// 2.8-6.9). Its estimate must show a blur edge: an autocorrelation minimum of at least 0.15
// (0.22-0.60 on the renders) over at least 5 px (a disc of radius 2.5, a streak of 5 px: the
// empty 720p frames' regions show 3.4-4.2); the Wiener filter's regularisation 0.01 reads both
// the true and the estimated kernels (0.03 loses a sample).
constexpr double kDeblurPixels = 300000;
// A larger region (a close-up of a large symbol: 28x41 modules of 8-10 px under 0.7 module of
// defocus or 1.4-1.6 modules of motion fill 500x500 px with their margin) is deconvolved halved
// (2x2 mean) when no region within kDeblurPixels looks blurred: its blur, 10+ px, is still 5+ px
// there, and the halved region is no larger than kDeblurPixels.
constexpr double kDeblurHalvedPixels = 4 * kDeblurPixels;
constexpr float kMinBlurDepth = 0.15f;
constexpr float kMinBlurExtent = 5.0f;
// A disc's blur edge shallower than that (0.04-0.14) on a faint symbol under heavy defocus: the
// dots' blurred edges overlap, and on a vial the shading's and the silhouette's long soft edges
// add a positive correlation at every lag. Its estimate is still right (6.0 px for a disc of 6.0
// on an independent renderer's vial), but so shallow an edge is weak evidence (regions of the
// negatives, of pack renders and of real photos show it too), so such a region is deconvolved
// only once the direct stages read nothing (shallowDeblurred). An independent renderer's blurred
// cylinders, seeds 1-200: 171 -> 177 read (CLI, still budget).
constexpr float kMinShallowBlurDepth = 0.03f;
constexpr float kWienerRegularisation = 0.01f;
constexpr float kBlurredEdgeWidth = 2.5f;
// Defocus of 0.65-0.75 module: the lattice's own gradient autocorrelation (its minimum near half
// the dot spacing) merges with the disc's and pulls the estimate to 0.6-0.8 of the true radius
// (blur and blur-heavy seeds 1-400: 4.2-6.0 px estimated for 5.8-8.1 px). A defocus region that
// did not read is deconvolved again with these multiples of the estimate; each reads a different
// share of those (1.25: radii 0.72-0.8 of the truth, 1.45: 0.7, 1.7: a fragment's 0.58).
constexpr float kDefocusRetryScales[] = {1.25f, 1.45f, 1.7f};
constexpr size_t kDefocusRetries = std::size(kDefocusRetryScales);
// Only for a region that looks like a disc's blur: isotropic (the renders' 1.0-1.2) with wide
// edges (3.5-4.1 px on those that failed). The real photos' regions are mostly 1.3-2.2 (text,
// panel edges, perspective) and each retry costs 30 ms on a 640x400 region: without this bound
// two of them ran out of their 250 ms budget.
constexpr float kDefocusRetryAnisotropy = 1.25f;
constexpr float kDefocusRetryEdgeWidth = 3.2f;
// A soft region that nothing read, once every other stage is done: deconvolved again as a
// Gaussian's blur, whose sigmas in multiples of the disc estimate these are (the disc estimate of
// a Gaussian of sigma s lands at 1.2-1.6 s on blurred cylinders, so its own disc undoes too little
// at the edge and rings in the middle). Only for estimates of kMinGaussianRadius or more (a
// smaller one is a sharp image's edges) over a region grown by half its size on every side (the
// fast pass's dark focus region of a blurred symbol holds its clearest part only).
constexpr float kGaussianRetrySigmas[] = {0.55f, 0.7f, 0.85f};
constexpr float kMinGaussianRadius = 2.0f;
// The whole image's edge width (ImageBlurCues) from which its upsampled copy is soft enough for
// that stage too: 2.6-8.3 px on the small blurred cylinders that read there, 0-2 on the small sharp
// Aztec samples of the zxing corpus, which paid it on every copy (12 of them 3.69G -> 5.72G
// instructions).
constexpr float kSoftImageEdgeWidth = 2.5f;
// An image of 801-1400 px a side whose edges are this wide or wider is read halved when it reads
// nothing (readDotCodes).
constexpr float kHalveSoftEdgeWidth = 6.0f;
// On an upsampled copy, estimates over this are mostly the edges of larger shapes than dots (the
// modules of the zxing corpus' small QR Codes and Aztec photos: 5.3-11.4 px). At 5 px it cost the
// blurred cylinders' reads of modules of 5-6 px (the native test's scenes 36 -> 33 of 48); at 8 the
// nine costliest samples pay 13.5% more instructions (at 5: 4.6%).
constexpr float kMostGaussianRadiusOnCopy = 8.0f;

// Light dots smeared by motion (deblurredPeaks). The image's gradient anisotropy (ImageBlurCues):
// 1.2-1.7 on the five empty 720p frames, 3.7-31 on the real pack photos under a 5-7 px streak that
// the stage reads; 3 leaves a margin both ways. A region's estimated streak must lie within
// kMinSmear..kMaxSmear px with an autocorrelation minimum of kMinSmearDepth; the Wiener filter's
// regularisation is three times the deblurred pass's (the panels' cellophane noise).
constexpr float kSmearAnisotropy = 3.0f;
// A soft image (its edge width at least kDefocusEdgeWidth, which none of the empty frames reaches)
// needs less: a streak across a scene of strong straight edges (a case's sides, a pack's print)
// leaves the whole image's ratio at 1.35-2.9 on the real pack photos under a 7 px streak that
// read nothing; the pass reads some of those at 2 and over (the upsampled copy's ratio counts too).
constexpr float kSoftSmearAnisotropy = 2.0f;
constexpr float kMinSmear = 4.0f;
constexpr float kMaxSmear = 16.0f;
constexpr float kMinSmearDepth = 0.15f;
constexpr float kSmearRegularisation = 0.03f;
// The whole image deconvolved by one streak estimated over it (readDotCodes, after every other
// re-read): images of at most kUnsmearPixels (a 1080p frame, whose transform is 2048 x 2048: four
// float planes, 64 MB for the moment of the deconvolution; larger photos are read in windows),
// whose gradient anisotropy is at least kImageStreakAnisotropy (1.58-10 on the real pack photos
// under a 7 px streak that it reads; a streak at 30 degrees across a pack's straight edges leaves
// the ratio low) and whose estimate is a streak of kMinImageStreak..kMaxSmear px at a depth of at
// least kMinImageStreakDepth: 7.2-10 px and 0.21-0.46 on those photos, against 2-4.5 px (and 7 px
// at a ratio of 1.23) on the five empty 720p frames and the renderer's negatives, which therefore
// pay the estimate only (11 of the renderer's 100 negative scenes pass and pay one re-read). An
// image whose anisotropy reaches the smear stages' own gate needs only their depth: two vertical
// streaks estimated right at 0.17-0.18 read (9 of the negatives passed without that).
// Deconvolved by kImageStreakScale times the estimate: on the 44 real pack photos under 4-7 px
// streaks at 0-90 degrees that the smear stages leave unread, 0.85 alone reads the 34 that 0.85,
// 1.0 and 0.7 in turn read (1.0 alone 30, 0.7 alone 32).
constexpr double kUnsmearPixels = 1920.0 * 1080;
// The deconvolution is one piece of work the deadline cannot cut (the other deblurring stages keep
// theirs to kDeblurPixels): it starts only with this much of the budget left per megapixel (about
// 1.5 times its cost: 67 ms at 1280x720 and 153 ms at 1920x1080 on this 2-core machine, loaded).
// Without it an image that reached this step near its deadline overran it by the whole transform
// (a 1080p field of random dots: 252 ms of CPU against 250).
constexpr double kUnsmearMsPerMegapixel = 110;
constexpr float kImageStreakAnisotropy = 1.5f;
constexpr float kMinImageStreakDepth = 0.2f;
constexpr float kMinImageStreak = 6.0f;
constexpr float kImageStreakScale = 0.85f;
// The streak estimate overshoots on real photographs: 8-11 px for a 7 px streak over pack
// photos, whose own lattice (dots 4-6 px apart along the streak) and lens blur move the
// gradient's autocorrelation minimum outwards. Deconvolved by the longer streak, the dots ring
// and the peaks find no lattice. When nothing read, the smear pass runs once more with every
// estimate shortened to kShortSmearScale (shortSmearPeaks): real pack photos under 4-7 px streaks
// that read nothing, 14 of 50 then read (0.7: 12, 0.8: 10); a shorter streak than the true one
// leaves some blur, which the peaks tolerate. Last, so what read before reads as before.
constexpr float kShortSmearScale = 0.75f;
// The smear and defocus peaks passes deconvolve regions of at most kDeblurPixels. A pack close to
// a 1280x720 camera puts its panel, code and text in one light region of 300k-640k pixels, which
// they therefore skip: such regions (at most kLargeDeblurRegions, within the light peaks budget)
// are deconvolved last, once both passes read nothing, so that what those passes read and in
// what order is unchanged (largeDeblurredPeaks). Real pack photos under a 7 px streak: the
// symbol's region was 486x650 px on scn-hd-case-14.
constexpr double kLargeDeblurPixels = 640000;
constexpr int kLargeDeblurRegions = 2;
// ... and only in a soft image (ImageBlurCues::edgeWidth): each large region costs transforms of
// up to 1024 x 1024 and a peak search over it. The real pack photos it reads under a 7 px streak,
// haze or a second aimer band show edges 12-21 px wide; a sharp scene with a weak streak cue
// (the renderer's negative-7, 1920x1080: 4.5) would pay 85% more for nothing.
constexpr float kLargeDeblurEdgeWidth = 8.0f;
constexpr int kLastStageExtendedLattices = 4;
// Unread lattices of an image kept as parts a later lattice may be joined to.
constexpr size_t kMaxParts = 12;

// Light dots under defocus (defocusedPeaks). The image's edge width (ImageBlurCues): 2.1-3.1 px on
// the five empty 720p frames, 5.4 and over on the real pack photos under a Gaussian of 1.5 px (3.1
// and over as taken, which read before the pass is asked); 4 leaves a margin both ways. A region's
// disc is deconvolved at 0.6 of the estimated radius: the estimate reads a disc's radius from its
// autocorrelation minimum (kLagPerRadius), and a lens's blur, nearer a Gaussian, shows that minimum
// further out (sigma 1.5: 2.8-3.5 px estimated); a disc of radius 1.2-1.3 sigma keeps the lattice's
// frequencies and inverts none (the pack photos under sigma 1.5: 0.6 of the estimate read 39 of 43,
// 0.8 read 38, the estimate itself 34).
constexpr float kDefocusEdgeWidth = 4.0f;
constexpr float kDefocusPeaksRadius = 0.6f;
constexpr float kMinDefocusPeaksRadius = 1.0f;
constexpr float kMaxDefocusPeaksRadius = 6.0f;

// A texture cluster (fitLattice: most of its dots have all four diagonal neighbours) of at least
// kTextureMinDots dots marks its box, grown by kTextureMargin dot diameters, as texture; the harder
// passes skip regions lying kTextureCover or more inside one (inTexture). The dotted textures of
// the empty 720p frames (a hex dot grid, dot screens) cost their regions' passes 8% of the frames'
// work; no read of the reference images, the renders or the transformed real packs changes.
constexpr size_t kTextureMinDots = 40;
constexpr float kTextureMargin = 10;
constexpr double kTextureCover = 0.8;

// Pixels the peaks pass may read per polarity and image. Dark dots get less than light ones: the
// busy frames this guards against (text, dot-matrix print, textures everywhere) hold 400k-840k px
// of dark focus regions (the five empty 720p frames). But around a small inkjet code on a light
// carton (pack-dark: the code box, the dark text and the EAN beside it) the fast pass's dark
// focus regions merge into 185k-390k px, and on a real pack photo's negative the pack body and
// its print add more; the symbol's region often comes after others. Measured against 160k (with
// every region read when they cover at most 320k in all), budget lifted: of the 15 real pack
// photos' negatives and the 158 pack and pack-dark renders (seeds 1-200) left unread, 320k read
// 2 and 16 more, 480k 12 and 22, 640k 13 and 24; the five empty 720p frames cost 491.6M
// instructions, +9.7%, +13.3%, +25.4%.
constexpr double kPeaksPixels = 640000;
constexpr double kPeaksPixelsDark = 480000;
constexpr double kSpillPixels = 320000;  // light lattices cut by their region's border, read whole

// The per-image allowances above bound what an image without a symbol costs. A thorough read
// (ReadOptions::thorough: speed 'thorough', one photograph that must be read) widens them: a
// dark-ink code whose focus regions merge with the text and the EAN beside it into 400k-1M px,
// a light panel past the 640k light budget on a busy frame, decoy lattices before the symbol's.
// Measured (budget 2000 ms) against balanced as it is: of the pack and pack-dark renders of seeds
// 1-200 that balanced leaves unread, pack-42, pack-dark-133 and -170 read, and of the real pack
// photos' negatives scn-hd-case-11; no misread, no read of the 378 reference images lost; five
// empty 720p frames cost about twice the instructions (959M against 491.6M before the 480k dark
// budget).
struct Allowances {
  double peaksLight;     // pixels of the light peaks regions
  double peaksDark;      // pixels of the dark peaks regions
  double spill;          // pixels of the light lattices cut by their region's border
  int extendedLattices;  // lattices extended over the image
  double sweep;          // pixels of the centre sweep (what is left of peaksLight, at most this)
};
constexpr Allowances kBalancedAllowances{kPeaksPixels, kPeaksPixelsDark, kSpillPixels, kMaxExtendedLattices, kPeaksPixels};
constexpr Allowances kThoroughAllowances{2000000, 1000000, 1000000, 24, 2000000};
// Light lattices with modules under kFinePitch px are read again at twice the size (upsampledPeaks).
constexpr float kFinePitch = 2.6f;
constexpr size_t kMaxFineCrops = 2;
constexpr double kFinePixels = 100000;
// At most this many regions per polarity (the likelier first), and the half-resolution search
// only on regions of at least kHalfMin pixels a side (a symbol of dots 4+ px wide is larger).
constexpr int kPeaksRegions = 14;
constexpr int kHalfMin = 64;
// ... and only where the full-resolution peaks look like the rims of large dots. A peak's size is
// its response's half-height area (Blob::d, the diameter of a disc of that area). Wherever the
// half-resolution read found a symbol (154 reads: 13 of the 128 real photos, 137 of the 645
// transforms of the 43 real packs, 4 of 1,900 renders), the median full-resolution peak of its
// region covered 8 px or more (d >= 3.19); on the regions of empty frames (noise, text, fine
// textures) it is often 4-7 px. Below 2.9 (at most 6 px: one step of margin) the half-resolution
// read is skipped; a region with too few peaks for a median (0) is still read at both scales.
// Five empty 720p frames: 670M -> 647M instructions, every read of the sets above unchanged.
constexpr float kHalfMinPeakD = 2.9f;
constexpr int kPeaksRounds = 8;
// Images larger than this (long side, px) are also read halved, and halved again, to this size,
// whenever nothing was read at their own scale. A gate on the fast pass's blob size (halve only
// when its median blob is 8+ px: modules of 10+ px) was tried and taken out: it spared empty 1080p
// frames 38% of their work but lost real pack photos scaled 1.3x (40 -> 37 of 43) and rotated
// 33 degrees (38 -> 37), whose small light dots sit among dark text and are found only when the
// halved frame fits the peaks pass's pixel budget; gating on a short wide light lattice kept only
// part of those reads and of the saving. Reads come first.
constexpr int kPyramidSide = 1400;
// Images of at most this long a side are read again upsampled twice when they read nothing
// (readDotCodes): 640x480 frames upright or turned any angle (their diagonal is 800 px), not
// 1280x720 ones. The upsampled copy is not halved again by pass 8.
constexpr int kSmallImageSide = 800;
// An image between the small ones and those the pyramid halves, with wide edges: read again
// halved when it reads nothing (readDotCodes), as the pyramid's last level is.
bool softMidImage(const GreyImage& image, const ImageBlurCues& cues) {
  const int side = std::max(image.width, image.height);
  return side > kSmallImageSide && side <= kPyramidSide && cues.edgeWidth >= kHalveSoftEdgeWidth;
}
// Images of at most this many pixels whose fast pass saw no region are read whole by the harder
// passes (PassSchedule::wholeSmallImage).
constexpr double kWholeFocusPixels = 200000;
// Photos of more pixels than this, and at most kMostWindowedPixels, are read again in windows
// when the whole reads nothing (readInWindows): from 1.5 times a 1920 x 1080 frame, so video
// frames never pay it, to a 16 MP phone photo (4608 x 3456). Larger images (a page scanned at
// 600 dpi, a pixel bomb) would hold 80 and more windows, of which the budget reads a few: the
// hostile 6000 x 6000 PNG of the robustness test went from under 3 s of CPU to 3.5 s.
constexpr double kLargePhotoPixels = 1.5 * 1920 * 1080;
constexpr double kMostWindowedPixels = 16.0e6;
constexpr int kWindowSide = 1280;    // a window's long side (its short side: three quarters)
constexpr int kWindowOverlap = 480;  // more than a pack symbol of 4.5 px modules, turned
// A window's light peaks regions may cover the window twice. The balanced pool (kPeaksPixels)
// bounds what an empty frame costs; a large photo that reads nothing spends its whole budget in
// windows anyway, and in a window of a busy photo (text, barcodes, dotted textures) the regions
// read first used up the balanced pool before the pack's own region (real pack photos pasted into
// a 3264 x 2448 frame of clutter: 40 of 43 read before, 43 after). The centre sweep stays the
// balanced one: it is a guess, not evidence, and over a whole window its clusters mixed a symbol's
// dots with a desk's texture, where a smaller centre region cut the symbol and the spill re-read
// of the cut lattice's box read it (a real pack pasted into a 3000 x 2000 desk). So a window's
// allowances are the balanced ones with that one pool larger.
constexpr Allowances windowAllowances() {
  Allowances a = kBalancedAllowances;
  a.peaksLight = 2.0 * kWindowSide * kWindowSide * 0.75;
  return a;
}
constexpr Allowances kWindowAllowances = windowAllowances();
// The harder passes' allowances for a read: thorough ones when asked, a window's in a large photo's
// window (a thorough read keeps its own there too), otherwise the balanced ones.
const Allowances& allowancesFor(const ReadOptions& options, bool largePhotoWindow) {
  return options.thorough ? kThoroughAllowances : largePhotoWindow ? kWindowAllowances
                                                                   : kBalancedAllowances;
}

// Positions sampled beyond a short wide lattice's ends along its long axis. Glare or the aimer
// band can split a pack symbol's lattice, and a faint end stop its growth, 25-38 lines short of
// the symbol's end (packs 42, 64, 80 of seeds 1-100); the homography fitted on the lattice stays
// within 0.2 of a pitch over that distance on them, so the grid sampled there is usable (80 reads
// with it; 42 has its extent tried, refused with 59 erasures where no lattice dot anchors the ink).
constexpr int kReach = 40;
// Positions of margin along a short wide lattice's long axis when it is read again on its whole
// box (noteSpill; kept at the reach it had before kReach grew: a wider crop changes the lattice).
constexpr int kSpillReach = 24;
// The erasure band (distance from 0.5) of the second decode of a short wide lattice's grids.
constexpr float kWideErasureMargin = 0.25f;

// Where the symbol may end along its long axis beyond the lattice's dots (glare, blur or a crease
// can stop the lattice's growth short of the symbol's end): every grid line up to kReach beyond
// the lattice that holds a clear dot (sampled value >= 0.7) followed by one without, at most
// kMaxEnds per side, nearest first; then the same with faint dots (>= 0.5: the symbol's last
// lines under glare or blur), the ends not found already. `all` is sampled from (r0, c0).
constexpr int kMaxEnds = 3;
constexpr float kEndDotLevels[] = {0.7f, 0.5f};
// The strongest presence on grid line k (a column when alongCols, else a row) within the
// lattice's short side; -1 where the line leaves the sampled grid.
float linePresence(const DotGrid& all, int r0, int c0, int parity, bool alongCols, int k, int from, int to) {
  float most = 0;
  for (int t = from; t <= to; ++t) {
    const int r = alongCols ? t : k, c = alongCols ? k : t;
    if (((r + c) & 1) != parity) continue;
    const int ar = r - r0, ac = c - c0;
    if (ar < 0 || ac < 0 || ar >= all.rows || ac >= all.cols) return -1;
    most = std::max(most, all.at(ar, ac));
  }
  return most;
}
float linePresence(const DotGrid& all, int r0, int c0, int parity, const LatticeFit& f, bool alongCols, int k) {
  return alongCols ? linePresence(all, r0, c0, parity, alongCols, k, f.rowMin, f.rowMax)
                   : linePresence(all, r0, c0, parity, alongCols, k, f.colMin, f.colMax);
}

// The lines k past `edge` (towards dir, within kReach) where a line with a dot is followed by one
// without, nearest first, at most maxEnds: where the symbol may end.
template <class HasDot, class Push>
void endsPast(int edge, int dir, int maxEnds, HasDot&& hasDot, Push&& push) {
  bool prev = hasDot(edge + dir);
  int found = 0;
  for (int k = edge + dir; std::abs(k - edge) <= kReach - 1 && found < maxEnds; k += dir) {
    const bool next = hasDot(k + dir);
    if (prev && !next) {
      ++found;
      push(k);
    }
    prev = next;
  }
}

// A line past a candidate end whose strongest position reaches this may be the symbol's own faint
// edge line (a dot counts from 0.7).
constexpr float kFaintEndDot = 0.3f;

// Whether (r, c) is a lattice position that a longer window `x` adds to `inner`.
bool addedPosition(int r, int c, int parity, const Extent& inner) { return ((r + c) & 1) == parity && !inner.holds(r, c); }

// The window `x` of a sampling with each value at a position it adds to `inner` replaced by
// added(value): the added lines read another way, the read's own positions as sampled.
template <class Added>
void windowWithAdded(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x, const Extent& inner, Added&& added, DotGrid& out) {
  out.rows = x.rows;
  out.cols = x.cols;
  out.value.resize(static_cast<size_t>(x.rows) * x.cols);
  for (int r = 0; r < x.rows; ++r)
    for (int c = 0; c < x.cols; ++c) {
      const int R = x.rowMin + r, C = x.colMin + c;
      const float v = g.at(R - gr0, C - gc0);
      out.value[static_cast<size_t>(r) * x.cols + c] = addedPosition(R, C, parity, inner) ? added(v) : v;
    }
}

// Whether a quarter or more of the lattice positions of `x` outside `inner` read as clear dots:
// the lines a longer window adds are quiet zone when the inner window is the symbol, and about
// half dots when they are the symbol's own last lines. (Faint ones are judged by stretchAdded: as
// a level, 0.3 refused pack-dark-199, whose added lines hold 0.38-0.67 that are not its dots.)
bool clearDotsAdded(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x, const Extent& inner) {
  int positions = 0, clear = 0;
  for (int r = x.rowMin; r < x.rowMin + x.rows; ++r)
    for (int c = x.colMin; c < x.colMin + x.cols; ++c) {
      if (!addedPosition(r, c, parity, inner)) continue;
      ++positions;
      clear += g.at(r - gr0, c - gc0) >= kEndDotLevels[0];
    }
  return 4 * clear >= positions;
}

// The window `x` of a sampling with the lattice positions outside `inner` read at their own
// contrast: each divided by the strongest of them, when that is faint (kFaintEndStretch up to a
// clear dot), washed positions left as they are. False when there is nothing faint to stretch.
constexpr float kFaintEndStretch = 0.1f;
bool stretchAdded(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x, const Extent& inner, DotGrid& out) {
  float most = 0;
  for (int r = x.rowMin; r < x.rowMin + x.rows; ++r)
    for (int c = x.colMin; c < x.colMin + x.cols; ++c)
      if (addedPosition(r, c, parity, inner) && g.at(r - gr0, c - gc0) != 0.5f) most = std::max(most, g.at(r - gr0, c - gc0));
  if (most < kFaintEndStretch || most >= kEndDotLevels[0]) return false;
  windowWithAdded(
      g, gr0, gc0, parity, x, inner, [most](float v) { return v == 0.5f ? v : std::min(1.0f, v / most); }, out);
  return true;
}

// When a longer window's added lines are taken to follow the dots it implies (addedLinesFollow):
// they sample at least kImpliedDotContrast higher, on average, where its dots lie than where they
// do not, over all of them and over the two lines next to the read's window, and in at least
// kImpliedDotOrder of the (dot, no dot) pairs of positions the dot's is the higher. The cut-short
// reads of the stress that chose them showed 0.20-0.89 and 1.0 (each of the 12 it refuses); the
// reads of 2,000 pack renders, on windows grown over quiet zone, text or the panel's edge, up to
// 0.16 (pack-981, where 0.62 of the pairs are ordered) and, where every pair was ordered, 0.05.
constexpr float kImpliedDotContrast = 0.15f;
constexpr float kImpliedDotOrder = 0.9f;

// Whether the sampled values at the lattice positions of `x` outside `inner` follow the dots that
// `sym`, decoded from the window `x`, puts there (kImpliedDotContrast, kImpliedDotOrder). Washed
// positions (exactly 0.5) carry nothing and are left out. Faint dots of the symbol's own last
// lines, however far under any dot level, follow the pattern; quiet zone and the panel past the
// symbol do not, and text beyond the quiet zone only by chance.
bool addedLinesFollow(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x, const Extent& inner, const DotCodeSymbol& sym) {
  const SymbolLayout layout = layoutFor(sym.rows, sym.cols);
  const GridTransform tf{sym.orientation, x.rows, x.cols};
  if (!layout.valid || tf.rows() != sym.rows || tf.cols() != sym.cols) return false;
  const std::vector<uint8_t> dots = placeCodewords(layout, sym.codewords);
  if (dots.size() != static_cast<size_t>(sym.rows) * sym.cols) return false;
  std::vector<int> implied(static_cast<size_t>(x.rows) * x.cols, -1);  // 1 a dot, 0 none, -1 outside the symbol
  for (int r = 0; r < sym.rows; ++r)
    for (int c = 0; c < sym.cols; ++c) implied[tf.sourceIndex(r, c)] = dots[static_cast<size_t>(r) * sym.cols + c];
  // the values where no dot / a dot is implied: all, and those of the two lines next to `inner`
  // (a symbol's end lines lie right against the window, where a window grown by 4 lines over the
  // quiet zone reaches text or the panel's edge only with its outer two)
  std::vector<float> all[2], near[2];
  for (int r = 0; r < x.rows; ++r)
    for (int c = 0; c < x.cols; ++c) {
      const int R = x.rowMin + r, C = x.colMin + c;
      if (!addedPosition(R, C, parity, inner)) continue;
      const float v = g.at(R - gr0, C - gc0);
      const int k = implied[static_cast<size_t>(r) * x.cols + c];
      if (v == 0.5f || k < 0) continue;
      all[k].push_back(v);
      const int past = std::max({inner.rowMin - R, R - (inner.rowMin + inner.rows - 1), inner.colMin - C, C - (inner.colMin + inner.cols - 1)});
      if (past <= 2) near[k].push_back(v);
    }
  auto mean = [](const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f) / static_cast<float>(v.size()); };
  for (const auto* set : {all, near})
    if (set[0].empty() || set[1].empty() || mean(set[1]) - mean(set[0]) < kImpliedDotContrast) return false;
  float ordered = 0;
  for (float dot : all[1])
    for (float none : all[0]) ordered += dot > none ? 1.0f : (dot == none ? 0.5f : 0.0f);
  return ordered >= kImpliedDotOrder * static_cast<float>(all[1].size() * all[0].size());
}

// The windows of `e` slid away from `washed` washed-out lines at one end of a side: that end moved
// 1 to washed + 1 lines in (the line at a streak's edge is only partly washed), the other 2 lines
// in to 4 out, H+W kept odd, sides of at least 5.
std::vector<Extent> slidWindows(const Extent& e, bool alongCols, bool atStart, int washed) {
  std::vector<Extent> out;
  for (int in = 1; in <= washed + 1; ++in)
    for (int other = -2; other <= kLongerWindowLines; ++other) {
      if (((in + other) & 1) != 0) continue;
      Extent x = e;
      int& start = alongCols ? x.colMin : x.rowMin;
      int& len = alongCols ? x.cols : x.rows;
      if (len - in + other < 5) continue;
      start += atStart ? in : -other;
      len += other - in;
      out.push_back(x);
    }
  return out;
}

// Whether the four corner positions of `x` lie inside the image the lattice was found in.
bool cornersInside(const SampleContext& ctx, const Extent& x) {
  for (const int r : {x.rowMin, x.rowMin + x.rows - 1})
    for (const int c : {x.colMin, x.colMin + x.cols - 1}) {
      const PointF p = ctx.mapper->map(static_cast<float>(r), static_cast<float>(c));
      if (!(p.x >= 0 && p.y >= 0 && p.x <= ctx.img->width - 1 && p.y <= ctx.img->height - 1)) return false;
    }
  return true;
}

// Glare that saturates a pack symbol's end leaves its last lines without contrast: their lattice
// positions are sampled as erasures (exactly 0.5), and so is the panel past the symbol under the
// same streak. Neither level of kEndDotLevels tells where in that run the symbol ends (at 0.5 every
// washed line counts as a dot, and the run's end is the streak's, not the symbol's). So each washed
// line (every lattice position on it erased) within kWashedEnds lines past the lattice's edge is a
// candidate end too, after the ends above, as long as every line between holds no clear dot and is
// not plainly empty (the quiet zone, the dark panel: no value over kFaintEndDot); the line at the
// streak's edge, partly washed, is walked over. The grid of the true extent then holds the washed
// lines as erasures, which Reed-Solomon pays one check word each. (Packs 191 and 316 of seeds
// 101-400: 2 and 8 washed end lines. Lines half erased counted as washed too: the same reads, and
// two decoy lattices of the empty 720p frames paid their windows, +0.5% instructions.)
constexpr int kWashedEnds = 12;
// How a grid line past a lattice's edge looks within the lattice's short side.
enum class LineLook {
  kDot,     // a clear dot on it (kEndDotLevels[0])
  kEmpty,   // every value under kFaintEndDot (or the line leaves the sampled grid)
  kWashed,  // every lattice position erased
  kOther,
};
// A grid line's lattice positions within [from, to] along it: how many lie in the sampled grid,
// how many of those are erased, their highest value, and whether any lies outside the grid.
struct LineTally {
  int positions = 0, erased = 0, clear = 0;  // (clear: at least kEndDotLevels[0])
  float most = 0;
  bool outside = false;
};
LineTally tallyLine(const DotGrid& all, int r0, int c0, int parity, bool alongCols, int k, int from, int to) {
  LineTally t;
  for (int q = from; q <= to; ++q) {
    const int r = alongCols ? q : k, c = alongCols ? k : q;
    if (((r + c) & 1) != parity) continue;
    const int ar = r - r0, ac = c - c0;
    if (ar < 0 || ac < 0 || ar >= all.rows || ac >= all.cols) {
      t.outside = true;
      continue;
    }
    const float v = all.at(ar, ac);
    t.most = std::max(t.most, v);
    t.erased += v == 0.5f;
    t.clear += v >= kEndDotLevels[0];
    ++t.positions;
  }
  return t;
}

LineLook lineLook(const DotGrid& all, int r0, int c0, int parity, bool alongCols, int k, int from, int to) {
  const LineTally t = tallyLine(all, r0, c0, parity, alongCols, k, from, to);
  if (t.outside) return LineLook::kEmpty;
  if (t.most >= kEndDotLevels[0]) return LineLook::kDot;
  if (t.positions == 0 || t.most < kFaintEndDot) return LineLook::kEmpty;
  return t.erased == t.positions ? LineLook::kWashed : LineLook::kOther;
}

LineLook lineLook(const DotGrid& all, int r0, int c0, int parity, const LatticeFit& f, bool alongCols, int k) {
  return alongCols ? lineLook(all, r0, c0, parity, alongCols, k, f.rowMin, f.rowMax)
                   : lineLook(all, r0, c0, parity, alongCols, k, f.colMin, f.colMax);
}

// The share of a grid line's lattice positions (within [from, to] along it, in the sampled grid)
// that are erased; kClearDotOnLine where one of them reads as a clear dot, kNoPositions where none
// lies within the sampled grid.
constexpr float kClearDotOnLine = -1.0f, kNoPositions = -2.0f;
float erasedShare(const DotGrid& all, int r0, int c0, int parity, bool alongCols, int k, int from, int to) {
  const LineTally t = tallyLine(all, r0, c0, parity, alongCols, k, from, to);
  if (t.most >= kEndDotLevels[0]) return kClearDotOnLine;
  return t.positions > 0 ? static_cast<float>(t.erased) / static_cast<float>(t.positions) : kNoPositions;
}

// A window inside a larger dotted area: the lines just past both of its ends along one axis hold
// clear dots at kEnclosingDotShare or more of their lattice positions. A symbol's quiet zone (three
// modules) holds none; of 1,002 reads of renders and real photos two large symbols showed such
// dots on both sides (text or a panel's edge beside them), no small one (the most, on one side
// only, a third of a line).
constexpr float kEnclosingDotShare = 0.2f;
bool enclosedByDots(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x) {
  for (int alongCols = 0; alongCols < 2; ++alongCols) {
    const int first = alongCols ? x.colMin : x.rowMin, len = alongCols ? x.cols : x.rows;
    const int from = alongCols ? x.rowMin : x.colMin, to = from + (alongCols ? x.rows : x.cols) - 1;
    auto dotted = [&](int k) {
      const LineTally t = tallyLine(g, gr0, gc0, parity, alongCols, k, from, to);
      return t.positions > 0 && t.clear >= kEnclosingDotShare * t.positions;
    };
    if (dotted(first - 1) && dotted(first + len)) return true;
  }
  return false;
}

// A symbol's quiet zone: three modules on every side (FORMAT.md), so three lines of the lattice.
constexpr int kQuietZoneLines = 3;

// Whether the quiet zone past a side of the window `x` (kQuietZoneLines lines, over the window's
// span) holds a line of dots: the window then lies in a larger dotted area, though not between
// dots on both sides (enclosedByDots) when a glare band or a faint stretch of the symbol separates
// it from them. A line of dots: the lattice's own dots on kEnclosingDotShare or more of its
// positions, or, past the line right against the window, sampled clear dots on that share but not
// on kAreaDotShare (a dark area rather than dots: where a cylinder's surface turns away past a
// symbol's end, every position of the lines there reads clear on a flat lattice). The line right
// against the window counts by the lattice's dots alone, on kNextLineDotShare of it: heavy blur
// darkens the edge line's diagonal neighbours there, and the lattice takes some as dots (3 of 10
// positions beside a blur-heavy render's symbol read right at 2 of 6 check words).
constexpr float kAreaDotShare = 0.8f, kNextLineDotShare = 0.5f;
// The spare check words up to which a small symbol's read must show a quiet zone free of dots: the
// two misreads had 2 to spare; a small-cylinder render (cylinder-small/30, a 19 x 12 symbol in a
// 90 x 90 frame) read right with 5 to spare has its lattice's own dots on the next line, where the
// flat lattice wraps onto the symbol's compressed edge columns. (A wrong window passes
// Reed-Solomon with s check words to spare about once in 113^s.)
constexpr int kMaxSpareBesideDots = 3;
bool dotsInQuietZone(const DotGrid& g, int gr0, int gc0, int parity, const LatticeFit& fit, const Extent& x) {
  for (int alongCols = 0; alongCols < 2; ++alongCols) {
    const int first = alongCols ? x.colMin : x.rowMin, last = first + (alongCols ? x.cols : x.rows) - 1;
    const int from = alongCols ? x.rowMin : x.colMin, to = from + (alongCols ? x.rows : x.cols) - 1;
    for (int k = 1; k <= kQuietZoneLines; ++k)
      for (const int line : {first - k, last + k}) {
        const LineTally t = tallyLine(g, gr0, gc0, parity, alongCols, line, from, to);
        if (t.positions == 0) continue;
        const float clear = static_cast<float>(t.clear) / static_cast<float>(t.positions);
        if (k > 1 && clear >= kEnclosingDotShare && clear < kAreaDotShare) return true;
        int own = 0;
        for (const LatticeDot& d : fit.dots) {
          const int along = alongCols ? d.col : d.row, across = alongCols ? d.row : d.col;
          own += along == line && across >= from && across <= to;
        }
        if (own >= (k == 1 ? kNextLineDotShare : kEnclosingDotShare) * t.positions) return true;
      }
  }
  return false;
}

// How many lines at one end of a side of `x` (atStart: its first lines) are washed out, up to
// `most`.
int washedEndLines(const DotGrid& g, int gr0, int gc0, int parity, const Extent& x, bool alongCols, bool atStart, int most) {
  const int first = alongCols ? x.colMin : x.rowMin, len = alongCols ? x.cols : x.rows;
  const int from = alongCols ? x.rowMin : x.colMin, to = from + (alongCols ? x.rows : x.cols) - 1;
  int washed = 0;
  while (washed < std::min(most, len) &&
         lineLook(g, gr0, gc0, parity, alongCols, atStart ? first + washed : first + len - 1 - washed, from, to) == LineLook::kWashed)
    ++washed;
  return washed;
}

void candidateEnds(const DotGrid& all, int r0, int c0, int parity, const LatticeFit& f, bool alongCols, int dir,
                   std::vector<int>& ends) {
  ends.clear();
  const int edge = alongCols ? (dir < 0 ? f.colMin : f.colMax) : (dir < 0 ? f.rowMin : f.rowMax);
  auto add = [&](int k) {
    if (std::find(ends.begin(), ends.end(), k) == ends.end()) ends.push_back(k);
  };
  for (float level : kEndDotLevels)
    endsPast(
        edge, dir, kMaxEnds, [&](int k) { return linePresence(all, r0, c0, parity, f, alongCols, k) >= level; }, add);
  for (int k = edge + dir; std::abs(k - edge) <= kWashedEnds; k += dir) {
    const LineLook look = lineLook(all, r0, c0, parity, f, alongCols, k);
    if (look == LineLook::kDot || look == LineLook::kEmpty) break;
    if (look == LineLook::kWashed) add(k);
  }
}

// A symbol wrapped round a small cylinder ends in columns that close up towards the silhouette
// (a third of the middle's step at 70 degrees of half arc): at modules of 2.5-4 px there the last
// one to five of them show too little contrast to be found, and the refitted lattice
// (fitCylinderLattice) stops short of the symbol. The cylinder's model still places those lines,
// so the extents grown by up to kCylinderEdgeLines lines at either end of the wrapped axis are
// tried too; their positions are sampled through the model, and what the sampler cannot tell
// apart there is erased or corrected like any other position. A grown end whose outer line is
// washed out (every position erased) is not tried: a window longer than its symbol over erased
// lines decodes to another text for those erasures alone (misread bench, model 11).
// `all` is sampled from (r0, c0) with more than kCylinderEdgeLines lines of margin along that axis.
constexpr int kCylinderEdgeLines = 5;
void cylinderEdgeHypotheses(const DotGrid& all, int r0, int c0, int parity, const LatticeFit& f, bool alongCols,
                            std::vector<Extent>& out) {
  const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
  const int first = alongCols ? f.colMin : f.rowMin, last = alongCols ? f.colMax : f.rowMax;
  // (each line past either end looked at once, not once per extent that ends on it)
  bool washedBefore[kCylinderEdgeLines + 1] = {}, washedAfter[kCylinderEdgeLines + 1] = {};
  for (int n = 1; n <= kCylinderEdgeLines; ++n) {
    washedBefore[n] = lineLook(all, r0, c0, parity, f, alongCols, first - n) == LineLook::kWashed;
    washedAfter[n] = lineLook(all, r0, c0, parity, f, alongCols, last + n) == LineLook::kWashed;
  }
  for (int before = 0; before <= kCylinderEdgeLines; ++before)
    for (int after = 0; after <= kCylinderEdgeLines; ++after) {
      if (before + after < 2) continue;  // (one line more is among extentHypotheses')
      if (washedBefore[before] || washedAfter[after]) continue;
      Extent e{f.rowMin, H, f.colMin, W};
      (alongCols ? e.colMin : e.rowMin) -= before;
      (alongCols ? e.cols : e.rows) += before + after;
      withOddSize(e, alongCols, [&](const Extent& x) { out.push_back(x); });  // (a lost line across)
    }
}

// A short wide lattice grown into the text beside its symbol is too long on its short side (the
// bands of shortBands), and where its growth also stopped short along the long axis, or ran on
// into the text's wider line, its long side is wrong too, which no band or end hypothesis alone
// fixes. Per band of the short side, the long side is taken where the band's own dots end: the
// first and last lines within the grown box holding a clear dot (every edge of a DotCode carries
// one), and the nearest ends past the box (as candidateEnds, the dots counted within the band only).
constexpr int kBandEnds = 2;  // ends per side and band beyond the trimmed box's
void bandEnds(const DotGrid& all, int r0, int c0, int parity, const LatticeFit& f, bool alongCols,
              std::vector<Extent>& out) {
  const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
  const int shortLen = alongCols ? H : W, shortMin = alongCols ? f.rowMin : f.colMin;
  const int longMin = alongCols ? f.colMin : f.rowMin, longMax = alongCols ? f.colMax : f.rowMax;
  if (shortLen <= kMinBandLines + 2) return;
  auto presence = [&](int from, int to, int k) { return linePresence(all, r0, c0, parity, alongCols, k, from, to); };
  size_t added = 0;
  // the trimmed boxes of every band first, then the ends past them
  for (int phase = 0; phase < 2; ++phase)
    for (int h = shortLen - 1; h >= kMinBandLines && added < kMaxBandHypotheses; --h)
      for (int off = 0; off + h <= shortLen && added < kMaxBandHypotheses; ++off) {
        const int from = shortMin + off, to = from + h - 1;
        const float level = kEndDotLevels[0];
        int a = longMin, b = longMax;
        while (a < b && presence(from, to, a) < level) ++a;
        while (b > a && presence(from, to, b) < level) --b;
        int lo[kBandEnds + 1], hi[kBandEnds + 1], nlo = 0, nhi = 0;
        lo[nlo++] = a;
        hi[nhi++] = b;
        for (int dir : {-1, 1}) {
          int* ends = dir < 0 ? lo : hi;
          int& n = dir < 0 ? nlo : nhi;
          endsPast(
              dir < 0 ? a : b, dir, kBandEnds, [&](int k) { return presence(from, to, k) >= level; },
              [&](int k) { ends[n++] = k; });
        }
        // a band's own edge lines carry a dot too, within the long side taken
        auto edgeHasDot = [&](int t, int k0, int k1) {
          for (int k = k0; k <= k1; ++k)
            if (presence(t, t, k) >= level) return true;
          return false;
        };
        for (int x = 0; x < nlo; ++x)
          for (int y = 0; y < nhi; ++y) {
            if ((x + y == 0) != (phase == 0)) continue;
            // (the grown long side with this band: shortBands' own)
            if ((lo[x] == longMin && hi[y] == longMax) || hi[y] - lo[x] + 1 < kMinBandLines) continue;
            if (!edgeHasDot(from, lo[x], hi[y]) || !edgeHasDot(to, lo[x], hi[y])) continue;
            // ... and the lines just outside it inside the grown box are blank (the gap between the
            // symbol and the text)
            if ((off > 0 && edgeHasDot(from - 1, lo[x], hi[y])) || (off + h < shortLen && edgeHasDot(to + 1, lo[x], hi[y]))) continue;
            Extent e{f.rowMin, H, f.colMin, W};
            (alongCols ? e.rowMin : e.colMin) = from;
            (alongCols ? e.rows : e.cols) = h;
            (alongCols ? e.colMin : e.rowMin) = lo[x];
            (alongCols ? e.cols : e.rows) = hi[y] - lo[x] + 1;
            withOddSize(e, !alongCols, [&](const Extent& z) {
              out.push_back(z);
              ++added;
            });
          }
      }
}

// As many dots over as many lines (a lattice grown again that changed nothing).
bool sameExtent(const LatticeFit& a, const LatticeFit& b) {
  return a.dots.size() == b.dots.size() && a.rowMax - a.rowMin == b.rowMax - b.rowMin && a.colMax - a.colMin == b.colMax - b.colMin;
}

// A lattice grown again with shorter steps is read when it holds this many dots at least: the
// pack symbols it read held 91-132, the decoys of the five empty 720p frames 20-31.
constexpr size_t kRegrownMinDots = 40;

// A lattice of at most 16 lines across and twice as many along: the shape of a pack's symbol.
bool shortAndWide(int H, int W) { return std::min(H, W) <= 16 && std::max(H, W) >= 2 * std::min(H, W); }
bool shortAndWide(const LatticeFit& f) { return shortAndWide(f.rowMax - f.rowMin + 1, f.colMax - f.colMin + 1); }

struct Candidate {
  LatticeFit fit;
  GridMapper mapper;
  SampleContext ctx;
  std::vector<Blob>* blobs = nullptr;  // the pass's blobs (extendLattice appends to them)
  bool dark = true;
  bool notDotCode = false;  // its positions are not inked as DotCode content inks them (lattice_evidence.cpp)
  // Found by the last stage (largeDeblurredPeaks), after every other stage read nothing: their
  // decoys have used up the image's kMaxExtendedLattices, so its lattices have an allowance of
  // their own (kLastStageExtendedLattices).
  bool lastStage = false;
  bool read = false;  // set by the pass's caller: a symbol was read from it
  // A peaks lattice grown again with shorter steps (runPass): its extensions have an allowance of
  // their own, and it is kept as no part of a split symbol (the first growth was kept).
  bool regrown = false;
  // The dots of another lattice indexed by other diagonals (a steep view, otherDiagonals). It is
  // not extended, and it leaves no trace for later passes (no spill box, no fine crop, no part of
  // a split symbol, no share of the extended lattices) and none in the video fusion, whose tracks
  // would hold the same dots twice, one indexing askew: what the other lattices of an image get is
  // the same as without it.
  bool reindexed = false;
  bool cutToLines = false;  // its DotCode lines alone (cutToCodeLines), from a lattice grown past them
  // Found on a deconvolved copy of a region (the deblurred and deconvolving stages): read like any
  // other, but not handed to the video fusion, whose tracks hold what frames show as given.
  bool deconvolved = false;
};

// How a lattice that did not read was changed for another try (readAsGiven's retry).
enum class Changed {
  lattice,  // grown, extended, refitted to a cylinder or joined
  flat,     // mapped by its homography over stray dots (GridMapper::keepFlatOverStrays)
  cut,      // its DotCode lines alone (cutToCodeLines): it takes a short wide lattice's reach
};

// The rectangles with every overlapping group replaced by its union (each region read once).
std::vector<Rect> unionOfOverlapping(const std::vector<Rect>& in) {
  std::vector<Rect> out;
  for (const Rect& b : in) {
    bool merged = false;
    for (Rect& u : out)
      if (overlaps(b, u)) {
        u = {std::min(u.x0, b.x0), std::min(u.y0, b.y0), std::max(u.x1, b.x1), std::max(u.y1, b.y1)};
        merged = true;
        break;
      }
    if (!merged) out.push_back(b);
  }
  return out;
}

// A rectangle of a pass image in the caller's image (regions are kept in image coordinates).
Rect toImage(const Frame& f, const Rect& r) {
  return {static_cast<int>(r.x0 / f.scale + f.ox), static_cast<int>(r.y0 / f.scale + f.oy),
          static_cast<int>(std::ceil(r.x1 / f.scale + f.ox)), static_cast<int>(std::ceil(r.y1 / f.scale + f.oy))};
}

// A blob of a pass image as a trace dot in the caller's image.
TraceDot traceDot(const Blob& b, const Frame& f) { return {b.x / f.scale + f.ox, b.y / f.scale + f.oy, b.d / f.scale}; }

// A blob of a pass (its crop, its scale) in the image's coordinates, and one of the image's in a pass's.
Blob scaledBlob(Blob b, float scale) {
  b.d *= scale;
  b.w = static_cast<int>(std::lround(b.w * scale)), b.h = static_cast<int>(std::lround(b.h * scale));
  b.area = static_cast<int>(std::lround(b.area * scale * scale));
  return b;
}
Blob blobInImage(const Blob& b, const Frame& f) {
  Blob out = scaledBlob(b, 1.0f / f.scale);
  const TraceDot t = traceDot(b, f);
  out.x = t.x, out.y = t.y;
  return out;
}
Blob blobInPass(const Blob& b, const Frame& f) {
  Blob out = scaledBlob(b, f.scale);
  out.x = (b.x - f.ox) * f.scale, out.y = (b.y - f.oy) * f.scale;
  return out;
}

// Records what a pass saw into the trace (caller's image coordinates); returns the pass record.
TracePass* tracePass(DetectorTrace* trace, const GreyImage& img, const Pass& pass, const Frame& frame,
                     const std::vector<Blob>& blobs) {
  if (!trace) return nullptr;
  trace->passes.emplace_back();
  TracePass& tp = trace->passes.back();
  tp.via = pass.via;
  tp.dark = pass.dark;
  tp.scale = frame.scale;
  tp.x0 = static_cast<int>(frame.ox);
  tp.y0 = static_cast<int>(frame.oy);
  tp.x1 = static_cast<int>(frame.ox + img.width / frame.scale);
  tp.y1 = static_cast<int>(frame.oy + img.height / frame.scale);
  const size_t n = std::min(blobs.size(), DetectorTrace::kMaxTraceDots);
  tp.dots.reserve(n);
  for (size_t k = 0; k < n; ++k)
    tp.dots.push_back(traceDot(blobs[k], frame));
  return &tp;
}

void traceLattice(TracePass* tp, int cluster, const std::vector<Blob>& blobs, const LatticeFit& fit, const Frame& frame,
                  const char* outcome) {
  if (!tp) return;
  tp->lattices.emplace_back();
  TraceLattice& tl = tp->lattices.back();
  tl.cluster = cluster;
  tl.outcome = outcome;
  for (const LatticeDot& d : fit.dots) {
    tl.dots.push_back(traceDot(blobs[d.blob], frame));
    tl.row.push_back(d.row);
    tl.col.push_back(d.col);
  }
  tl.rows = fit.dots.empty() ? 0 : fit.rowMax - fit.rowMin + 1;
  tl.cols = fit.dots.empty() ? 0 : fit.colMax - fit.colMin + 1;
  tl.pitch = fit.pitch / frame.scale;
}

// Runs one pass: locate, group, fit. Calls onCandidate for each lattice; it returns false to stop.
template <class F>
void runPass(const GreyImage& img, const Pass& pass, const Frame& frame, DetectorTrace* trace, bool reuseStats,
             Clock::time_point deadline, PassStats& stats, F&& onCandidate) {
  Workspace& ws = workspace();
  LocateParams lp;
  lp.reuseStats = reuseStats;
  lp.dark = pass.dark;
  lp.alpha = pass.alpha;
  lp.minContrast = pass.minContrast;
#ifdef DC_PROF
  auto cpuNow = [] { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; };
  const double tp0 = cpuNow();
  auto msSince = [&] { return cpuNow() - tp0; };
#endif
  if (pass.peaks) {
    PeakParams pp;
    pp.dark = pass.dark;
    pp.minContrast = static_cast<float>(pass.minContrast);
    // (peaks: the light polarity keeps its response for the dark read of the same region, which
    // takes it; see peaks())
    pp.keepResponse = reuseStats && !pass.dark;
    pp.takeResponse = reuseStats && pass.dark;
    locatePeaks(img, pp, ws.peaks, ws.blobs);
    stats.rejectedShapes = 0;  // (maxima have no shapes to reject)
  } else {
    locateDots(img, lp, ws.locate, ws.blobs);
    stats.rejectedShapes = ws.locate.rejectedShapes;
    for (const LocateWorkspace::Box& b : ws.locate.merged) {
      stats.focus.push_back(toImage(frame, {b.x0, b.y0, b.x1, b.y1}));
      stats.merged.push_back(toImage(frame, {b.x0, b.y0, b.x1, b.y1}));
    }
  }
  TracePass* tp = tracePass(trace, img, pass, frame, ws.blobs);
  PPROF("pass %s dark=%d alpha=%.2f: %zu blobs, locate %.2f ms\n", pass.via, pass.dark, pass.alpha, ws.blobs.size(), msSince());
  stats.medianD = 0;
  stats.clusters = 0;
  if (ws.blobs.size() < 15 || Clock::now() > deadline) return;
  std::vector<float> ds;
  ds.reserve(ws.blobs.size());
  for (const Blob& b : ws.blobs) ds.push_back(b.d);
  std::nth_element(ds.begin(), ds.begin() + ds.size() / 2, ds.end());
  stats.medianD = ds[ds.size() / 2];
  SpatialIndex index;
  index.build(ws.blobs, img.width, img.height, std::min(64.0f, std::max(4.0f, 3.0f * ds[ds.size() / 2])));
  std::vector<std::vector<int>> clusters;
  if (pass.peaks) {
    groupSeeds(ws.blobs, ws.peaks.keep, img.width, img.height, std::min(64.0f, std::max(4.0f, 3.0f * ds[ds.size() / 2])), 15,
               clusters);
  } else {
    groupDots(ws.blobs, index, 15, clusters);
  }
  if (tp)
    for (const auto& cl : clusters) {
      tp->clusters.emplace_back();
      for (int k : cl)
        if (static_cast<size_t>(k) < tp->dots.size()) tp->clusters.back().push_back(k);
    }
  PPROF("   %zu clusters (largest %zu), grouped at %.2f ms\n", clusters.size(), clusters.empty() ? 0 : clusters[0].size(), msSince());
  std::vector<uint8_t> used(ws.blobs.size(), 0);
  std::vector<uint8_t> usedBefore;  // (peaks: the marks before a cluster's growth, for its second growth)
  int tried = 0;
  for (const auto& cluster : clusters) {
    if (++tried > 24 || Clock::now() > deadline) break;
    // a cluster mostly consumed by an earlier lattice is not tried again
    int fresh = 0;
    for (int k : cluster) fresh += used[k] ? 0 : 1;
    if (fresh < 15) continue;
    Candidate cand;
    if (pass.peaks) usedBefore = used;
    bool ok = fitLattice(ws.blobs, index, cluster, used, cand.fit, pass.peaks ? 0.5f : 0.35f);
    // (before the peaks' trim, which keeps the densest band of rows that may run askew)
    LatticeFit others[2];
    const int nOthers = cand.fit.basisFound && !cand.fit.texture ? otherDiagonals(cand.fit, pass.peaks, others) : 0;
    // peaks: the growth also reaches stroke ends of the text beside the symbol (the fit's own
    // fill test then fails on the too-large extent, or passes with sparse extra rows): trim first
    if (pass.peaks && cand.fit.basisFound && !cand.fit.texture && !cand.fit.dots.empty()) ok = trimToDenseBand(cand.fit);
    PPROF("   cluster %zu: basis %d ok %d dots %zu full %.2f at %.2f ms\n", cluster.size(), cand.fit.basisFound, ok, cand.fit.dots.size(), cand.fit.fullFraction, msSince());
    {
      float dsum = 0;
      Rect r{1 << 30, 1 << 30, -1, -1};
      for (int k : cluster) {
        const Blob& b = ws.blobs[k];
        dsum += b.d;
        r.x0 = std::min(r.x0, static_cast<int>(b.x));
        r.y0 = std::min(r.y0, static_cast<int>(b.y));
        r.x1 = std::max(r.x1, static_cast<int>(b.x) + 1);
        r.y1 = std::max(r.y1, static_cast<int>(b.y) + 1);
      }
      if (cand.fit.basisFound) {
        stats.lattice = true;
        stats.lattices.push_back(toImage(frame, r));
        if (dsum / cluster.size() < 3.0f) stats.tiny.push_back(toImage(frame, r));
      }
      // Every cluster but a texture may be part of a symbol the harder passes can read (a few
      // dots left over from a symbol whose other dots merged give no lattice yet).
      if (!cand.fit.texture) {
        stats.focus.push_back(toImage(frame, r));
        ++stats.clusters;
      } else if (cluster.size() >= kTextureMinDots) {
        // (grown by the margin the focus regions get, so the regions a texture makes fall inside)
        const int m = static_cast<int>(kTextureMargin * dsum / cluster.size());
        stats.textures.push_back(toImage(frame, {r.x0 - m, r.y0 - m, r.x1 + m, r.y1 + m}));
      }
    }
    const int clusterIndex = static_cast<int>(&cluster - clusters.data());
    // The lattice mapped, sampled and handed to onCandidate; false when onCandidate stops the pass.
    auto handOver = [&](Candidate& c, bool fitted, const char* sampled) {
      if (!fitted) {
        traceLattice(tp, clusterIndex, ws.blobs, c.fit, frame,
                     c.fit.texture ? "texture" : c.fit.basisFound ? "lattice rejected (growth or fill)"
                                                                  : "no lattice");
        return true;
      }
      if (!c.mapper.fit(ws.blobs, c.fit)) {
        traceLattice(tp, clusterIndex, ws.blobs, c.fit, frame, "no grid map");
        return true;
      }
      traceLattice(tp, clusterIndex, ws.blobs, c.fit, frame, sampled);
      c.ctx.img = &img;
      c.ctx.mapper = &c.mapper;
      c.ctx.dark = pass.dark;
      c.ctx.parity = (c.fit.dots[0].row + c.fit.dots[0].col) & 1;
      c.ctx.pitch = c.fit.pitch;
      c.ctx.blobs = &ws.blobs;
      c.ctx.index = &index;
      c.blobs = &ws.blobs;
      c.dark = pass.dark;
      calibrateLevels(c.ctx, ws.blobs, c.fit);
      PPROF("     candidate %dx%d at %.2f ms\n", c.fit.rowMax - c.fit.rowMin + 1, c.fit.colMax - c.fit.colMin + 1, msSince());
      const bool go = onCandidate(c);
      PPROF("     decoded at %.2f ms\n", msSince());
      return go;
    };
    if (!handOver(cand, ok, "sampled")) return;
    bool read = cand.read;
    // Peaks: among the text, glare and print beside a symbol the peaks lie so dense that the
    // growth's longest steps (three diagonals, made to jump a symbol's empty stretches) find one
    // near nearly every position, and the lattice runs on across them, away from the symbol, whose
    // far end it then never reaches. A lattice that took such steps and did not read is grown
    // again from the same cluster with steps of at most two diagonals, and read when that gives
    // another lattice of a pack symbol's shape (the decoys of empty frames mostly give none).
    if (pass.peaks && ok && !cand.read && cand.fit.farGrown > 0 && Clock::now() < deadline) {
      used.swap(usedBefore);  // (the marks from before the first growth; usedBefore now holds those after it)
      Candidate again;
      again.regrown = true;
      bool fitted = regrowLattice(ws.blobs, index, cand.fit, used, 2, again.fit) && trimToDenseBand(again.fit);
      fitted = fitted && shortAndWide(again.fit) && again.fit.dots.size() >= kRegrownMinDots && !sameExtent(again.fit, cand.fit);
      for (size_t k = 0; k < used.size(); ++k) used[k] = static_cast<uint8_t>(used[k] | usedBefore[k]);
      PPROF("   grown again: %zu dots (%d by far steps) -> %zu, read %d\n", cand.fit.dots.size(), cand.fit.farGrown, again.fit.dots.size(), fitted);
      if (fitted && !handOver(again, true, "grown again with shorter steps")) return;
      read = again.read;
    }
    // A steep view: the same dots with the other diagonals the basis allows (otherDiagonals).
    for (int k = 0; k < nOthers && !read && Clock::now() < deadline; ++k) {
      Candidate other;
      other.fit = std::move(others[k]);
      other.reindexed = true;
      PPROF("   other diagonals %d: %zu dots, %dx%d\n", k, other.fit.dots.size(), other.fit.rowMax - other.fit.rowMin + 1, other.fit.colMax - other.fit.colMin + 1);
      if (!handOver(other, true, "indexed by other diagonals (a steep view)")) return;
      read = other.read;
    }
  }
  PPROF("   pass end %.2f ms\n", msSince());
}

// What the first stages of the pass schedule (PassSchedule::kDirect) saw of an image, which the
// later ones read their regions from: kept between the two sweeps over a large photo's windows
// (readInWindows).
struct StagesSeen {
  PassStats dark, light;       // the fast pass's (dark dots) and the inverted pass's (light dots)
  std::vector<Rect> focus;     // the harder passes' regions
  std::vector<float> regionD;  // per focus region: the adaptive pass's typical blob size (0: no cluster)
  // Lattices that did not read and reach beyond the crop they were found in (a focus region can
  // hold only part of a symbol): their image box, to be read again whole.
  std::vector<Rect> spill;
  struct BlurredRegion {
    Rect region;  // a focus region of the frame
    BlurEstimate blur;
  };
  std::optional<BlurredRegion> soft;     // deblurred's region, when its estimate may be a Gaussian's blur
  std::optional<BlurredRegion> shallow;  // deblurred's region, when its disc's blur edge was shallow
  std::vector<Rect> fine;                // boxes of light lattices of very small modules (upsampledPeaks)
  std::vector<Rect> textures;            // boxes of large dotted textures any pass found
  bool complete = false;                 // every first stage ran and none read a symbol
};

// What readAsGiven is handed: the image as given, or a copy readDotCodes made of it.
struct ImageCopy {
  bool halveLarge = true;       // a large image is read halved too when nothing read (pass 8)
  bool halveDeblurred = true;   // the deblurred stage may halve a large region (not on an upsampled copy)
  bool softAsGiven = false;     // an upsampled copy of an image whose edges looked soft
  bool darkDeconvolved = true;  // the deconvolving peaks stages read dark dots too (darkDeconvolvedPeaks)
  // A large photo's window in two sweeps: the first stages only, what they saw kept here ...
  StagesSeen* pauseAt = nullptr;
  // ... then, later, the deconvolving stages from what the first ones saw.
  const StagesSeen* resumeFrom = nullptr;
  bool largePhotoWindow = false;  // a window of a large photo (kWindowAllowances)
};

// The passes in the order they run, each a stage of PassSchedule: the fast pass on the whole
// frame, then (tryHarder, nothing read yet) the harder ones, each only where an earlier pass saw
// something of a symbol. onCandidate(cand, pass, frame) returns 1 = a symbol was read,
// 0 = not read, -1 = stop everything; the schedule stops at the first read.
template <class F>
class PassSchedule {
 public:
  using Stage = void (PassSchedule::*)();
  PassSchedule(const GreyImage& image, const ReadOptions& options, Clock::time_point deadline, const ImageCopy& copy, F& onCandidate)
      : image_(image), options_(options), deadline_(deadline), copy_(copy), onCandidate_(onCandidate) {}

  void runAll() {
    // The harder stages in two parts: those that read the image's own pixels (and the cheap
    // deconvolution of deblurred), then those that deconvolve every region they read, which cost
    // as much again and read few of the symbols (a large photo's windows run the first part on every
    // window before the second on any: readInWindows).
    static constexpr Stage kDirect[] = {
        &PassSchedule::inverted,          // light dots on a dark ground (laser-etched, reversed print)
        &PassSchedule::adaptive,          // dots merged by blur and ink spread, faint prints
        &PassSchedule::adaptiveInverted,  // the same for light dots, where they looked lattice-like
        &PassSchedule::spilled,           // lattices cut by their region's border, read whole
        &PassSchedule::sharpened,         // dots blurred into chains: a high-pass image
        &PassSchedule::deblurred,         // dots blurred into a smear: the blur estimated and undone
        &PassSchedule::peaks,             // small dots that touch or barely stand out (packs)
        &PassSchedule::upsampled,         // dots of 2-3 px: regions read at twice the size
        &PassSchedule::upsampledPeaks,    // light dots of under 2.6 px: lattice boxes at twice the size
    };
    static constexpr Stage kDeconvolving[] = {
        &PassSchedule::shallowDeblurred,      // deblurred's region whose disc's blur edge was shallow
        &PassSchedule::deblurredPeaks,        // light dots smeared by motion: their region deconvolved
        &PassSchedule::defocusedPeaks,        // light dots under defocus: their region deconvolved
        &PassSchedule::largeDeblurredPeaks,   // the same for regions too large for those two
        &PassSchedule::shortSmearPeaks,       // the smear pass again with shorter streaks
        &PassSchedule::gaussianDeblurred,     // the soft region of deblurred as a Gaussian's blur
        &PassSchedule::darkDeconvolvedPeaks,  // dark dots: the four deconvolving stages again
    };
    auto deconvolve = [&] {
      deconvolvingStages_ = true;  // (the trace marks their passes)
      runStages(kDeconvolving);
    };
    workspace().locate.forgetStats();  // (a new image may sit at the address of the last one)
    if (copy_.resumeFrom) {
      seen_ = *copy_.resumeFrom;
      deconvolve();
      return;
    }
    run(image_, kFast, identity_, seen_.dark, false);
    if (found_ || !options_.tryHarder) return;
    // The harder passes can only find a symbol where the fast pass saw something of it: a
    // lattice-like cluster it could not read, or a filled component too big for a dot (dots merged
    // by blur or ink spread; the dark ground around light dots, for the inverted passes). They run
    // on those regions only (most frames hold no symbol, and whole-frame passes are what an empty
    // frame would pay), or on the whole frame when the regions cover most of it.
    wholeSmallImage();
    focusRegions(seen_.dark.focus, image_.width, image_.height, seen_.focus);
#ifdef DC_PROF
    for (const Rect& r : seen_.focus) PPROF("  focus %d,%d-%d,%d\n", r.x0, r.y0, r.x1, r.y1);
#endif
    if (!runStages(kDirect)) return;
    if (copy_.pauseAt) {
      *copy_.pauseAt = std::move(seen_);
      copy_.pauseAt->complete = true;
      return;
    }
    deconvolve();
  }

 private:
  // The stages in order until one reads a symbol or the time is up; false then.
  template <size_t N>
  bool runStages(const Stage (&stages)[N]) {
    for (const Stage& stage : stages) {
#ifdef DC_PROF
      const auto t0 = std::chrono::steady_clock::now();
#endif
      (this->*stage)();
      PPROF(" harder stage %d: %.2f ms\n", static_cast<int>(&stage - stages), PPROF_MS_SINCE(t0));
      if (over()) return false;
    }
    return true;
  }

  // A small image (a crop around one symbol, a vial filling a low-resolution frame) of which the
  // fast pass saw no region: its threshold follows the block statistics, which a cylinder's
  // shading and its specular stripe throw off, so clear dots can go unseen. The whole image is
  // then the region of every harder pass, both polarities: cheap at this size, and the only
  // place left to look.
  void wholeSmallImage() {
    const Rect whole{0, 0, image_.width, image_.height};
    if (!seen_.dark.focus.empty() || !seen_.light.focus.empty() || areaOf(whole) > kWholeFocusPixels) return;
    seen_.dark.focus.push_back(whole);
    seen_.light.focus.push_back(whole);
  }

  // One pass over an image (the frame, a crop of it, or a resampled copy), each lattice handed to
  // onCandidate; a lattice that did not read and reaches past its crop is noted for a re-read.
  void run(const GreyImage& img, const Pass& pass, const Frame& frame, PassStats& stats, bool reuse = true) {
    if (stop_ || Clock::now() > deadline_) return;
    const size_t traced = options_.trace ? options_.trace->passes.size() : 0;
    runPass(img, pass, frame, options_.trace, reuse, deadline_, stats, [&](Candidate& cand) {
      cand.lastStage = largeOnly_ || lastStage_;
      cand.deconvolved = deconvolvingStages_ || deblurring_;
      int r = onCandidate_(cand, pass, frame);
      cand.read = r > 0;
      if (r > 0) found_ = true;
      if (r < 0) stop_ = true;
      // (only lattices of some size: a symbol cut in two still leaves dozens of dots in each part)
      // (a lattice without DotCode content is no part of a symbol either: not read again)
      // (nor another indexing of a lattice's dots: the first indexing noted their box)
      if (r != 0 || cand.notDotCode || cand.reindexed) return r >= 0;
      if (seen_.spill.size() < 8 && cand.fit.dots.size() >= (pass.peaks ? 25u : 40u)) noteSpill(cand, pass, frame, img);
      if (pass.peaks && !pass.dark && seen_.fine.size() < kMaxFineCrops && cand.fit.pitch / frame.scale < kFinePitch) noteFine(cand, frame);
      return r >= 0;
    });
    // (runPass traces the pass it ran, if any, last)
    if (options_.trace && options_.trace->passes.size() > traced) options_.trace->passes.back().deconvolving = deconvolvingStages_;
    seen_.textures.insert(seen_.textures.end(), stats.textures.begin(), stats.textures.end());
    stats.textures.clear();
  }

  // A region lying mostly inside a large dotted texture that an earlier pass found (a dot
  // screen, a perforation pattern, a grid of dots): no symbol sits inside one, and each harder
  // pass would otherwise find the texture again (its dots, then the gaps between them as a
  // lattice of the other polarity) and pay its fits.
  bool inTexture(const Rect& r) const {
    const double area = areaOf(r);
    for (const Rect& t : seen_.textures) {
      const double w = std::min(r.x1, t.x1) - std::max(r.x0, t.x0), h = std::min(r.y1, t.y1) - std::max(r.y0, t.y0);
      if (w > 0 && h > 0 && w * h >= kTextureCover * area) return true;
    }
    return false;
  }

  // A rectangle of the frame: the frame itself when it covers it, else a crop. The inverted and
  // adaptive passes read the same regions, so a crop's block statistics are kept for the next
  // pass over it (a crop is a view of this image: its address and size name its pixels).
  void runOn(const Rect& r, const Pass& pass, PassStats& stats) {
    if (inTexture(r)) return;
    if (r.x0 == 0 && r.y0 == 0 && r.x1 == image_.width && r.y1 == image_.height) {
      run(image_, pass, identity_, stats);
      return;
    }
    run(crop(r), pass, Frame{1.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)}, stats, true);
  }

  GreyImage crop(const Rect& r) const {
    return GreyImage{image_.data + static_cast<size_t>(r.y0) * image_.stride + r.x0, r.x1 - r.x0, r.y1 - r.y0, image_.stride};
  }

  void noteSpill(const Candidate& cand, const Pass& pass, const Frame& frame, const GreyImage& img) {
    const LatticeFit& f = cand.fit;
    // grid positions of margin: a lost edge row, the quiet zone; a short wide lattice may
    // be only part of its symbol along the long axis (glare, a crease), so more there
    const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
    const bool shortWide = shortAndWide(f);
    const float mr = shortWide && H > W ? std::min<float>(kSpillReach, 0.5f * H) : 2.0f;
    const float mc = shortWide && W > H ? std::min<float>(kSpillReach, 0.5f * W) : 2.0f;
    const float gr[2] = {f.rowMin - mr, f.rowMax + mr}, gc[2] = {f.colMin - mc, f.colMax + mc};
    float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
    for (float rr : gr)
      for (float cc : gc) {
        const PointF p = cand.mapper.map(rr, cc);
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y);
        y1 = std::max(y1, p.y);
      }
    const bool beyond = x0 < 0 || y0 < 0 || x1 > img.width || y1 > img.height;
    if (beyond && frame.ox + frame.oy > 0 && (x1 - x0) * (y1 - y0) <= 400000.0f * frame.scale * frame.scale) {
      Rect b{static_cast<int>(x0 / frame.scale + frame.ox), static_cast<int>(y0 / frame.scale + frame.oy),
             static_cast<int>(x1 / frame.scale + frame.ox) + 1, static_cast<int>(y1 / frame.scale + frame.oy) + 1};
      b.x0 = std::max(0, b.x0);
      b.y0 = std::max(0, b.y0);
      b.x1 = std::min(image_.width, b.x1);
      b.y1 = std::min(image_.height, b.y1);
      if (b.x1 - b.x0 >= 8 && b.y1 - b.y0 >= 8) (pass.peaks ? (pass.dark ? spillPeaksDark_ : spillPeaksLight_) : seen_.spill).push_back(b);
    }
  }

  // A light lattice of modules under kFinePitch px that did not read: its box, with half its
  // length of margin along its long axis, for the upsampled peaks stage.
  void noteFine(const Candidate& cand, const Frame& frame) {
    const LatticeFit& f = cand.fit;
    const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
    const float mr = H > W ? std::max(0.5f * H, 20.0f) : 3.0f, mc = W >= H ? std::max(0.5f * W, 20.0f) : 3.0f;
    float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
    for (float rr : {f.rowMin - mr, f.rowMax + mr})
      for (float cc : {f.colMin - mc, f.colMax + mc}) {
        const PointF p = cand.mapper.map(rr, cc);
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
      }
    Rect b{std::max(0, static_cast<int>(x0 / frame.scale + frame.ox)), std::max(0, static_cast<int>(y0 / frame.scale + frame.oy)),
           std::min(image_.width, static_cast<int>(x1 / frame.scale + frame.ox) + 1),
           std::min(image_.height, static_cast<int>(y1 / frame.scale + frame.oy) + 1)};
    if (b.x1 - b.x0 < 8 || b.y1 - b.y0 < 8) return;
    for (const Rect& o : seen_.fine)
      if (b.x0 >= o.x0 && b.y0 >= o.y0 && b.x1 <= o.x1 && b.y1 <= o.y1) return;  // already noted
    seen_.fine.push_back(b);
  }

  // Light dots of 1.5-2.5 px (a pack seen from afar, a phone photo of a whole shelf): the peak
  // filter blurs neighbours together at that size and the lattice it finds is only part of the
  // symbol. The boxes of such lattices are read again upsampled twice (at most kMaxFineCrops,
  // each at most kFinePixels before upsampling).
  void upsampledPeaks() {
    size_t crops = 0;
    for (const Rect& r : seen_.fine) {
      if (over() || ++crops > kMaxFineCrops) break;
      if (areaOf(r) > kFinePixels) continue;
      GreyImage up;
      std::vector<uint8_t> buf;
      upsample2(crop(r), buf, up);
      run(up, kPeaksLight, Frame{2.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)}, unused_, false);
    }
  }

  void inverted() {
    for (const Rect& r : seen_.focus) {
      if (found_ || stop_) return;
      runOn(r, kInverted, seen_.light);
    }
  }

  // The stricter threshold; the blob size it sees per region sets the sharpened pass's window.
  void adaptive() {
    seen_.regionD.assign(seen_.focus.size(), 0);
    for (size_t i = 0; i < seen_.focus.size() && !found_ && !stop_; ++i) {
      PassStats st;
      runOn(seen_.focus[i], kAdaptive, st);
      seen_.regionD[i] = st.clusters > 0 ? st.medianD : 0;
    }
  }

  // Light prints are rarely blurred into one shape; only a lattice-like light cluster justifies it.
  // (per region: only where the inverted pass saw such a cluster; the other regions of a frame
  // are a barcode, text, a label, whatever made the fast pass look there)
  void adaptiveInverted() {
    if (!seen_.light.lattice) return;
    for (const Rect& r : seen_.focus) {
      if (found_ || stop_) return;
      bool seen = false;
      for (const Rect& b : seen_.light.lattices) seen = seen || overlaps(b, r);
      if (seen) runOn(r, kAdaptiveInverted, unused_);
    }
  }

  // Lattices cut by their region's border: the adaptive pass again on the whole lattice box.
  void spilled() {
    if (seen_.spill.empty()) return;
    std::vector<Rect> boxes;
    focusRegions(seen_.spill, image_.width, image_.height, boxes);
    seen_.spill.clear();
    for (const Rect& r : boxes) {
      if (found_ || stop_) break;
      if (inTexture(r)) continue;
      PassStats st;
      run(crop(r), kAdaptive, Frame{1.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)}, st, false);
      seen_.focus.push_back(r);
      seen_.regionD.push_back(st.clusters > 0 ? st.medianD : 0);
    }
  }

  // Blurred dots: a high-pass image of each region with a window of about half a dot pitch
  // (half the blob size the adaptive pass saw there: merged chains make it an overestimate, which
  // the window tolerates). Regions where the adaptive pass grouped no cluster of similar blobs
  // hold no symbol.
  void sharpened() {
    int sharpened = 0;
    for (size_t i = 0; i < seen_.focus.size() && !over(); ++i) {
      if (seen_.regionD[i] < 3 || inTexture(seen_.focus[i])) continue;
      const Rect& r = seen_.focus[i];
      // only where the fast pass saw dots merged into big filled shapes, several of them (most
      // regions of an empty frame are text and textures, where this pass would only cost time)
      int mergedIn = 0;
      for (const Rect& b : seen_.dark.merged) mergedIn += overlaps(b, r) ? 1 : 0;
      PPROF("  sharpen? region %d,%d-%d,%d merged %d d %.1f\n", r.x0, r.y0, r.x1, r.y1, mergedIn, seen_.regionD[i]);
      if (mergedIn < 2) continue;  // a blurred symbol breaks into several merged shapes
      // bounded work, as for the scaled pass: at most 2 regions of at most 400k pixels
      if (areaOf(r) > 400000 || ++sharpened > 2) continue;
      const int R = std::min(8, std::max(2, static_cast<int>(std::lround(0.5f * seen_.regionD[i]))));
      const GreyImage region = crop(r);
      GreyImage hp;
      Workspace& ws = workspace();
      highPass(region, R, 3.0f, ws.integral, ws.sharpened, hp);
      const Frame f{1.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)};
      run(hp, kSharpenedAdaptive, f, unused_, false);
    }
  }

  // Heavy blur: the largest focus region that looks blurred (cheap cues: a strongly anisotropic
  // gradient for motion, wide edges for defocus), its blur estimated and deconvolved. One region
  // per image of at most kDeblurPixels, so an empty frame pays the cues and rarely one estimate.
  void deblurred() {
    int best = -1, bestLarge = -1;
    double bestArea = 0, bestLargeArea = 0;
    BlurEstimate blur, blurLarge;
    for (size_t i = 0; i < seen_.focus.size(); ++i) {
      const Rect& r = seen_.focus[i];
      const double area = areaOf(r);
      if (area > kDeblurHalvedPixels || inTexture(r)) continue;
      BlurEstimate cues;
      measureBlurCues(crop(r), cues);
      const float score = std::max(cues.anisotropy / kMotionAnisotropy, cues.edgeWidth / kBlurredEdgeWidth);
      PPROF("  deblur? region %d,%d-%d,%d anisotropy %.1f edge width %.1f\n", r.x0, r.y0, r.x1, r.y1, cues.anisotropy, cues.edgeWidth);
      // the largest such region (a fragment of a blurred symbol looks as blurred as the symbol)
      if (score <= 1) continue;
      if (area <= kDeblurPixels && area > bestArea) bestArea = area, best = static_cast<int>(i), blur = cues;
      if (area > kDeblurPixels && area > bestLargeArea) bestLargeArea = area, bestLarge = static_cast<int>(i), blurLarge = cues;
    }
    const bool halved = best < 0;
    if (halved) {
      if (!copy_.halveDeblurred) return;
      best = bestLarge, blur = blurLarge;
    }
    if (best < 0 || over()) return;
    const Rect& r = seen_.focus[best];
    std::vector<uint8_t> halfBuf;
    Frame f;
    const GreyImage region = focusAtDeblurScale(r, halfBuf, f);
    if (!estimateBlur(region, blur)) return;
    // (on an upsampled copy, where every edge looks soft, only when the image as given did)
    const bool mayBeGaussian = copy_.halveDeblurred || (copy_.softAsGiven && blur.radius <= kMostGaussianRadiusOnCopy);
    if (!blur.motion && !halved && mayBeGaussian && blur.depth >= kMinShallowBlurDepth && blur.radius >= kMinGaussianRadius) seen_.soft = StagesSeen::BlurredRegion{r, blur};
    PPROF("  deblur region %d,%d-%d,%d motion %d length %.1f angle %.0f radius %.1f depth %.2f\n", r.x0, r.y0, r.x1, r.y1,
          blur.motion, blur.length, blur.angle * 57.3f, blur.radius, blur.depth);
    // a blur edge too short to merge dots of a readable size, or no clear one
    if ((blur.motion ? blur.length : 2 * blur.radius) < kMinBlurExtent) return;
    if (blur.depth < kMinBlurDepth) {
      if (!blur.motion && blur.depth >= kMinShallowBlurDepth) seen_.shallow = StagesSeen::BlurredRegion{r, blur};
      return;
    }
    deconvolveAndRead(region, blur, f);
  }

  // A focus region as the deblurring stages read it: halved (2x2 mean) when larger than
  // kDeblurPixels, so that its deconvolution costs no more than a region of kDeblurPixels.
  GreyImage focusAtDeblurScale(const Rect& r, std::vector<uint8_t>& halfBuf, Frame& f) const {
    const GreyImage full = crop(r);
    GreyImage region = full;
    const bool halved = areaOf(r) > kDeblurPixels;
    if (halved) downsample2(full, halfBuf, region);
    f = Frame{halved ? 0.5f : 1.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)};
    return region;
  }

  // The region deblurred's thresholds read once the direct stages read nothing: its disc's blur
  // edge was shallow (kMinShallowBlurDepth).
  void shallowDeblurred() {
    if (!seen_.shallow || over()) return;
    std::vector<uint8_t> halfBuf;
    Frame f;
    const GreyImage region = focusAtDeblurScale(seen_.shallow->region, halfBuf, f);
    lastStage_ = true;  // (the earlier stages' decoys have taken their allowance of extended lattices)
    deconvolveAndRead(region, seen_.shallow->blur, f);
    lastStage_ = false;
  }

  // deblurred's region deconvolved with its estimate and read by the deblurred thresholds; a disc
  // the estimate may have undershot again with larger multiples of it.
  void deconvolveAndRead(const GreyImage& region, BlurEstimate blur, const Frame& f) {
    GreyImage sharp;
    std::vector<uint8_t> buf;
    const float estimated = blur.radius;
    size_t spills = 0;
    const bool undershot = !blur.motion && blur.anisotropy <= kDefocusRetryAnisotropy && blur.edgeWidth >= kDefocusRetryEdgeWidth;
    deblurring_ = true;
    for (size_t k = 0; k <= kDefocusRetries; ++k) {
      if (k > 0) {
        if (!undershot || over()) break;
        blur.radius = kDefocusRetryScales[k - 1] * estimated;
      }
      deblurRegion(region, blur, kWienerRegularisation, buf, sharp);
      readDeblurred(sharp, f, blur.lightDots);
      // a retry's lattices come from a guessed kernel: not worth a spill re-read of the frame
      // (one took the place of the spill that read a real pack photo)
      if (k == 0)
        spills = seen_.spill.size();
      else if (seen_.spill.size() > spills)
        seen_.spill.resize(spills);
    }
    deblurring_ = false;
  }

  // Small dots that touch or barely stand out (tobacco packs): response maxima, in the regions
  // where either polarity's fast pass saw dots or clusters.
  void peaks() {
    std::vector<Rect> regions;
    bool centreSwept = false;
    // The dark regions are mostly the fast pass's focus regions, and those that are its filled
    // shapes are light regions too (the dark panels light dots sit on): a light read of such a
    // region keeps its response, which the dark read negates instead of computing its own
    // (PeakParams::keepResponse; the same peaks). Not in the deconvolving re-runs: their two halves
    // are calls apart (darkDeconvolvedPeaks), and the light half keeps the deconvolved copy of such
    // a region instead (deconvolved_). The dark pass reads these regions too.
    std::vector<Rect> darkRegions;
    darkPeaksRegions(darkRegions);
    auto readByBoth = [&](const Rect& r) { return std::any_of(darkRegions.begin(), darkRegions.end(), [&](const Rect& d) { return sameRect(d, r); }); };
    workspace().peaks.forgetResponses();
    const Allowances& allow = allowances();
    for (const Pass* pass : {&kPeaksLight, &kPeaksDark}) {
      // (the deconvolving re-runs read one polarity per call: light dots in their own stages,
      // dark dots in darkDeconvolvedPeaks)
      if (deblur_ != PeaksDeblur::none && pass->dark != darkDeconvolving_) continue;
      // light dots: where the inverted pass saw light clusters, and on the filled dark shapes
      // the fast pass rejected as too big for a dot (the dark panel such prints sit on)
      // (in that order: the pixel budget goes to the likelier places first)
      if (pass->dark)
        regions = darkRegions;
      else
        lightPeaksRegions(regions);
#ifdef DC_PROF
      for (const Rect& r : regions) PPROF("  peaks %s region %d,%d-%d,%d\n", pass->dark ? "dark" : "light", r.x0, r.y0, r.x1, r.y1);
#endif
      // bounded work, as for the other region passes: an empty frame must not pay a whole-frame
      // peak search (kPeaksPixels per polarity, a 640x480 scanner frame fits)
      double budget = pass->dark ? allow.peaksDark : allow.peaksLight;
      std::vector<Rect>& spilled = pass->dark ? spillPeaksDark_ : spillPeaksLight_;
      // A lattice cut by its region's border is the best evidence of a symbol there is: its
      // re-reads have their own allowance, so large empty regions read first (a phone photo's
      // text and texture) cannot use up what it needs.
      double spillBudget = pass->dark ? allow.peaksDark : allow.spill;
      bool fromSpill = false;
      int large = 0;  // (largeOnly_: the large regions read so far)
      // later rounds: lattices cut by their region's border, read again on their whole box (a
      // blurred lattice grows a little with each re-read)
      for (int round = 0; round < kPeaksRounds; ++round) {
        // (at once only in the plain stage; the deconvolving stages keep their sweep after the
        // regions, as before)
        const bool due = round > 0 || deblur_ == PeaksDeblur::none;
        if (due && regions.empty() && !pass->dark && !centreSwept) centreSwept = centreSweep(budget, regions);
        if (regions.empty()) break;
        for (size_t ri = 0; ri < regions.size() && static_cast<int>(ri) < kPeaksRegions; ++ri) {
          if (over()) return;
          const Rect r = regions[ri];
          if (inTexture(r)) continue;
          const double area = areaOf(r);
          if (largeOnly_ && !fromSpill && (area <= kDeblurPixels || ++large > kLargeDeblurRegions)) continue;
          double& pool = fromSpill ? spillBudget : budget;
          if (area > pool) continue;
          pool -= area;
          GreyImage region = crop(r);
          std::vector<uint8_t> buf;
          if (deblur_ != PeaksDeblur::none && !deconvolvedRegion(r, !pass->dark && darkHalfRuns() && readByBoth(r), buf, region)) continue;
          PassStats full;
          const bool shared = deblur_ == PeaksDeblur::none && (pass->dark || readByBoth(r));
          run(region, *pass, Frame{1.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)}, full, shared);
          // Dots of 4+ px have several maxima of the small centre-surround filter (their rims);
          // at half resolution the same filter fits them (a quarter of the work). Not where the
          // full-resolution peaks were small (see kHalfMinPeakD).
          const bool smallPeaks = full.medianD > 0 && full.medianD < kHalfMinPeakD;
          if (!found_ && !stop_ && !smallPeaks && region.width >= kHalfMin && region.height >= kHalfMin) {
            GreyImage half;
            downsample2(region, workspace().half, half);
            run(half, *pass, Frame{0.5f, static_cast<float>(r.x0), static_cast<float>(r.y0)}, unused_, false);
          }
        }
        regions = unionOfOverlapping(spilled);  // (the boxes already hold their margin)
        spilled.clear();
        fromSpill = !regions.empty();
      }
    }
  }

  // The fast passes' regions are a guess: a symbol of small light dots can sit where they saw
  // nothing, or they may have seen nothing at all (a pack turned 45 degrees whose frame held no
  // other print to draw a region). Once the regions are read, or at once when there are none,
  // what is left of the light peaks budget (at most Allowances::sweep) goes to the middle of the
  // frame (where a user aims), the whole frame when it fits. True when the sweep was due (whether
  // or not it fits).
  bool centreSweep(double budget, std::vector<Rect>& regions) const {
    if (largeOnly_ || !options_.tryHarder) return false;
    const double full = static_cast<double>(image_.width) * image_.height;
    const double share = std::min(1.0, std::min(budget, allowances().sweep) / full);
    if (share >= 0.25) {
      const double k = std::sqrt(share);
      const int w = static_cast<int>(image_.width * k), h = static_cast<int>(image_.height * k);
      regions.push_back({(image_.width - w) / 2, (image_.height - h) / 2, (image_.width - w) / 2 + w, (image_.height - h) / 2 + h});
    }
    return true;
  }

  // Dots smeared by motion (a hand-held phone, a moving line: a streak of 5-7 px over modules of
  // 2.5-6 px): along the streak the dots run together, and the peak search finds no lattice or a
  // broken one. When the image as a whole shows a streak's anisotropy (ImageBlurCues), the peaks
  // stage runs again with each region's blur estimated from the region itself and, where it is a
  // streak of kMinSmear..kMaxSmear px, deconvolved first. When that reads nothing, once more with
  // one streak for every region, estimated from all of them (sharedStreak). The light dots of a
  // pack's dark panel here; dark inkjet dots on a light one once every light stage is done
  // (darkDeconvolvedPeaks: the real pack photos' negatives under a 7 px streak at 0, 30 and 90
  // degrees read 94 of 129 with the light half alone, 117 with both; docs/detector.md, "Dark dots
  // in the deconvolving stages").
  void deblurredPeaks() {
    const ImageBlurCues& cues = blurCues();
    PPROF("  smear cue %.2f\n", cues.anisotropy);
    if (cues.anisotropy < (cues.edgeWidth >= kDefocusEdgeWidth ? kSoftSmearAnisotropy : kSmearAnisotropy)) return;
    deblur_ = PeaksDeblur::smear;
    peaks();
    if (!found_ && !stop_ && sharedStreak(cues.weakAngle, sharedSmear_)) {
      deblur_ = PeaksDeblur::sharedSmear;
      peaks();
    }
    deblur_ = PeaksDeblur::none;
  }

  // Dots under defocus (a lens focused off the pack, a soft camera: a Gaussian of 1.5 px over
  // modules of 2.5-6 px): neighbouring dots blur into one another and the peak search finds
  // no lattice or a broken one. When the image as a whole is soft (ImageBlurCues), the peaks stage
  // runs again with each region deconvolved by a disc (undefocus): light dots here, dark ones in
  // darkDeconvolvedPeaks.
  void defocusedPeaks() {
    PPROF("  defocus cue %.2f\n", blurCues().edgeWidth);
    if (blurCues().edgeWidth < kDefocusEdgeWidth) return;
    deblur_ = PeaksDeblur::defocus;
    peaks();
    deblur_ = PeaksDeblur::none;
  }

  // Light dots under motion or defocus in a region too large for deblurredPeaks and
  // defocusedPeaks (up to kLargeDeblurPixels), once both read nothing: the same two stages on
  // the large regions alone. The shared streak is estimated again with the large regions' windows
  // too (on scn-hd-case-14 under a 7 px streak the small regions alone gave 18.5 px, with the
  // symbol's region 7.5 px, which reads it).
  void largeDeblurredPeaks() {
    if (blurCues().edgeWidth < kLargeDeblurEdgeWidth) return;
    std::vector<Rect> regions;
    // (the regions of the polarity under way: the dark half reads the dark ones)
    if (darkDeconvolving_)
      darkPeaksRegions(regions);
    else
      lightPeaksRegions(regions);
    if (std::none_of(regions.begin(), regions.end(), [](const Rect& r) {
          const double area = areaOf(r);
          return area > kDeblurPixels && area <= kLargeDeblurPixels;
        }))
      return;
    largeOnly_ = true;
    deblurredPeaks();
    if (!over()) defocusedPeaks();
    largeOnly_ = false;
  }

  // A deconvolved region read by the deblurred thresholds: light dots first where the window's
  // ground is dark (a dense dark symbol under heavy defocus can look the same, so the dark
  // thresholds follow there).
  void readDeblurred(const GreyImage& sharp, const Frame& f, bool lightDots) {
    if (lightDots) {
      run(sharp, kDeblurredInverted, f, unused_, false);
      if (!found_ && !stop_) run(sharp, kDeblurredAdaptiveInverted, f, unused_, false);
    }
    if (!found_ && !stop_) run(sharp, kDeblurredFast, f, unused_, false);
    if (!found_ && !stop_) run(sharp, kDeblurredAdaptive, f, unused_, false);
  }

  // The soft region the deblurred stage estimated, undone as a Gaussian's blur once nothing else
  // read (a lens's blur with the print's own spread: on a symbol wrapped round a vial the
  // compressed columns near the silhouette are lost under a disc's ringing). Read by the deblurred
  // thresholds, then by the peaks of its dots' polarity (the edge columns' dots, a pixel or two
  // apart, come apart as peaks before any threshold splits them: 2 of 200 more, 6 at small
  // modules). Its candidates take the last stages' own allowance of extended lattices.
  void gaussianDeblurred() {
    // (not on live frames: the next frame is another chance, and the frames' fusion takes only
    // lattices every build samples alike within a frame's budget)
    if (!seen_.soft || options_.sampled) return;
    const Rect& r = seen_.soft->region;
    // (grown by at most half its size a side, and to no more than kDeblurPixels of the image as
    // given in all)
    const double most = copy_.halveDeblurred ? kDeblurPixels : 4 * kDeblurPixels;
    const double grow = std::clamp(0.5 * (std::sqrt(most / areaOf(r)) - 1), 0.0, 0.5);
    const int gx = static_cast<int>(grow * (r.x1 - r.x0)), gy = static_cast<int>(grow * (r.y1 - r.y0));
    const Rect grown{std::max(0, r.x0 - gx), std::max(0, r.y0 - gy), std::min(image_.width, r.x1 + gx), std::min(image_.height, r.y1 + gy)};
    const Frame f{1.0f, static_cast<float>(grown.x0), static_cast<float>(grown.y0)};
    BlurEstimate blur = seen_.soft->blur;
    GreyImage sharp;
    std::vector<uint8_t> buf;
    const size_t spills = seen_.spill.size();
    lastStage_ = true;
    for (float scale : kGaussianRetrySigmas) {
      if (over()) break;
      blur.sigma = scale * seen_.soft->blur.radius;
      deblurRegion(crop(grown), blur, kWienerRegularisation, buf, sharp);
      readDeblurred(sharp, f, blur.lightDots);
      if (!found_ && !stop_) run(sharp, blur.lightDots ? kPeaksLight : kPeaksDark, f, unused_, false);
    }
    lastStage_ = false;
    seen_.spill.resize(std::min(seen_.spill.size(), spills));  // (nothing reads them after this stage)
  }

  // Dark dots (inkjet on a light panel, a pack's negative) smeared or defocused: the four
  // deconvolving peaks stages again with the dark half, once every stage read nothing. After all
  // of them, not beside each light half: a pack's light dots would wait behind dark work on every
  // stage (pack renders 1-100 took 13% more CPU with both halves together, one read lost at a
  // still's budget). Not on live frames (the frames' fusion tracks a symbol by the lattices each
  // frame sampled, and those of dark deconvolved copies, sampled where a glare band crosses dark
  // dots, kept two of its native tests' sequences from reading), nor in a large photo's windows,
  // which share one budget (in 16 MP frames of clutter it took the time the last windows read
  // their packs in), nor on an upsampled copy: its regions are four times the work, and on pack
  // renders that did not read as given it delayed the copies that read them (pack-64 540 -> 810
  // ms); pack-dark renders 1-300 read 266 without it there, 268 with it, 262 without the stage.
  void darkDeconvolvedPeaks() {
    if (!darkHalfRuns()) return;
    darkDeconvolving_ = true;
    deblurredPeaks();
    if (!over()) defocusedPeaks();
    if (!over()) largeDeblurredPeaks();
    if (!over()) shortSmearPeaks();
    darkDeconvolving_ = false;
  }

  // The smear pass again with every streak estimate shortened (kShortSmearScale), once everything
  // else read nothing.
  void shortSmearPeaks() {
    smearScale_ = kShortSmearScale;
    deblurredPeaks();
    smearScale_ = 1.0f;
  }

  // The largest region the deconvolving peaks passes take.
  double deblurLimit() const { return largeOnly_ ? kLargeDeblurPixels : kDeblurPixels; }
  bool deblurrable(const GreyImage& region) const { return static_cast<double>(region.width) * region.height <= deblurLimit(); }

  // A region of the defocus pass: its disc estimated from the region itself (estimateBlur) and
  // undone at kDefocusPeaksRadius of the estimate, into buf.
  bool undefocus(const GreyImage& region, std::vector<uint8_t>& buf, GreyImage& out) {
    if (!deblurrable(region)) return false;
    BlurEstimate blur;
    blur.motion = false;
    if (!estimateBlur(region, blur)) return false;
    PPROF("  defocused region %dx%d radius %.1f depth %.2f\n", region.width, region.height, blur.radius, blur.depth);
    blur.radius *= kDefocusPeaksRadius;
    if (blur.radius < kMinDefocusPeaksRadius || blur.radius > kMaxDefocusPeaksRadius) return false;
    deblurRegion(region, blur, kSmearRegularisation, buf, out);
    return true;
  }

  // The whole image's blur cues, measured once for both deblurring peaks stages.
  const ImageBlurCues& blurCues() {
    if (!blurCues_) blurCues_ = imageBlurCues(image_);
    return *blurCues_;
  }

  const Allowances& allowances() const { return allowancesFor(options_, copy_.largePhotoWindow); }

  // The regions the peaks stages read for dark dots: the fast pass's focus regions, merged no
  // larger than the dark budget (one region over the whole code box, the dark text and the EAN
  // beside it, and the carton's print around them, larger than the budget, was never read at
  // all, where its parts fit).
  void darkPeaksRegions(std::vector<Rect>& regions) const {
    focusRegions(seen_.dark.focus, image_.width, image_.height, regions, false, allowances().peaksDark);
  }

  // The light peaks regions, in the peaks stage's order: where the inverted pass saw light
  // clusters, then the filled dark shapes the fast pass rejected as too big for a dot (the dark
  // panel such prints sit on).
  void lightPeaksRegions(std::vector<Rect>& regions) const {
    focusRegions(seen_.light.focus, image_.width, image_.height, regions, false);
    std::vector<Rect> panels;
    focusRegions(seen_.dark.merged, image_.width, image_.height, panels, false);
    regions.insert(regions.end(), panels.begin(), panels.end());
  }

  // A camera's shake smears the whole image by the same streak, but a region's own estimate
  // (one 88 x 88 window) often takes its minimum from the region's structure instead: a panel's
  // edges, text, the lattice's own rows (real pack photos under a 7 px streak at 90 degrees: 8-26
  // px estimated, the true length read 30 of 43 photos instead of 22). Averaged over the windows
  // of all the light regions, the structures differ and cancel while the streak's minimum adds up.
  // The direction is searched around the whole image's weak gradient (the cue's), which the
  // streak dominates once the cue passes.
  bool sharedStreak(float weakAngle, BlurEstimate& out) {
    std::vector<Rect> regions;
    lightPeaksRegions(regions);
    std::vector<GreyImage> crops;
    for (const Rect& r : regions)
      if (static_cast<int>(crops.size()) < kPeaksRegions && areaOf(r) <= deblurLimit())
        crops.push_back(crop(r));
    out = BlurEstimate{};
    const bool ok = estimateSharedStreak(crops, weakAngle, out);
    PPROF("  shared streak over %zu regions: length %.1f angle %.0f depth %.2f\n", crops.size(), out.length, out.angle * 57.3f, out.depth);
    return ok && out.depth >= kMinSmearDepth && out.length >= kMinSmear && out.length <= kMaxSmear;
  }

  // A region of the smear pass: its blur estimated (or the shared streak) and, when it is a
  // streak, deconvolved into buf.
  bool unsmear(const GreyImage& region, std::vector<uint8_t>& buf, GreyImage& out) {
    if (!deblurrable(region)) return false;
    if (deblur_ == PeaksDeblur::sharedSmear) {
      BlurEstimate shared = sharedSmear_;
      shared.length *= smearScale_;
      deblurRegion(region, shared, kSmearRegularisation, buf, out);
      return true;
    }
    BlurEstimate blur;
    measureBlurCues(region, blur);
    blur.motion = true;  // (a panel's edges and text make the cue's ratio a poor judge here)
    if (!estimateBlur(region, blur)) return false;
    PPROF("  smeared region %dx%d anisotropy %.1f length %.1f angle %.0f depth %.2f\n", region.width, region.height,
          blur.anisotropy, blur.length, blur.angle * 57.3f, blur.depth);
    if (blur.depth < kMinSmearDepth || blur.length < kMinSmear || blur.length > kMaxSmear) return false;
    blur.length *= smearScale_;
    deblurRegion(region, blur, kSmearRegularisation, buf, out);
    return true;
  }

  // Upsample the regions where tiny dots were seen (at most a few, bounded in size).
  void upsampled() {
    int crops = 0;
    for (const Rect& r0 : seen_.dark.tiny) {
      if (over() || ++crops > 3) break;
      const int m = 12;
      Rect r{std::max(0, r0.x0 - m), std::max(0, r0.y0 - m), std::min(image_.width, r0.x1 + m), std::min(image_.height, r0.y1 + m)};
      if (r.x1 - r.x0 < 8 || r.y1 - r.y0 < 8) continue;
      if (areaOf(r) > 400000) continue;  // bounded work
      const GreyImage region = crop(r);
      GreyImage up;
      std::vector<uint8_t> buf;
      upsample2(region, buf, up);
      Frame f{2.0f, static_cast<float>(r.x0), static_cast<float>(r.y0)};
      run(up, kScaled, f, unused_, false);
    }
  }

  // Checked before each piece of work that prepares an image (a crop deconvolved, upsampled or
  // high-passed) as well as before each pass: a deconvolution costs more than many passes, and a
  // stage of them must not run on past the budget (a 288 x 140 PDF417 photo took 1.1 s of CPU
  // against 250 ms, deconvolving one region after another).
  bool over() const { return found_ || stop_ || Clock::now() > deadline_; }

  const GreyImage& image_;
  const ReadOptions& options_;
  const Clock::time_point deadline_;
  const ImageCopy copy_;
  F& onCandidate_;
  const Frame identity_;
  bool found_ = false, stop_ = false;
  StagesSeen seen_;
  PassStats unused_;
  // (the peaks stage's lattices cut by their region's border, by polarity; read again in its later rounds)
  std::vector<Rect> spillPeaksLight_, spillPeaksDark_;
  // The peaks stage again on deconvolved regions (none: the regions as they are).
  enum class PeaksDeblur {
    none,
    smear,        // each region's own streak (deblurredPeaks)
    sharedSmear,  // one streak for all regions (deblurredPeaks, sharedStreak)
    defocus,      // each region's disc (defocusedPeaks)
  };
  PeaksDeblur deblur_ = PeaksDeblur::none;
  bool darkDeconvolving_ = false;  // the deconvolving peaks stages read dark dots (darkDeconvolvedPeaks), not light
  // The regions the light half deconvolved that the dark half reads too (the same pixels); their
  // pixels stay put when the vector grows.
  struct DeconvolvedKey {
    Rect r{};
    PeaksDeblur deblur = PeaksDeblur::none;
    float smearScale = 1.0f;
    std::array<float, 2> streak{};  // the shared streak's length and angle (sharedSmear)
    bool operator==(const DeconvolvedKey& o) const {
      return sameRect(r, o.r) && deblur == o.deblur && smearScale == o.smearScale && streak == o.streak;
    }
  };
  struct Deconvolved {
    DeconvolvedKey key;
    bool ok = false;  // false: too large, or no blur of the stage's kind to undo
    std::vector<uint8_t> buf;
    GreyImage img;
  };
  std::vector<Deconvolved> deconvolved_;
  bool largeOnly_ = false;                 // the deconvolving peaks passes on their large regions only
  bool lastStage_ = false;                 // gaussianDeblurred: its lattices take the last stages' allowance
  bool deblurring_ = false;                // the deblurred stage's passes (on a deconvolved copy, as the deconvolving stages')
  bool deconvolvingStages_ = false;        // the deconvolving stages are under way (the trace notes it)
  float smearScale_ = 1.0f;                // the smear pass's streaks as estimated, or shortened (shortSmearPeaks)
  std::optional<ImageBlurCues> blurCues_;  // (measured when a deblurring peaks stage first asks)
  BlurEstimate sharedSmear_;

  // The dark half of the deconvolving peaks stages runs on this image (darkDeconvolvedPeaks).
  bool darkHalfRuns() const { return !options_.sampled && copy_.darkDeconvolved; }

  // Region r deconvolved by the stage under way (deblur_) into `region` (its pixels in `buf`, or
  // in deconvolved_ when `keep`: the dark half reads it too); as the light half left it when it
  // did. False: nothing of the stage's kind to undo there.
  bool deconvolvedRegion(const Rect& r, bool keep, std::vector<uint8_t>& buf, GreyImage& region) {
    DeconvolvedKey key{r, deblur_, smearScale_, {}};
    if (deblur_ == PeaksDeblur::sharedSmear) key.streak = {sharedSmear_.length, sharedSmear_.angle};
    for (const Deconvolved& d : deconvolved_)
      if (d.key == key) {
        if (d.ok) region = d.img;
        return d.ok;
      }
    const GreyImage given = region;
    auto undo = [&](std::vector<uint8_t>& pixels, GreyImage& out) {
      return deblur_ == PeaksDeblur::defocus ? undefocus(given, pixels, out) : unsmear(given, pixels, out);
    };
    if (!keep) return undo(buf, region);
    Deconvolved& d = deconvolved_.emplace_back();
    d.key = key;
    d.ok = undo(d.buf, d.img);
    if (d.ok) region = d.img;
    return d.ok;
  }
};

template <class F>
void runAllPasses(const GreyImage& image, const ReadOptions& options, Clock::time_point deadline, const ImageCopy& copy, F&& onCandidate) {
  PassSchedule<F> schedule(image, options, deadline, copy, onCandidate);
  schedule.runAll();
}

// Image positions of the outer dot centres of the extent. orientation: the decoder's transform of
// the sampled grid (GridTransform, 0 = as sampled); the corners come out in the symbol's
// canonical order TL, TR, BR, BL, so a caller sees the symbol's true top-left whatever the
// rotation or mirroring of the print.
void cornersOf(const GridMapper& m, const Extent& e, const Frame& f, int orientation, PointF out[4]) {
  GridTransform t;
  t.t = orientation & 7;
  t.inRows = e.rows;
  t.inCols = e.cols;
  const int R = t.rows() - 1, C = t.cols() - 1;
  int canon[4][2] = {{0, 0}, {0, C}, {R, C}, {R, 0}};
  // A column-layout symbol and its quarter turn (a row-layout symbol) carry the same bits
  // (FORMAT.md 1.1), so the decoder's transform fixes the symbol only up to that turn. Encoders
  // print symbols wider than tall, so the landscape one of the two is reported: a portrait
  // row layout (H odd) is turned clockwise, a portrait column layout counter-clockwise.
  if (R > C) {
    int q[4][2];
    const int shift = (R + 1) % 2 == 1 ? 3 : 1;  // new TL = old BL (clockwise) or old TR
    for (int k = 0; k < 4; ++k) {
      q[k][0] = canon[(k + shift) % 4][0];
      q[k][1] = canon[(k + shift) % 4][1];
    }
    std::copy(&q[0][0], &q[0][0] + 8, &canon[0][0]);
  }
  for (int k = 0; k < 4; ++k) {
    const int src = t.sourceIndex(canon[k][0], canon[k][1]);
    const int row = e.rowMin + src / e.cols, col = e.colMin + src % e.cols;
    const PointF p = m.map(static_cast<float>(row), static_cast<float>(col));
    out[k] = PointF{p.x / f.scale + f.ox, p.y / f.scale + f.oy};
  }
}

// A sampled lattice as video fusion takes it: grid, lattice box, image corners, levels.
SampledLattice describeSampled(const Candidate& cand, const DotGrid& all, int r0, int c0, const Frame& f) {
  SampledLattice s;
  s.grid = all;
  s.parity = ((cand.ctx.parity - r0 - c0) % 2 + 2) % 2;
  s.boxRow0 = cand.fit.rowMin - r0;
  s.boxRows = cand.fit.rowMax - cand.fit.rowMin + 1;
  s.boxCol0 = cand.fit.colMin - c0;
  s.boxCols = cand.fit.colMax - cand.fit.colMin + 1;
  const int last[4][2] = {{0, 0}, {0, all.cols - 1}, {all.rows - 1, all.cols - 1}, {all.rows - 1, 0}};
  for (int k = 0; k < 4; ++k) {
    const PointF p = cand.mapper.map(static_cast<float>(r0 + last[k][0]), static_cast<float>(c0 + last[k][1]));
    s.corners[k] = PointF{p.x / f.scale + f.ox, p.y / f.scale + f.oy};
  }
  s.dark = cand.dark;
  s.pitch = cand.fit.pitch / f.scale;
  s.contrast = cand.ctx.lightLevel - cand.ctx.darkLevel;
  return s;
}

}  // namespace

std::vector<GridCandidate> findGridCandidates(const GreyImage& image, const ReadOptions& options) {
  std::vector<GridCandidate> out;
  if (!image.valid()) return out;
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, options.timeBudgetMs) * 1000));
  std::vector<Extent> hyps;
  runAllPasses(image, options, deadline, det::ImageCopy{}, [&](Candidate& cand, const Pass& pass, const Frame& frame) {
    extentHypotheses(cand.fit, hyps);
    if (hyps.empty()) return 0;
    const Extent& e = hyps[0];
    GridCandidate gc;
    gc.grid = sampleGrid(cand.ctx, cand.fit, e.rowMin, e.rows, e.colMin, e.cols);
    gc.via = pass.via;
    gc.latticeDots = static_cast<int>(cand.fit.dots.size());
    cornersOf(cand.mapper, e, frame, 0, gc.corners);
    out.push_back(std::move(gc));
    return 1;
  });
  return out;
}

}  // namespace det

namespace {

// The passes on the image as given (and, for a large image, halved: pass 8, unless !halveLarge).
// A read of a resampled copy of the image: the options with what is left of the time budget and
// no trace (the trace holds the caller's image and scale only); the corners scaled back.
ReadOptions budgetLeft(const ReadOptions& options, det::Clock::time_point deadline) {
  ReadOptions o = options;
  o.timeBudgetMs = std::chrono::duration<double, std::milli>(deadline - det::Clock::now()).count();
  o.trace = nullptr;
  return o;
}

void scaleCorners(std::vector<ReadResult>& results, float factor) {
  for (ReadResult& r : results)
    for (PointF& p : r.corners) {
      p.x *= factor;
      p.y *= factor;
    }
}

void shiftCorners(std::vector<ReadResult>& results, float dx, float dy) {
  for (ReadResult& r : results)
    for (PointF& p : r.corners) {
      p.x += dx;
      p.y += dy;
    }
}

std::vector<ReadResult> readAsGiven(const GreyImage& image, const ReadOptions& options, const det::ImageCopy& copy = det::ImageCopy{});
// readDotCodes' work; `cues` receives the image's blur cues where it computed them.
std::vector<ReadResult> readWithCopies(const GreyImage& image, const ReadOptions& options, std::optional<det::ImageBlurCues>& cues);

// The video fusion's lattices sampled on a scaled copy (from index `from` on), put back into the
// image's coordinates as scaleCorners puts the reads: the fusion matches a frame's lattices with
// the last frames' by where they lie, and reports their corners.
void scaleSampled(std::vector<SampledLattice>* sampled, size_t from, float factor) {
  if (!sampled) return;
  for (size_t i = from; i < sampled->size(); ++i) {
    SampledLattice& s = (*sampled)[i];
    for (PointF& p : s.corners) {
      p.x *= factor;
      p.y *= factor;
    }
    s.pitch *= factor;
  }
}

// The image halved (downsample2), read by the passes alone, corners in the image's coordinates.
std::vector<ReadResult> readHalved(const GreyImage& image, const ReadOptions& options) {
  std::vector<uint8_t> buf;
  GreyImage half;
  det::downsample2(image, buf, half);
  const size_t sampledBefore = options.sampled ? options.sampled->size() : 0;
  std::vector<ReadResult> results = readAsGiven(half, options, det::ImageCopy{false});
  scaleCorners(results, 2.0f);
  scaleSampled(options.sampled, sampledBefore, 2.0f);
  return results;
}

// Whether p lies inside the convex quadrilateral q (either winding).
bool insideQuad(const PointF (&q)[4], PointF p) {
  int left = 0, right = 0;
  for (int k = 0; k < 4; ++k) {
    const PointF a = q[k], b = q[(k + 1) % 4];
    const float cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    left += cross > 0;
    right += cross < 0;
  }
  return left == 0 || right == 0;
}

PointF centreOf(const PointF (&q)[4]) { return {(q[0].x + q[1].x + q[2].x + q[3].x) / 4, (q[0].y + q[1].y + q[2].y + q[3].y) / 4}; }

// The index of the result that is `r` read before: the same text where `r` lies (either one's
// centre inside the other's corners), or -1. Two lattices of one symbol may both read it (a
// cluster and the same cluster grown again; two parts of its dots that glare split), and
// overlapping windows of a large photo may both hold it; it is one symbol. The same text elsewhere
// in the image (a pack's code printed twice) is another.
int sameSymbolAt(const std::vector<ReadResult>& results, const ReadResult& r) {
  for (size_t i = 0; i < results.size(); ++i) {
    const ReadResult& q = results[i];
    if (q.symbol.bytes == r.symbol.bytes && (insideQuad(q.corners, centreOf(r.corners)) || insideQuad(r.corners, centreOf(q.corners))))
      return static_cast<int>(i);
  }
  return -1;
}

std::vector<ReadResult> readAsGiven(const GreyImage& image, const ReadOptions& options, const det::ImageCopy& copy) {
  using namespace det;
  std::vector<ReadResult> results;
  if (!image.valid() || options.maxSymbols <= 0) return results;
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, options.timeBudgetMs) * 1000));
  std::vector<Extent> hyps;
  DotGrid grid;
  // Texts that lost to another window of the same lattice (see below): never reported from this
  // image. A read refused by the checks below (its text may be its symbol's cut short, another
  // window reads as well) is not reported from any other copy of the image either
  // (ReadOptions::refusedTexts): a copy samples the same window differently, and one copy's
  // sampling can pass the checks another's failed (the native stage test's zero-ended 6 x 67
  // symbol, refused as given, read with its last character cut from the upsampled copy's sweep of
  // the frame's middle). The texts that lost stay this copy's own: a longer window of a read cut
  // short reads the symbol's own text, which loses there and reads on another copy from its own
  // window. Skipping a refused text at once also keeps its checks from banning the texts they
  // decode (zero-ended test symbols 10 -> 12 of 24 read).
  std::vector<std::string> ambiguousTexts;
  std::vector<std::string> ownRefused;
  std::vector<std::string>& refusedReads = options.refusedTexts ? *options.refusedTexts : ownRefused;
  auto isAmbiguous = [&](const std::string& text) {
    return std::find(ambiguousTexts.begin(), ambiguousTexts.end(), text) != ambiguousTexts.end() ||
        std::find(refusedReads.begin(), refusedReads.end(), text) != refusedReads.end();
  };
  // Samples the lattice's extent hypotheses and decodes them: 1 = read, 0 = not, -1 = out of time.
  auto attempt = [&](Candidate& cand, const Pass& pass, const Frame& frame, const LineEnds* ends) {
    extentHypotheses(cand.fit, hyps);
    if (ends) endHypotheses(*ends, hyps);
    // A short wide symbol whose lattice (small dots: the peaks pass) stopped short along its
    // long axis (glare, blur or a crease broke the growth) may go on up to kReach positions:
    // the extents that end where the sampled grid's dots end follow the lattice's own.
    const LatticeFit& f = cand.fit;
    const int H = f.rowMax - f.rowMin + 1, W = f.colMax - f.colMin + 1;
    const bool alongCols = W >= H;
    const bool reach = (pass.peaks || cand.cutToLines) && shortAndWide(f);
    // Sample once over the widest extent; each hypothesis is a window of it (a position's value
    // does not depend on the window).
    const CylinderWrap* wrap = cand.mapper.cylinder();
    const bool wrapAlongCols = wrap && wrap->alongCols;
    // (the margins: a short wide lattice's reach along its long axis, a cylinder's grown ends along
    // its wrapped axis, cylinderEdgeHypotheses)
    int mr = 1, mc = 1;
    if (wrap) (wrapAlongCols ? mc : mr) = 1 + kCylinderEdgeLines;
    if (reach) (alongCols ? mc : mr) = kReach;
    const int r0 = f.rowMin - 1 - mr, c0 = f.colMin - 1 - mc;
    const int nr = H + 2 + 2 * mr, nc = W + 2 + 2 * mc;
    DotGrid evidence;
    const DotGrid all = sampleGrid(cand.ctx, cand.fit, r0, nr, c0, nc, &evidence);
    // Video fusion's hook: the sampled lattice, placed in the image (frame_fusion.h). Not a lattice
    // of a deconvolved copy: fused with the frames before and after it, such grids kept the sweep
    // sequences' symbols from reading (bench/sequences.js sweep 1-100: 99 before the deblurred
    // stage, 93-94 with its lattices fused, 98 without them; docs/detector.md).
    const bool toFusion = options.sampled && !cand.deconvolved && !cand.reindexed;
    const int sampledIndex = toFusion ? static_cast<int>(options.sampled->size()) : -1;
    if (toFusion) {
      options.sampled->push_back(describeSampled(cand, all, r0, c0, frame));
    }
    // A lattice whose positions are not inked the way DotCode content inks them (5 of every 9)
    // reads under no extent: its hypotheses and its extension are skipped (lattice_evidence.cpp).
    if (!ends && !plausibleInkShare(latticeInkShare(evidence.value.empty() ? all : evidence, r0, c0, f, cand.ctx.parity))) {
      cand.notDotCode = true;
      return 0;
    }
    if (options.finestDotCodePitch && !cand.reindexed) *options.finestDotCodePitch = std::min(*options.finestDotCodePitch, f.pitch / frame.scale);
    if (reach) {
      std::vector<int> lo, hi;
      candidateEnds(all, r0, c0, cand.ctx.parity, f, alongCols, -1, lo);
      candidateEnds(all, r0, c0, cand.ctx.parity, f, alongCols, 1, hi);
      lo.insert(lo.begin(), alongCols ? f.colMin : f.rowMin);
      hi.insert(hi.begin(), alongCols ? f.colMax : f.rowMax);
      for (int a : lo)
        for (int b : hi) {
          if (a == lo[0] && b == hi[0]) continue;  // the lattice's own box: tried above
          Extent e{f.rowMin, H, f.colMin, W};
          (alongCols ? e.colMin : e.rowMin) = a;
          (alongCols ? e.cols : e.rows) = b - a + 1;
          // (a lost edge line: the short side one longer)
          withOddSize(e, alongCols, [&](const Extent& x) { hyps.push_back(x); });
          // ... or the long side one longer where the line past an end holds a dot too faint to
          // count (glare or blur over the symbol's end)
          if (((e.rows + e.cols) & 1) == 0)
            for (int end : {a - 1, b + 1}) {
              if (linePresence(all, r0, c0, cand.ctx.parity, f, alongCols, end) < kFaintEndDot) continue;
              Extent x = e;
              (alongCols ? x.cols : x.rows) += 1;
              if (end < a) (alongCols ? x.colMin : x.rowMin) -= 1;
              hyps.push_back(x);
            }
        }
    }
    if (wrap) cylinderEdgeHypotheses(all, r0, c0, cand.ctx.parity, f, wrapAlongCols, hyps);
    if (reach) {
      shortBands(f, alongCols, hyps);
      bandEnds(all, r0, c0, cand.ctx.parity, f, alongCols, hyps);
    }
    // A sampling of the lattice (its own, the same with glints erased, or a fresh one around a
    // read for its longer windows) and the grid position of its first value.
    struct Sampled {
      const DotGrid* grid;
      int row0, col0;
    };
    const Sampled lattice{&all, r0, c0};
    // The grid of an extent: a window of a sampling.
    auto windowOf = [](const Extent& e, DotGrid& g, const Sampled& s) {
      g.rows = e.rows;
      g.cols = e.cols;
      g.value.resize(static_cast<size_t>(e.rows) * e.cols);
      for (int r = 0; r < e.rows; ++r)
        for (int c = 0; c < e.cols; ++c)
          g.value[static_cast<size_t>(r) * e.cols + c] = s.grid->at(e.rowMin - s.row0 + r, e.colMin - s.col0 + c);
    };
    // `all` with the positions under crease glints erased (eraseGlintLines), found the first
    // time a short wide lattice's grid is refused: 0 not looked for yet, 1 none, 2 found.
    DotGrid unglinted;
    int glints = 0;
    // Decodes a grid; when the soft grid is refused, a short wide lattice's grid (a pack under
    // cellophane: glare slopes, crease glints and blur at 2-3 px modules leave positions only
    // 0.15-0.25 from 0.5, often on the wrong side) is decoded once more with those positions as
    // erasures too (an erasure costs Reed-Solomon one check word, a wrong value two; synthetic
    // packs 76 -> 78 of seeds 1-100, 157 -> 160 of 101-300). Then, when it holds weak values, the
    // same grid thresholded at 0.5 (hard decisions: an erasure costs a check word even where its
    // side of 0.5 was right, which tips symbols near their correction limit). The decoder's safety
    // rules are unchanged. The grid is left thresholded.
    auto decodeSoftThenHard = [&](const Extent& e, DotGrid& g, const Sampled* around = nullptr) -> std::optional<DotCodeSymbol> {
      windowOf(e, g, around ? *around : lattice);
      std::optional<DotCodeSymbol> sym = decodeDotGrid(g);
      if (sym) return sym;
      if (reach) {
        GridDecodeOptions wider;
        wider.erasureMargin = kWideErasureMargin;
        sym = decodeDotGrid(g, wider);
        if (sym) return sym;
        // (crease glints are looked for on the lattice's own sampling only)
        if (!around) {
          if (glints == 0) {
            unglinted = all;
            glints = eraseGlintLines(cand.ctx, f, alongCols, r0, c0, unglinted) > 0 ? 2 : 1;
          }
          if (glints == 2) {
            DotGrid u;
            windowOf(e, u, Sampled{&unglinted, r0, c0});
            if (u.value != g.value) {
              sym = decodeDotGrid(u);
              if (sym) return sym;
            }
          }
        }
      }
      std::vector<float> softValues;
      if (reach) softValues = g.value;
      bool soft = false;
      for (float& v : g.value)
        if (v > 0.5f - 0.15f && v < 0.5f + 0.15f) {
          soft = true;
          v = v > 0.5f ? 1.0f : 0.0f;
        }
      if (soft) {
        sym = decodeDotGrid(g);
        if (sym) return sym;
      }
      if (!reach) return std::nullopt;
      // Last, the short wide lattice's soft grid read by reliability: every slot its most
      // likely codeword, the least reliable erased (GridDecodeOptions::byReliability). Under
      // glare and creases most wrong values are faint ones, which the passes above erase, and a
      // pack symbol's 9-12 check words per block run out; read by reliability, those slots
      // mostly come out right (synthetic packs of seeds 1-700: 586 -> 603, dark-ink packs
      // 480 -> 512; docs/detector.md "Codewords read by reliability").
      DotGrid softGrid{g.rows, g.cols, std::move(softValues)};
      GridDecodeOptions byReliability;
      byReliability.byReliability = true;
      return decodeDotGrid(softGrid, byReliability);
    };
    for (const Extent& e : hyps) {
      if (Clock::now() > deadline) return -1;
      TraceHypothesis* th = nullptr;
      if (options.trace && options.trace->hypotheses.size() < DetectorTrace::kMaxHypotheses && !options.trace->passes.empty()) {
        options.trace->hypotheses.emplace_back();
        th = &options.trace->hypotheses.back();
        th->pass = static_cast<int>(options.trace->passes.size()) - 1;
        th->lattice = static_cast<int>(options.trace->passes.back().lattices.size()) - 1;
        th->rows = e.rows;
        th->cols = e.cols;
        cornersOf(cand.mapper, e, frame, 0, th->corners);
        th->outcome = "refused";
      }
      if (th) {
        windowOf(e, grid, lattice);
        th->values = grid.value;
      }
      std::optional<DotCodeSymbol> sym = decodeSoftThenHard(e, grid);
      if (!sym) continue;
      if (isAmbiguous(sym->bytes)) continue;
      // A grid a few lines longer than a symbol (an extent reaching past its quiet zone) decodes
      // to a wrong text about once in 25, and a noisy grid cut a few lines short sometimes
      // decodes too. So the windows of this read cut short by 2, 4 or 6 lines at one end are
      // decoded as well. Where they disagree, the text that needed the fewest corrections
      // (2 x errors + erasures) is the symbol's, on the shortest window that reads it: a window
      // misaligned with the symbol's codewords costs Reed-Solomon corrections that the aligned
      // one does not need. A tie between different texts is refused. The texts that lost are
      // never reported from this image.
      auto cost = [](const DotCodeSymbol& s) { return 2 * s.errorsCorrected + s.erasuresCorrected; };
      Extent read = e;
      int best = cost(*sym);
      bool tie = false;
      std::vector<std::string> losers;
      DotGrid cut;
      for (const Extent& x : shorterWindows(e)) {
        std::optional<DotCodeSymbol> inner = decodeSoftThenHard(x, cut);
        if (!inner) continue;
        const int c = cost(*inner);
        // A text an earlier read of this image lost is never taken; where it needs no more
        // corrections than this read, this read is not taken either.
        if (isAmbiguous(inner->bytes)) {
          tie = tie || (inner->bytes != sym->bytes && c <= best);
          continue;
        }
        if (inner->bytes == sym->bytes) {
          if (c <= best && x.rows * x.cols < read.rows * read.cols) read = x;
          best = std::min(best, c);
          continue;
        }
        if (c < best) {
          // The read's own window reads another text and holds clear dots on the lines this one
          // leaves out: the symbol goes on past it, and its text may be the symbol's cut short (a
          // Reed-Solomon codeword whose last word is 0 is one of the symbol a word shorter: the
          // misread bench's model 7). pack-dark-79's 10 x 41 read for 7 of 9 corrections, its
          // window 2 columns shorter for 6 as its text less the last character; the longer-window
          // check below cannot see that where a longer window reaches past its region's crop.
          if (clearDotsAdded(grid, e.rowMin, e.colMin, cand.ctx.parity, e, x)) {
            tie = true;
            losers.push_back(inner->bytes);
            continue;
          }
          losers.push_back(sym->bytes);
          sym = std::move(inner);
          read = x;
          best = c;
          tie = false;
        } else {
          tie = tie || c == best;
          losers.push_back(inner->bytes);
        }
      }
      // The read's windows grown by 2 or 4 lines (longerWindows: a window short of a symbol whose
      // last codeword is 0 reads its text cut short), sampled afresh around the read. A longer
      // window that reads another text with at most the read's corrections (on the same
      // sampling), or whose added lines hold clear dots (the symbol's own, where the read stopped
      // short), refuses the read. It is never taken instead: a window grown over the panel's edge
      // reads the text with one character more, and on faint symbols for fewer corrections (its
      // corners fall elsewhere). A longer window over quiet zone or glare keeps the read.
      {
        const Extent inner = read;
        const int wr0 = inner.rowMin - kLongerWindowLines, wc0 = inner.colMin - kLongerWindowLines;
        const DotGrid wide =
            sampleGrid(cand.ctx, cand.fit, wr0, inner.rows + 2 * kLongerWindowLines, wc0, inner.cols + 2 * kLongerWindowLines);
        const Sampled aroundRead{&wide, wr0, wc0};
        // A small symbol (few check words: once its corrections are spent, a grid of noise or of
        // another symbol's dots passes Reed-Solomon about once in 113^2) whose window lies inside
        // a larger dotted area is a window of that area, not a symbol: refused. Two such reads,
        // 4 and 8 digits, came from a motion-blurred pack symbol of dark dots (a 15 x 8 and a
        // 26 x 7 window of lattices the streak made inside it, at 2 and 3 erasures of 4 and 5
        // check words).
        if (sym->ecBudget <= kSmallSymbolCheckWords && enclosedByDots(wide, wr0, wc0, cand.ctx.parity, inner)) tie = true;
        // The same window with a glare band or a faint stretch between it and the rest of the area
        // (dots not right against it, or on one side only) decodes where it needs corrections: a
        // 13 x 12 window right of a glare band across a 13 x 20 symbol (2 erasures of 4 check
        // words; its lattice's dots on all 6 positions of the next line) and a 28 x 9 window of a
        // pack's inkjet symbol beside a glare streak (4 erasures of 6; 4 of 14 positions clear 3
        // lines out, faint lines between). So a small symbol read with at most kMaxSpareBesideDots
        // check words to spare needs a quiet zone without a line of dots. Over 3,242 images
        // (renders of every category, sequence frames read as stills, the 128 real photos) it
        // refused those two reads and no other; over the native tests' stress scenes, none.
        if (sym->ecBudget <= kSmallSymbolCheckWords && sym->ecBudget - best <= kMaxSpareBesideDots &&
            dotsInQuietZone(wide, wr0, wc0, cand.ctx.parity, cand.fit, inner))
          tie = true;
        int innerCost = -1;  // the read's own cost on this sampling (like with like), once needed
        auto costOfInner = [&] {
          if (innerCost < 0) {
            DotGrid g;
            const std::optional<DotCodeSymbol> again = decodeSoftThenHard(inner, g, &aroundRead);
            innerCost = again && again->bytes == sym->bytes ? cost(*again) : best;
          }
          return innerCost;
        };
        for (const Extent& x : longerWindows(inner)) {
          if (!cornersInside(cand.ctx, x)) continue;  // (past the image's edge its edge pixels repeat)
          std::optional<DotCodeSymbol> outer = decodeSoftThenHard(x, cut, &aroundRead);
          const bool dotsPast = outer && clearDotsAdded(wide, wr0, wc0, cand.ctx.parity, x, inner);
          // The symbol goes on past the read (clear dots on the added lines) and the read is at
          // its correction limit: a window cut short of a symbol, whose missing lines' codewords
          // are erasures, decodes to another text at that limit, and so may the window 2 lines
          // longer (pack-dark-230: 6 x 51 and 6 x 53 windows of a 6 x 67 symbol, 5 erasures of 7
          // check words).
          if (outer && outer->bytes == sym->bytes) {
            tie = tie || (dotsPast && sym->ecBudget - best <= kMaxSpareShortOfDots);
            continue;
          }
          if (outer) {
            tie = tie || cost(*outer) <= costOfInner() || dotsPast;
            losers.push_back(outer->bytes);
          }
          // The added lines read at their own contrast: where they are the symbol's own last
          // lines, too faint for the sampler (glare, blur), their dots fall where the longer
          // window's codewords put them, and that window decodes another text for no more
          // corrections than the read; quiet zone, text or noise stretched so do not (also where
          // the grown window decoded another text for more corrections). The other text is not
          // banned (it may be the symbol's), the read is refused.
          DotGrid stretched;
          if (stretchAdded(wide, wr0, wc0, cand.ctx.parity, x, inner, stretched)) {
            const std::optional<DotCodeSymbol> faint = decodeDotGrid(stretched);
            if (faint && faint->bytes != sym->bytes && cost(*faint) <= costOfInner()) tie = true;
          }
          // The same lines too faint even for that (a quarter of their contrast, under a glare
          // slope) still follow the dots the longer symbol puts there: the grown window decoded
          // from the read's own dots alone (its added lines erased, as the misread bench's model 11
          // decodes) implies them, and where the added lines sample higher at those positions than
          // at the others, they are the symbol's and the read stopped short (matched, as a filter
          // is, so no level has to be reached).
          DotGrid erased;
          windowWithAdded(
              wide, wr0, wc0, cand.ctx.parity, x, inner, [](float) { return 0.5f; }, erased);
          const std::optional<DotCodeSymbol> implied = decodeDotGrid(erased);
          if (implied && implied->bytes != sym->bytes && addedLinesFollow(wide, wr0, wc0, cand.ctx.parity, x, inner, *implied)) tie = true;
        }
        // A read whose window stops right against a washed-out line along its long side (glare
        // over what may be the symbol's end) cannot tell whether the symbol goes on under the
        // glare. Where it may be a window cut short of a symbol one codeword longer whose last
        // codeword is 0 (the read's total NW = 1 mod 3 keeps the check count at NW + 1, and a
        // size 2 or 4 lines longer holds NW + 1 words), the read is refused. The same where the
        // glare begins a line further out: the line past the read partly washed out (the slope's
        // foot: its faint dots read as empties or erased) or holding a clear dot, and the next one
        // (nearly) all washed out. That only for short wide symbols (a pack's): past the end of a
        // symbol round a cylinder the columns close up towards the silhouette and read erased too
        // (the independent renderer's cylinders 23 and 35).
        const bool longCols = inner.cols >= inner.rows;
        if (cutShortPossible(inner, longCols)) {
          const bool shortWide = shortAndWide(inner.rows, inner.cols);
          const int from = longCols ? inner.rowMin : inner.colMin, to = from + (longCols ? inner.rows : inner.cols) - 1;
          auto share = [&](int line) { return erasedShare(wide, wr0, wc0, cand.ctx.parity, longCols, line, from, to); };
          for (int atStart = 0; atStart < 2; ++atStart) {
            const int step = atStart ? -1 : 1;
            const int end = longCols ? (atStart ? inner.colMin : inner.colMin + inner.cols - 1) : (atStart ? inner.rowMin : inner.rowMin + inner.rows - 1);
            const float first = share(end + step);
            if (first == 1.0f || (shortWide && (first >= kGlareFootErased || first == kClearDotOnLine) && share(end + 2 * step) >= kGlareErased))
              tie = true;
          }
        }
        // A read whose window ends in washed-out lines (glare over the symbol's end and the panel
        // past it) does not know where in that run the symbol ends: the window may reach past it
        // there and stop short at the other end, and a window longer than a symbol whose extra
        // lines are erasures decodes to another text for those erasures alone (misread bench,
        // model 11). So the windows slid away from the washed lines are decoded too, and one that
        // reads another text refuses the read.
        const Extent sampled{wr0, wide.rows, wc0, wide.cols};
        for (int alongCols = 0; alongCols < 2; ++alongCols)
          for (int atStart = 0; atStart < 2; ++atStart) {
            const int washed = washedEndLines(wide, wr0, wc0, cand.ctx.parity, inner, alongCols, atStart, kLongerWindowLines + 2);
            if (washed == 0) continue;
            for (const Extent& x : slidWindows(inner, alongCols, atStart, washed)) {
              if (!sampled.holds(x.rowMin, x.colMin) || !sampled.holds(x.rowMin + x.rows - 1, x.colMin + x.cols - 1)) continue;
              if (!cornersInside(cand.ctx, x)) continue;
              std::optional<DotCodeSymbol> other = decodeSoftThenHard(x, cut, &aroundRead);
              // (the other text is not banned: its own window, read later, has its own checks)
              if (other && other->bytes != sym->bytes) tie = true;
            }
          }
      }
      // Bars, text strokes and textures ink the positions between a lattice's dots as well as its
      // own; a sharp DotCode does not. A grid sampled over a PDF417's bars among noise decoded as a
      // 11 x 16 DotCode with 3 erasures of 5 check words (a 16 MP photo of clutter read window by
      // window: thousands of grids, most of them small, so the odds of one passing Reed-Solomon
      // at its limit add up), with 42% of the positions between its dots inked. Reads of symbols
      // measured at most 22% on 1,230 renders and real photos, but blur inks those positions too:
      // real pack photos blurred by 1.5 px read at up to 39%. So only a small symbol (few check
      // words) read at the decoder's correction limit must show clean positions between its dots.
      if (!tie && sym->ecBudget <= kSmallSymbolCheckWords && sym->ecBudget - best <= GridDecodeOptions{}.minSpareCheckWords &&
          det::offParityInkShare(cand.ctx, read.rowMin, read.colMin, read.rows, read.cols) > kMaxReadOffParityInk)
        tie = true;
      if (tie) refusedReads.push_back(sym->bytes);
      ambiguousTexts.insert(ambiguousTexts.end(), losers.begin(), losers.end());
      if (tie) continue;
      if (th) th->outcome = "decoded";
      ReadResult r;
      r.symbol = std::move(*sym);
      r.via = pass.via;
      cornersOf(cand.mapper, read, frame, r.symbol.orientation, r.corners);
      int index = sameSymbolAt(results, r);
      if (index < 0) {
        results.push_back(std::move(r));
        index = static_cast<int>(results.size()) - 1;
      }
      if (sampledIndex >= 0) (*options.sampled)[sampledIndex].result = index;
      return 1;
    }
    return 0;
  };
  int extended = 0, extendedLast = 0, extendedRegrown = 0;
  const int extendable = allowancesFor(options, copy.largePhotoWindow).extendedLattices;
  // Lattices that did not read, kept as parts of a symbol that a glare band or a crease split
  // (joinLattices), in image coordinates: each pass reads its own crop at its own scale, and the
  // other part of a symbol may have come from another pass.
  struct Part {
    bool dark;
    std::vector<Blob> dots;  // image coordinates, in the order of fit.dots
    LatticeFit fit;          // its blob indices index dots; its pitch in image pixels
  };
  std::vector<Part> parts;
  auto onCandidate = [&](Candidate& cand, const Pass& pass, const Frame& frame) {
    int got = attempt(cand, pass, frame, nullptr);
    // Not read: the growth may have stopped short of the symbol's end (glare, a crease, a
    // cylinder's edge); follow the lattice over the image and try again with the longer one.
    // The lattice as a copy (extended or refitted): the driver goes on with the lattice as grown
    // (its region logic is tuned to that), and most lattices change nothing, so nothing else is
    // copied for them. (a lattice without DotCode content still takes its place among the
    // kMaxExtendedLattices first lattices: the later lattices of a frame are no likelier to be a
    // symbol)
    auto retry = [&](LatticeFit&& changed, const LineEnds* ends, const char* what, const CylinderWrap* wrap, Changed how = Changed::lattice) {
      Candidate ext;
      ext.cutToLines = how == Changed::cut;
      ext.reindexed = cand.reindexed;
      if (wrap) ext.mapper.useCylinder(*wrap);
      if (how == Changed::flat) ext.mapper.keepFlatOverStrays();
      ext.fit = std::move(changed);
      ext.ctx = cand.ctx;
      ext.ctx.mapper = &ext.mapper;
      ext.blobs = cand.blobs;
      ext.dark = cand.dark;
      if (!ext.mapper.fit(*ext.blobs, ext.fit)) return 0;
      if (options.trace && !options.trace->passes.empty()) {
        TracePass* tp = &options.trace->passes.back();
        traceLattice(tp, tp->lattices.empty() ? -1 : tp->lattices.back().cluster, *ext.blobs, ext.fit, frame, what);
      }
      calibrateLevels(ext.ctx, *ext.blobs, ext.fit);
      return attempt(ext, pass, frame, ends);
    };
    auto mayExtend = [&] {
      if (cand.regrown) return ++extendedRegrown <= extendable;
      return cand.lastStage ? ++extendedLast <= kLastStageExtendedLattices : ++extended <= extendable;
    };
    // (a lattice indexed by other diagonals is not extended: the decoys of empty frames that
    // allow other diagonals doubled the extensions' work, empty 720p stills +7.3% instructions
    // against +3.0% without, and the steep views read the same)
    if (got == 0 && Clock::now() < deadline && !cand.reindexed && mayExtend() && !cand.notDotCode) {
      LatticeFit longer = cand.fit;
      LineEnds ends;
      if (extendLattice(*cand.ctx.img, cand.dark, *cand.blobs, longer, &ends) > 0)
        got = retry(std::move(longer), &ends, "extended over the image", nullptr);
      // A symbol wrapped round a small cylinder: its compressed edge columns, which the local
      // fits of the growth and the extension drift over, follow from one model of the wrap.
      LatticeFit wrapped = cand.fit;
      CylinderWrap wrap;
      if (got == 0 && cand.mapper.misfit() > kMinCylinderMisfit && Clock::now() < deadline && fitCylinderLattice(*cand.ctx.img, cand.dark, *cand.blobs, wrapped, wrap))
        got = retry(std::move(wrapped), nullptr, "refitted to a cylinder", &wrap);
      // A flat print whose map took local fits only for a few stray dots (text strokes' peaks
      // beside a pack symbol): read again through the homography (GridMapper::bentByStrays).
      if (got == 0 && cand.mapper.bentByStrays() && Clock::now() < deadline)
        got = retry(LatticeFit(cand.fit), nullptr, "mapped by its homography", nullptr, Changed::flat);
      // A lattice grown from a symbol into the text beside it or a glare patch: its DotCode
      // lines alone, mapped by their own dots, which the reach of a short wide lattice then
      // follows to the symbol's ends. (Not for live frames, whose empty ones pay only the fast
      // pass's own work. The cut is not extended over the image as well: that read two more of
      // 400 pack renders, but its extensions ran on into glare and put corners 20-25 px off.)
      if (got == 0 && options.tryHarder && Clock::now() < deadline) {
        LatticeFit cut = cand.fit;
        if (cutToCodeLines(cand.ctx, cut)) got = retry(std::move(cut), nullptr, "cut to its DotCode lines", nullptr, Changed::cut);
      }
    }
    // One part of a symbol that a washed-out band or a crease split, the other part an earlier
    // lattice of the same polarity: the two joined into one (still images only, as the cut). The
    // other part's dots are brought into this pass's crop and scale (and added to its blobs
    // when a join is tried).
    if (got == 0 && options.tryHarder && !cand.notDotCode) {
      const GreyImage& img = *cand.ctx.img;
      std::vector<Blob> moved;
      std::vector<LatticeFit> joined;
      for (size_t i = 0; i < parts.size() && got == 0 && Clock::now() < deadline; ++i) {
        const Part& part = parts[i];
        if (part.dark != cand.dark) continue;
        moved.clear();
        bool inside = true;
        for (const Blob& b : part.dots) {
          moved.push_back(blobInPass(b, frame));
          inside = inside && moved.back().x >= 0 && moved.back().y >= 0 && moved.back().x < img.width && moved.back().y < img.height;
        }
        LatticeFit other = part.fit;
        other.pitch *= frame.scale;
        const int base = static_cast<int>(cand.blobs->size());  // where the other part's dots go
        if (!inside || !joinLattices(moved, other, *cand.blobs, cand.fit, base, joined)) continue;
        cand.blobs->insert(cand.blobs->end(), moved.begin(), moved.end());
        for (size_t k = 0; k < joined.size() && got == 0 && Clock::now() < deadline; ++k)
          got = retry(std::move(joined[k]), nullptr, "joined with another part of its symbol", nullptr);
      }
      if (got == 0 && parts.size() < kMaxParts && !cand.regrown && !cand.reindexed) {
        Part part{cand.dark, {}, cand.fit};
        for (LatticeDot& d : part.fit.dots) {
          part.dots.push_back(blobInImage((*cand.blobs)[d.blob], frame));
          d.blob = static_cast<int>(part.dots.size()) - 1;
        }
        part.fit.pitch /= frame.scale;
        parts.push_back(std::move(part));
      }
    }
    if (got <= 0) return got;
    return static_cast<int>(results.size()) < options.maxSymbols ? 1 : -1;
  };
  // Phone photos and close-ups: a large image whose modules are 10+ px wide and soft reads
  // nothing at its own scale (the peak search and the region budgets are made for 2-6 px
  // modules); the same passes on a copy halved until it fits kPyramidSide may read it. The halved
  // copy is read between the image's direct stages and its deconvolving ones, which cost most of a
  // large image's time and read few of its symbols (the pack photos as a phone's 2600 px: most read
  // on the halved copy, after 220 ms of the full size's deconvolutions; docs/detector.md, "The
  // pyramid between the two sweeps"). The deconvolving stages then run from what the direct ones
  // saw, with this image's allowances of extended lattices and its parts as they were left.
  const bool pyramid = options.tryHarder && copy.halveLarge && std::max(image.width, image.height) > kPyramidSide;
  StagesSeen direct;
  ImageCopy firstSweep = copy;
  if (pyramid) firstSweep.pauseAt = &direct;
  runAllPasses(image, options, deadline, firstSweep, onCandidate);
  if (results.empty() && pyramid) {
    const double left = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left > 1) {
      std::vector<uint8_t> buffers[2];
      GreyImage small = image;
      int factor = 1;
      for (int k = 0; std::max(small.width, small.height) > kPyramidSide; ++k) {
        GreyImage next;
        downsample2(small, buffers[k & 1], next);  // (reads the other buffer, or the image)
        small = next;
        factor *= 2;
      }
      std::optional<ImageBlurCues> levelCues;
      const size_t sampledBefore = options.sampled ? options.sampled->size() : 0;
      results = readWithCopies(small, budgetLeft(options, deadline), levelCues);
      // The pyramid stops where the long side first fits kPyramidSide, which leaves modules of 5+ px
      // when the photo was taken at 4-5 times a scanner's resolution (the real pack photos enlarged
      // to a long side of 2600 px with a phone's blur and noise read 35 of 43 at 1300 px, 42 at 650):
      // one level more, the passes alone (at most 800 px a side, a quarter of the pixels above),
      // unless readWithCopies halved it already (a soft level; its cues say so).
      if (results.empty() && std::max(small.width, small.height) > kSmallImageSide && Clock::now() < deadline &&
          !softMidImage(small, levelCues ? *levelCues : imageBlurCues(small)))
        results = readHalved(small, budgetLeft(options, deadline));
      scaleCorners(results, static_cast<float>(factor));
      scaleSampled(options.sampled, sampledBefore, static_cast<float>(factor));
    }
  }
  if (results.empty() && direct.complete && Clock::now() < deadline) {
    ImageCopy secondSweep = copy;
    secondSweep.resumeFrom = &direct;
    runAllPasses(image, options, deadline, secondSweep, onCandidate);
  }
  return results;
}

// A large photo (a phone's 8-12 MP) in which the symbol is small: modules of 2-4 px, a few hundred
// pixels of a frame that shows the whole desk. The harder passes' allowances (clusters per pass,
// peaks regions and their pixels) are made for frames of up to about 1280 x 720, and over a
// 12 MP frame of text and textures they run out on whatever comes first in raster order. So such
// a photo is read again in overlapping windows of 1280 x 960, the middle ones first (where a user
// aims), each with the allowances of a frame of its own, until the budget runs out. Last, after
// every other re-read, so that none of them loses budget to it (docs/detector.md, "A small symbol
// in a large photo"). `trace` (the caller's, when it asked for one) notes each window's reads in
// order; their passes are not traced (rest() hands on no trace: the windows' own coordinates).
template <class Rest>
void readInWindows(const GreyImage& image, Rest&& rest, DetectorTrace* trace, std::vector<ReadResult>& results) {
  using namespace det;
  const int ww = std::min(image.width, kWindowSide), wh = std::min(image.height, kWindowSide * 3 / 4);
  auto starts = [](int size, int window) {
    std::vector<int> at;
    const int step = std::max(1, window - kWindowOverlap);
    for (int x = 0;; x += step) {
      if (x + window >= size) {
        at.push_back(size - window);
        break;
      }
      at.push_back(x);
    }
    return at;
  };
  struct Window {
    int x, y;
    double fromCentre;
  };
  std::vector<Window> windows;
  for (int y : starts(image.height, wh))
    for (int x : starts(image.width, ww)) {
      const double dx = x + ww / 2.0 - image.width / 2.0, dy = y + wh / 2.0 - image.height / 2.0;
      windows.push_back({x, y, dx * dx + dy * dy});
    }
  std::stable_sort(windows.begin(), windows.end(), [](const Window& a, const Window& b) { return a.fromCentre < b.fromCentre; });
  // Two sweeps: every window's first stages, then the deconvolving stages of those that read
  // nothing, from what their first stages saw. Most windows' time goes to the deconvolving stages,
  // which read few of the symbols: in one sweep, a symbol the peaks stage reads in the last
  // windows waited behind every earlier window's deconvolutions (docs/detector.md, "A large
  // photo's windows in two sweeps").
  std::vector<StagesSeen> seen(windows.size());
  for (const bool deconvolving : {false, true})
    for (size_t i = 0; i < windows.size(); ++i) {
      if (deconvolving && !seen[i].complete) continue;
      ReadOptions o = rest();
      if (o.timeBudgetMs <= 1 || static_cast<int>(results.size()) >= o.maxSymbols) return;
      o.maxSymbols -= static_cast<int>(results.size());
      const Window& w = windows[i];
      const GreyImage view{image.data + static_cast<size_t>(w.y) * image.stride + w.x, ww, wh, image.stride};
      ImageCopy window{false};
      window.darkDeconvolved = false;
      window.largePhotoWindow = true;
      if (deconvolving)
        window.resumeFrom = &seen[i];
      else
        window.pauseAt = &seen[i];
      std::vector<ReadResult> found = readAsGiven(view, o, window);
      shiftCorners(found, static_cast<float>(w.x), static_cast<float>(w.y));
      if (trace) trace->windows.push_back({w.x, w.y, w.x + ww, w.y + wh, deconvolving, static_cast<int>(found.size())});
      for (ReadResult& r : found)
        if (sameSymbolAt(results, r) < 0) results.push_back(std::move(r));
    }
}
// A streak over the whole image (a hand-held phone, a pack on a moving line) that the smear
// stages did not undo: their regions' own estimates, and the shared one over the light regions,
// missed the streak's direction or length, or their regions cut the symbol. One streak is
// estimated over the image's most textured windows and the whole image deconvolved by a little
// less than it (the estimate overshoots on real photos, as in shortSmearPeaks), then read again
// with every pass. Offline, the real pack photos under a 7 px streak deconvolved whole by the
// true kernel all read, and by 8-9 px (the estimate) most did. Nothing when the image shows no
// such streak.
std::vector<ReadResult> readUnsmeared(const GreyImage& image, const det::ImageBlurCues& cues, const ReadOptions& options) {
  det::BlurEstimate streak;
  // (an image the smear stages' own gate calls streaked needs only their depth)
  const float minDepth = cues.anisotropy >= det::kSmearAnisotropy ? det::kMinSmearDepth : det::kMinImageStreakDepth;
  if (cues.anisotropy < det::kImageStreakAnisotropy || !det::estimateImageStreak(image, cues.weakAngle, streak) || streak.depth < minDepth ||
      streak.length < det::kMinImageStreak || streak.length > det::kMaxSmear)
    return {};
  PPROF("  image streak %.1f px at %.0f, depth %.2f (cue %.2f)\n", streak.length, streak.angle * 57.3f, streak.depth, cues.anisotropy);
  std::vector<uint8_t> buf;
  GreyImage sharp;
  streak.length *= det::kImageStreakScale;
  det::deblurRegion(image, streak, det::kWienerRegularisation, buf, sharp);
  return readAsGiven(sharp, options);
}

// A small image (a frame of a low-resolution camera, a pack seen from afar): modules of 1.2-2.5
// px, which the peak search blurs together and the thresholds merge; the fine-lattice stage only
// re-reads the few lattices it found. The whole image is read again upsampled twice (real pack
// photos at half size: 27 -> 40 of 43, 0.75x 38 -> 41, turned 90 and 180 degrees 39 -> 41);
// 1280x720 frames never pay it. Its deblurred stage does not halve a large region: that is the
// scale the image as given was deconvolved at, and on an upsampled copy every edge looks blurred,
// so it always ran (the example QR Code's 492 x 492 px: most of its 1094M instructions were such
// deconvolutions). Measured without it: the same reads on every synthetic category (seeds
// 1-100), on the real photos and their half-size and 0.6x-blurred transforms; the 390 zxing
// sample images at the 250 ms budget, median 81 -> 57 ms. (Small regions are still deconvolved
// at twice the size: without them the native test of cylinders lit from one side lost reads; and
// the deconvolving peaks stages stay: the defocus one reads small soft light dots here, real packs
// at half size 41 -> 40 and 0.6x blurred 32 -> 29 of 43 without it.)
// Its upsampled copies take gaussianDeblurred only where the image as given looks soft: every edge
// of an upsampled copy does.
// Where that copy held lattices of DotCode content of modules under kFinePitch px (as given) and
// read nothing, the image is upsampled again by cubic convolution and read once more. Dark inkjet
// dots of 2.0-2.3 px (pack-dark: 8 of the 15 such renders of seeds 1-100 unread) sit a pixel
// apart, and bilinear interpolation fills the dip between them that the cubic kernel's
// undershoot keeps; neither copy reads all that the other does (the cubic copy alone: pack-dark
// 12, 58, 60 read, 43 lost), so the cubic one comes second, and only where the first saw such a
// lattice: on the zxing corpus' small images without DotCode every such copy costs 42% more
// detector time, the gated one 7%.
template <class Rest>
std::vector<ReadResult> readUpsampled(const GreyImage& image, bool softAsGiven, Rest&& rest) {
  if (rest().timeBudgetMs <= 1) return {};
  std::vector<uint8_t> buf;
  GreyImage up;
  det::upsample2(image, buf, up);
  float finest = std::numeric_limits<float>::infinity();
  ReadOptions o = rest();
  o.finestDotCodePitch = &finest;
  std::vector<ReadResult> results = readAsGiven(up, o, det::ImageCopy{false, false, softAsGiven, false});
  if (results.empty() && finest < 2 * det::kFinePitch && rest().timeBudgetMs > 1) {
    det::upsample2Cubic(image, buf, up);
    results = readAsGiven(up, rest(), det::ImageCopy{false, false, softAsGiven, false});
  }
  scaleCorners(results, 0.5f);
  return results;
}

// A small image that read nothing as given (nor smoothed), sharpened by an unsharp mask
// (unsharp_mask.cpp: the image plus 1.5 times its difference from a Gaussian blur of 2 px) into
// sharp and read as given; readWithCopies reads sharp upsampled too, later. The
// slow light that breaks a pack symbol's lattice (a glare slope or the aimer band over one end,
// blur spreading each dot into its gaps, a vial's shading) is taken out and each dot stands
// against its own surroundings. Offline, the same sharpening read 21 of the 52 renders the reader
// left unread in pack, pack-dark, cylinder-small and the independent renderer's blurred cylinders
// (seeds 1-100); here, native bench, budget lifted: pack 88 -> 94, pack-dark 84 -> 87,
// cylinder-small 95 -> 96, blurred cylinders 81 -> 83, and of the held-out seeds packs 2001-2150
// 135 -> 138, pack-dark 2001-2150 122 -> 125, cylinder-small 2001-2150 140 -> 145; zero
// misreads, the faint-end stress of the native tests 245 -> 248 read and 9 cut short as before,
// the reference images as before but pack-dark-9 read; no false positive on the zxing corpus
// sharpened. Small images only: a 1280 x 720 frame without a symbol would pay it on every still
// read (15 -> 62 ms of CPU on the empty speed frames), and small images without DotCode pay 41%
// more detector time (docs/detector.md, "A sharpened copy").
constexpr float kUnsharpSigma = 2.0f, kUnsharpAmount = 1.5f;
template <class Rest>
std::vector<ReadResult> readSharpened(const GreyImage& image, Rest&& rest, std::vector<uint8_t>& buf, GreyImage& sharp) {
  det::unsharpMask(image, kUnsharpSigma, kUnsharpAmount, buf, sharp);
  std::vector<ReadResult> results = readAsGiven(sharp, rest());
  return results;
}

// An image that read nothing as given, its grey range stretched and its shadows lifted. Not an
// image whose range is only its noise (onlyNoise(): a blank frame under a camera's gain, whose
// stretched noise the passes read as dots everywhere), asked only when a copy would be made (most
// frames need none); the caller judges the image as given, since a smoothed copy's noise no longer
// shows in the noise estimate.
template <class Rest, class OnlyNoise>
std::vector<ReadResult> readToned(const GreyImage& image, Rest&& rest, OnlyNoise&& onlyNoise) {
  std::vector<ReadResult> results;
  // Underexposed and low-contrast photos are read again with their grey range stretched (the
  // passes' floors are in grey levels). After, not instead of, the image as it is: on the pack
  // photos either reading alone loses photos the other reads.
  std::vector<uint8_t> toneBuf;  // (the two tone re-reads, one after the other, share it)
  GreyImage toned;
  const det::GreyLevels levels = det::sampledLevels(image);
  if (!det::wantsTone(levels) || onlyNoise()) return results;
  if (rest().timeBudgetMs > 1 && det::stretchLowContrast(image, levels, toneBuf, toned)) results = readAsGiven(toned, rest());
  if (!results.empty()) return results;
  // A dark exposure whose range is wide (glints, the aimer band) but whose mid-tones lie in the
  // lowest levels: read again with the shadows lifted (stretch_contrast.cpp; real pack photos under
  // gamma 2: 32 -> 40 of 43, gamma 1.6: 35 -> 42).
  if (rest().timeBudgetMs > 1 && det::liftShadows(image, levels, toneBuf, toned)) results = readAsGiven(toned, rest());
  return results;
}

// A noisy image smoothed by a Gaussian of `width` px into `denoised` (kept for its copies), read;
// then (nothing read) smoothed by the narrowest width and read. Heavy noise (sigma 12) on light
// dots of 2-3 px modules: the Gaussian that clears the noise from the panel also merges
// neighbouring dots into one peak; the narrowest keeps them apart and leaves the rest of the noise
// for the lattice to outvote (real pack photos with noise of sigma 12: 30 -> 35 of 43). Moderate
// noise (sigma 5-7) is smoothed by kFirstDenoise first, then by the narrowest: the two read
// different photos.
template <class Rest>
std::vector<ReadResult> readDenoised(const GreyImage& image, float width, Rest&& rest, std::vector<uint8_t>& buf, GreyImage& denoised) {
  det::denoiseImage(image, width, buf, denoised);
  std::vector<ReadResult> results = readAsGiven(denoised, rest());
  if (!results.empty() || rest().timeBudgetMs <= 1) return results;
  std::vector<uint8_t> narrowBuf;
  GreyImage narrow;
  det::denoiseImage(image, det::kNarrowestDenoise, narrowBuf, narrow);
  return readAsGiven(narrow, rest());
}

// Camera conditions that the passes, made for 2-6 px modules over most of the 8-bit range, miss:
// when the image as given reads nothing, copies that restore what they expect are read.
std::vector<ReadResult> readWithCopies(const GreyImage& image, const ReadOptions& options, std::optional<det::ImageBlurCues>& cues) {
  using det::Clock;
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, options.timeBudgetMs) * 1000));
  std::vector<ReadResult> results = readAsGiven(image, options);
  // A live frame (the video fusion's hook set) stops at the image as given: the copies' lattices
  // are never fused (their coordinates are the copy's), the next frame comes within tens of
  // milliseconds, and the copies cost a small frame up to ten times the read as given (FrameReader
  // at `balanced`, 480x360 sequence frames: detector median 254 -> 26 ms; bench/RESULTS.md "Video
  // sequences").
  if (options.sampled) return results;
  if (!results.empty() || !options.tryHarder || !image.valid() || options.maxSymbols <= 0) return results;
  auto rest = [&]() {
    ReadOptions o = budgetLeft(options, deadline);
    o.sampled = nullptr;  // (the video fusion's lattices hold the image as given, in its coordinates)
    return o;
  };
  const bool small = std::max(image.width, image.height) <= det::kSmallImageSide;
  // (cues: computed once, for the small image's copies, the soft mid-size image's halving and the
  // streak's re-read)
  if (small && rest().timeBudgetMs > 1) cues = det::imageBlurCues(image);
  const bool softAsGiven = cues && cues->edgeWidth >= det::kSoftImageEdgeWidth;
  // A noisy image (sigma 5-10 grey levels, or less on a dark or soft symbol): every pixel is a
  // local extreme, the fast pass's focus regions cover the frame and the peak search's lattices
  // grow over the noise. It is read smoothed first, and the smoothed image gets the copies the
  // image as given gets (denoise_image.cpp; real pack photos underexposed x0.45 with noise of
  // sigma 5: 31 -> 35 of 43 at the 500 ms budget). First, because the passes spend the budget on a noisy image's
  // extremes: read after the image's own copies, the smoothed one found the budget spent. The
  // image's own upsampled copy still comes before the smoothed one's (a small image at the noise
  // gate, 2 px modules: smoothing by 1.1 px merges its dots).
  // (the noise estimated once, for the smoothing's width and for the tone copies' gate below)
  const float noise = rest().timeBudgetMs > 1 ? det::noiseSigma(image) : 0;
  const float noiseWidth = det::denoiseWidth(noise);
  std::vector<uint8_t> denoisedBuf;
  GreyImage denoised;
  if (noiseWidth > 0) results = readDenoised(image, noiseWidth, rest, denoisedBuf, denoised);
  if (!results.empty()) return results;
  // The sharpened copy as given before any upsampled copy: it reads most of what sharpening
  // reads at the cost of one read of the image, where the upsampled copies cost four times the
  // pixels (pack renders read by the sharpened copy: 17 of 400, 15 of them as given; at a still's
  // budget pack-dark 1-300 +4 and pack 1-100 -1, docs/detector.md "The sharpened copy first").
  // Its own upsampled copy stays where the sharpened copy was read before.
  std::vector<uint8_t> sharpBuf;
  GreyImage sharp;
  if (small && rest().timeBudgetMs > 1) results = readSharpened(image, rest, sharpBuf, sharp);
  if (!results.empty()) return results;
  if (small) results = readUpsampled(image, softAsGiven, rest);
  if (!results.empty()) return results;
  // A soft image between the small ones and those the pyramid halves (801-1400 px a side: a phone
  // or a camera closer up, out of focus): modules of 5-8 px under a blur of 2 px, whose peaks
  // the passes made for 2-6 px modules split and merge. Read again halved, where the modules and
  // the blur are those of a scanner frame (real pack photos at 2x with a Gaussian of 2 px 38 ->
  // 42 of 43; scn-hd-case-4, 1280x720 and soft, read as taken). Only where the edges are wide
  // (kHalveSoftEdgeWidth: those images 9-21 px, the empty 720p speed frames 2.1-3.1; the cue is
  // the one the streak's re-read below computes anyway).
  if (!small && std::max(image.width, image.height) <= det::kPyramidSide && rest().timeBudgetMs > 1) {
    if (!cues) cues = det::imageBlurCues(image);
    if (det::softMidImage(image, *cues)) results = readHalved(image, rest());
    if (!results.empty()) return results;
  }
  std::optional<bool> blank;
  auto onlyNoise = [&]() {
    if (!blank) blank = det::onlyNoise(image, noise);
    return *blank;
  };
  if (noiseWidth > 0) {
    if (small) results = readUpsampled(denoised, softAsGiven, rest);
    if (results.empty()) results = readToned(denoised, rest, onlyNoise);
    if (!results.empty()) return results;
  }
  results = readToned(image, rest, onlyNoise);
  if (!results.empty()) return results;
  // A strongly compressed JPEG (quality 30-50) of modules of 2-3 px: the block borders' steps are
  // as strong as the dots, and the passes' regions and peaks follow the block grid. The image is
  // read again with the small steps across the borders smoothed (deblock_jpeg.cpp); a small
  // image upsampled too (real pack photos at quality 30: 37 -> 39 of 43).
  std::vector<uint8_t> deblockedBuf;
  GreyImage deblocked;
  if (rest().timeBudgetMs > 1 && det::deblockJpeg(image, deblockedBuf, deblocked)) {
    results = readAsGiven(deblocked, rest());
    if (results.empty() && small) results = readUpsampled(deblocked, softAsGiven, rest);
  }
  if (!results.empty()) return results;
  if (sharp.valid() && rest().timeBudgetMs > 1) results = readUpsampled(sharp, softAsGiven, rest);
  if (!results.empty()) return results;
  const double pixels = static_cast<double>(image.width) * image.height;
  if (results.empty() && !options.sampled && pixels <= det::kUnsmearPixels &&
      rest().timeBudgetMs >= det::kUnsmearMsPerMegapixel * pixels / 1e6) {
    if (!cues) cues = det::imageBlurCues(image);
    results = readUnsmeared(image, *cues, rest());
  }
  if (results.empty() && pixels > det::kLargePhotoPixels && pixels <= det::kMostWindowedPixels) readInWindows(image, rest, options.trace, results);
  return results;
}

}  // namespace

std::vector<ReadResult> readDotCodes(const GreyImage& image, const ReadOptions& options) {
  const det::PlanePoolScope planes;
  std::optional<det::ImageBlurCues> cues;
  std::vector<std::string> refused;
  ReadOptions shared = options;
  shared.refusedTexts = &refused;
  return readWithCopies(image, shared, cues);
}

}  // namespace dc
