// Internal types shared by the detector stages (not part of the public API).
//
// Stages, one file each:
//   locate_dots.cpp   image -> candidate dots (blobs of one polarity, local thresholds)
//   group_dots.cpp    dots -> clusters of similar, nearby dots (symbol candidates)
//   fit_lattice.cpp   cluster -> checkerboard lattice, every dot given grid coordinates
//   extend_lattice.cpp a lattice that did not read -> followed over the image past its growth
//   deblur_region.cpp a heavily blurred region -> its blur estimated and deconvolved
//   sample_grid.cpp   lattice -> homography (+ local residuals) -> DotGrid with confidences
//   lattice_evidence.cpp sampled lattice -> does it ink the 5/9 of its positions a DotCode does?
//   read_dotcodes.cpp passes, hypotheses (extent off by one), decodeDotGrid, results
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/grey_image.h"
#include "dotcode/dotcode_symbol.h"

namespace dc {
namespace det {

// A lattice or grid position (row, col) as one hash key.
inline int64_t gridKey(int row, int col) {
  return static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(row)) << 32) | static_cast<uint32_t>(col));
}

// Union-find root with path halving; blobs (locate) and dot clusters (group) both merge this way.
inline int unionRoot(std::vector<int32_t>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

// One candidate dot: a 4-connected blob of foreground pixels.
struct Blob {
  float x = 0, y = 0;  // centroid in pixels (pixel centres at integer + 0.5)
  float d = 0;         // equivalent diameter sqrt(4*area/pi)
  int area = 0;
  int w = 0, h = 0;  // bounding box size
  int depth = 0;     // how far the darkest pixel lies beyond the local threshold (contrast)
};

// A dot found at a predicted lattice position (extension, cylinder model) rather than located:
// a round blob of the lattice's typical diameter.
inline Blob predictedDot(float x, float y, float d, int depth) {
  Blob b;
  b.x = x;
  b.y = y;
  b.d = d;
  b.area = static_cast<int>(std::lround(0.785f * d * d));
  b.w = b.h = static_cast<int>(std::lround(d));
  b.depth = depth;
  return b;
}

struct LocateParams {
  bool dark = true;      // dark dots on a light ground (false: light dots, inverted print)
  float alpha = 0.15f;   // threshold = localMean -/+ alpha * (localMean - localMin / localMax - localMean)
  int minContrast = 24;  // blocks whose neighbourhood spans less than this hold no dots
  int blockShift = 3;    // 8x8 pixel blocks
  int radiusBlocks = 4;  // local statistics over (2R+1)^2 blocks
  int maxDot = 48;       // blobs wider or taller than this are not dots
  int maxRuns = 600000;  // bounded work on adversarial images (all-dots, stripes, noise)
  int maxBlobs = 60000;
  // The image (its address and size) shows the same pixels as in earlier calls of this read: its
  // block statistics may be taken from them, and are kept for later calls.
  bool reuseStats = false;
};

// Reusable buffers so that a frame does not allocate once the buffers have grown.
struct LocateWorkspace {
  std::vector<int32_t> blockSum, blockCnt;
  std::vector<uint8_t> blockMin, blockMax, rawMin, rawMax, blkLo;
  std::vector<float> blkMean;
  const uint8_t* statsData = nullptr;
  int statsW = 0, statsH = 0, statsStride = 0, statsShift = 0, statsRadius = 0;
  // Block statistics of earlier reuseStats calls (crops read by several passes), at most
  // kMaxKeptStats of them; forgetStats() when the image changes.
  struct KeptStats {
    const uint8_t* data;
    int w, h, stride, shift, radius;
    std::vector<int32_t> blockSum, blockCnt;
    std::vector<uint8_t> blockMin, blockMax;
  };
  static constexpr size_t kMaxKeptStats = 32;
  std::vector<KeptStats> kept;
  void forgetStats() {
    statsData = nullptr;
    kept.clear();
  }
  int rejectedShapes = 0;  // components of the last call too big, thin or sparse for a dot
  // Bounding boxes (x0, y0, x1, y1) of rejected components that are too big for a dot but
  // compact and filled like a group of merged dots (blur, ink spread): where the stricter
  // threshold pass should look. At most kMaxMerged of them.
  struct Box {
    int x0, y0, x1, y1;
  };
  static constexpr int kMaxMerged = 64;
  std::vector<Box> merged;
  std::vector<int32_t> tmpA, tmpB;
  std::vector<uint8_t> tmpBytes;
  // one block row's statistics: per column, folded per block (blockRowStats)
  std::vector<uint8_t> colMin, colMax, foldMin, foldMax, bMin, bMax;
  std::vector<uint16_t> colSum, foldSum, bSum;
  std::vector<int16_t> thr;
  std::vector<uint8_t> thrRow, fg;  // extractRuns: one row's per-pixel threshold and foreground depth
  std::vector<int32_t> runX0, runX1, runY, runDepth, parent;
  std::vector<int32_t> rowStart;
  std::vector<int64_t> sumX2, sumY2;  // twice the coordinate sums (exact)
  std::vector<int32_t> cnt, minX, maxX, minY, maxY, depth;
};

// Returns false when a work cap was hit (the blobs are then incomplete but still usable).
bool locateDots(const GreyImage& img, const LocateParams& p, LocateWorkspace& ws, std::vector<Blob>& out);

// Dots as local maxima of a centre-surround response (small dots that touch, faint dots).
struct PeakParams {
  bool dark = true;
  int surround = 3;       // box radius of the local mean
  float minContrast = 4;  // grey levels a dot must stand out of its surround
  float noiseK = 4;       // ... and this many times the image's median absolute response
  int maxPeaks = 60000;
  float supportRadius = 12;  // mark peaks midway between two others within this radius (0: none)
  // The two polarities' responses of the same pixels are each other's negation (the smoothed
  // image and the noise floor are the same): a read may keep its response for a later read of
  // the other polarity on the same pixels (keepResponse; the image's address and size name them,
  // as for LocateParams::reuseStats), which then takes it instead of computing its own
  // (takeResponse). The peaks found are the same either way.
  bool keepResponse = false;
  bool takeResponse = false;
};
struct PeakWorkspace {
  std::vector<uint16_t> hBinom, hBox, smooth, boxAcc;
  std::vector<uint16_t> pair;  // one row: sums of neighbouring pixel pairs
  std::vector<int32_t> mult;
  std::vector<int16_t> resp;
  std::vector<uint8_t> above;  // one row: a maximum along the row that reaches the floor (rowMaxMask)
  std::vector<uint8_t> keep;   // per peak: midway between two others (the clusters' seeds)
  // Responses kept for a read of the other polarity (PeakParams::keepResponse); forgetResponses()
  // when the image changes.
  struct KeptResponse {
    const uint8_t* data;
    int w, h, stride;
    bool dark;
    int32_t noise;  // the median absolute response (x16)
    std::vector<uint16_t> smooth;
    std::vector<int16_t> resp;
  };
  static constexpr size_t kMaxKeptResponses = 16;
  std::vector<KeptResponse> kept;
  void forgetResponses() { kept.clear(); }
};
// Returns false when the peak cap was hit.
bool locatePeaks(const GreyImage& img, const PeakParams& p, PeakWorkspace& ws, std::vector<Blob>& out);

// The blur of a region (deblur_region.cpp): a motion streak (length px, angle rad) when the
// gradient is strongly anisotropic, else a defocus disc (radius px). depth: how deep the
// gradient's autocorrelation minimum is (0..1), the estimate's evidence.
// measureBlurCues fills the cheap cues (one pass over the pixels): anisotropy (structure tensor
// eigenvalue ratio; motion when it is strong, weakAngle the direction of the weak gradient) and edgeWidth (grey range over
// the steepest slopes, px). estimateBlur then needs them.
struct BlurEstimate {
  bool motion = false;
  float length = 0, angle = 0, radius = 0;
  // When set (pixels), deblurRegion undoes a Gaussian of this sigma instead of the disc: a lens's
  // blur with the sensor's and the print's own spread is nearer a Gaussian than a disc.
  float sigma = 0;
  float anisotropy = 1, weakAngle = 0, edgeWidth = 0, depth = 0;
  bool lightDots = false;  // the window's median grey lies on the dark side: light dots on a dark ground
};
// The structure tensor's eigenvalue ratio above which a region's blur is motion (3.3-9.1 on the
// heavy blur renders, 1.0-1.6 on most text and texture): the cues' gate and the estimate's choice.
constexpr float kMotionAnisotropy = 2.5f;
void measureBlurCues(const GreyImage& img, BlurEstimate& out);
// A whole image's evidence of blur, cheap enough for every image that reads nothing, from one
// sparse grid of samples (every 6th pixel of every 6th row).
struct ImageBlurCues {
  // Motion: the eigenvalue ratio of the structure tensor weighted by the squared gradient (so that
  // edges, not flat noise, decide). About 1-2 on sharp images; a streak over a module or more
  // leaves 4 and over on the real pack photos. weakAngle: the direction of the weak gradient,
  // across the image's edges (radians).
  float anisotropy = 1, weakAngle = 0;
  // Defocus: the grey range (2nd to 98th percentile) over the steep slopes (98th percentile of
  // (|gx| + |gy|) / 2, central differences over 2 px). About 2-3 px on sharp frames.
  float edgeWidth = 0;
};
ImageBlurCues imageBlurCues(const GreyImage& img);
// False when the region is too small or shows no blur edge.
bool estimateBlur(const GreyImage& img, BlurEstimate& out);
// 2-D FFT of an ny x nx row-major array (both powers of two; unnormalised, the inverse is scaled
// by 1/(nx ny)), in place, its real and imaginary parts in separate planes (deblur_region.cpp:
// the blur estimates and the deconvolution).
void fft2(std::vector<float>& re, std::vector<float>& im, int nx, int ny, bool inverse);
// One motion streak for several regions of an image (a camera's shake smears them all alike): the
// deepest minimum of their windows' averaged gradient autocorrelations, within 12 degrees of
// weakAngle. False when no region is large enough.
bool estimateSharedStreak(const std::vector<GreyImage>& regions, float weakAngle, BlurEstimate& out);
// One motion streak for the whole image, from the windows of a grid over it with the most edges.
bool estimateImageStreak(const GreyImage& img, float weakAngle, BlurEstimate& out);
// The region deconvolved by a Wiener filter with the estimated kernel (regularisation relative to
// a kernel of unit sum), into buf; out views buf.
void deblurRegion(const GreyImage& img, const BlurEstimate& blur, float regularisation, std::vector<uint8_t>& buf,
                  GreyImage& out);

// The grey levels of an image (stretch_contrast.cpp, from about 64k pixels on a regular grid): its
// 0.5th and 99.5th percentiles and its median (as a full-range, bright image when it has no pixels).
struct GreyLevels {
  int lo = 0, hi = 255, median = 255;
};
GreyLevels sampledLevels(const GreyImage& in);
// An image whose grey range, less the slow changes of the light, is no wider than its own sensor
// noise makes (stretch_contrast.cpp: a blank wall or belt under a camera's gain; noiseSigma is
// noiseSigma(in)): stretching or lifting it would only amplify the noise.
bool onlyNoise(const GreyImage& in, float noiseSigma);
// Whether stretchLowContrast or liftShadows would make a copy of an image of these levels.
bool wantsTone(const GreyLevels& levels);
// Underexposed and low-contrast images (stretch_contrast.cpp): when the image's 0.5th..99.5th
// percentiles lie under 128 grey levels apart, fills buf with the image stretched so that they
// span 0..255 (out views buf) and returns true; otherwise returns false and leaves out alone.
bool stretchLowContrast(const GreyImage& in, const GreyLevels& levels, std::vector<uint8_t>& buf, GreyImage& out);
// Dark exposures (stretch_contrast.cpp): when the image's median grey lies under 48, fills buf with
// the image under a power curve that lifts its median to about 96 (exponent 0.4-1; out views buf)
// and returns true; otherwise returns false and leaves out alone.
bool liftShadows(const GreyImage& in, const GreyLevels& levels, std::vector<uint8_t>& buf, GreyImage& out);

// Block-coded (JPEG) images (deblock_jpeg.cpp): the mean grey step across 8-px block borders over
// the mean step elsewhere, on whole rows (about 1 on images never block-coded).
float blockiness(const GreyImage& img);
// The blockiness from which an image is taken as block-coded and read again deblocked when
// nothing read. Pack photos at JPEG quality 30 measure 1.97-3.1, at quality 50 1.67-2.4; but the
// synthetic negatives and clutter scenes (delivered as JPEG) reach 1.81 (empty 1280x720 frames
// 1.2-1.61), and an empty frame over the bound pays a second whole read (a 1080p negative 43 ->
// 93 ms). 1.9 keeps every image that holds no symbol on our sets under it and the quality-30 reads.
constexpr float kBlockCoded = 1.9f;
// When the image is block-coded, fills buf with it deblocked (small steps across the block
// borders smoothed, then a Gaussian of 0.7 px; out views buf) and returns true; otherwise false.
bool deblockJpeg(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out);

// Resampling by two (resample_image.cpp), into buf (out views it, rows packed): bilinear
// upsampling with pixel centres aligned (weights 3/4 and 1/4, rounded half up), the same by cubic
// convolution (Keys, a = -1/2: sharper, clipped to 0-255), and the mean of each 2x2 block (an odd
// last row or column dropped).
void upsample2(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out);
void upsample2Cubic(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out);
void downsample2(const GreyImage& in, std::vector<uint8_t>& buf, GreyImage& out);

// The image's grey levels as floats, rows packed (for the whole-image smoothing re-reads).
std::vector<float> greyToFloat(const GreyImage& in);
// f smoothed by a separable Gaussian of the given variance (sigma squared, px^2; radius 3 sigma
// rounded, edges clamped; gaussian_blur.cpp), rounded and clipped into buf; out views buf.
void blurToGrey(const std::vector<float>& f, int W, int H, float variance, std::vector<uint8_t>& buf, GreyImage& out);
// in + amount * (in - in smoothed by a Gaussian of sigma px), rounded and clipped into buf; out
// views buf (unsharp_mask.cpp).
void unsharpMask(const GreyImage& in, float sigma, float amount, std::vector<uint8_t>& buf, GreyImage& out);

// Noisy images (denoise_image.cpp): Immerkaer's estimate of the noise's sigma per pixel, in grey
// levels (every 16th row).
float noiseSigma(const GreyImage& img);
// The noise from which an image that read nothing is read again smoothed. The pack photos as taken
// and under 37 other transforms (scaled, turned, blurred, JPEG, exposure) measure 0.1-3.2.
constexpr float kNoisy = 4.0f;
// The narrowest smoothing (px; at sigma 6 the noise's own width): a noisy image whose wider
// smoothing read nothing is read once more at it.
constexpr float kNarrowestDenoise = 0.8f;
// The narrowest first smoothing (px): below it, the first and the narrow read would see nearly the
// same image.
constexpr float kFirstDenoise = kNarrowestDenoise + 0.3f;
// The width (px) of the Gaussian that clears an image's noise of `noiseSigma` (noiseSigma(img)):
// 0.14 times the noise, clamped to kFirstDenoise..1.4 px; 0 when the image is not noisy (under
// kNoisy).
float denoiseWidth(float noiseSigma);
// in smoothed by a Gaussian of `width` px, into buf (out views it).
void denoiseImage(const GreyImage& in, float width, std::vector<uint8_t>& buf, GreyImage& out);

// A uniform-cell spatial index over blob centres. The centres are copied by build(): a blob moved
// later is still found where it was.
class SpatialIndex {
 public:
  void build(const std::vector<Blob>& blobs, int width, int height, float cell);
  // Calls f(index) for every blob whose centre lies within r of (x, y).
  template <class F>
  void forEachNear(float x, float y, float r, F&& f) const;
  int nearest(float x, float y, float r, const std::vector<Blob>& blobs) const;

 private:
  float cell_ = 8;
  int gw_ = 0, gh_ = 0;
  std::vector<int32_t> start_, items_;
  std::vector<float> xs_, ys_;  // the items' centres, in the same order (one cache line per cell, not one per blob)
};

template <class F>
void SpatialIndex::forEachNear(float x, float y, float r, F&& f) const {
  if (gw_ == 0) return;
  int cx0 = static_cast<int>((x - r) / cell_), cx1 = static_cast<int>((x + r) / cell_);
  int cy0 = static_cast<int>((y - r) / cell_), cy1 = static_cast<int>((y + r) / cell_);
  if (cx0 < 0) cx0 = 0;
  if (cy0 < 0) cy0 = 0;
  if (cx1 >= gw_) cx1 = gw_ - 1;
  if (cy1 >= gh_) cy1 = gh_ - 1;
  const float r2 = r * r;
  for (int cy = cy0; cy <= cy1; ++cy)
    for (int cx = cx0; cx <= cx1; ++cx) {
      int c = cy * gw_ + cx;
      for (int k = start_[c]; k < start_[c + 1]; ++k) {
        float dx = xs_[k] - x, dy = ys_[k] - y;
        if (dx * dx + dy * dy <= r2) f(items_[k]);
      }
    }
}

// Clusters: indices into the blob list, largest cluster first; clusters smaller than minSize dropped.
void groupDots(const std::vector<Blob>& blobs, const SpatialIndex& index, int minSize,
               std::vector<std::vector<int>>& clusters);
// Peaks (locate_peaks.cpp): clusters of the seed peaks only (noise peaks would chain everything
// together), linked by the seeds' own spacing; indices into `peaks`. The lattice still grows over
// every peak.
void groupSeeds(const std::vector<Blob>& peaks, const std::vector<uint8_t>& seed, int width, int height, float cell,
                int minSize, std::vector<std::vector<int>>& clusters);

// A lattice fitted to a cluster: every accepted dot with its grid position. Grid rows/cols are
// the checkerboard's: a dot at (row, col) has row+col of one fixed parity.
struct LatticeDot {
  int blob;
  int row, col;
};
// Where a lattice's growth started (its seed dot, the cluster's diagonal basis and the size and
// contrast a grown dot must have), kept so that it can be grown again with other steps.
struct GrowthStart {
  int seed = -1;
  float ax = 0, ay = 0, bx = 0, by = 0;
  float dLo = 0, dHi = 0, depthMin = 0;
  size_t dots = 0;  // the cluster's core (the growth's first reservation)
};

struct LatticeFit {
  std::vector<LatticeDot> dots;
  float pitch = 0;  // mean distance between adjacent grid positions (X), pixels
  int rowMin = 0, rowMax = -1, colMin = 0, colMax = -1;
  bool basisFound = false;  // the cluster looked like a lattice, even if the growth was rejected
  float fullFraction = 0;   // share of tested dots with all four diagonal neighbours (textures: most)
  bool texture = false;     // rejected as a regular dotted texture (fills its whole lattice)
  int farGrown = 0;         // dots the growth reached by its longest steps (three diagonals)
  GrowthStart start;
};

// Estimates the two diagonal lattice vectors from the cluster and grows the lattice from a seed.
// Returns false when the cluster is not a plausible dot lattice.
// minDepthShare: a grown dot's contrast must reach this share of the cluster's median (peaks,
// which include the noise of the whole image, need a stricter share than thresholded blobs).
// The growth steps up to three diagonals, jumping the empty stretches inside a symbol.
bool fitLattice(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<int>& cluster,
                std::vector<uint8_t>& used, LatticeFit& fit, float minDepthShare = 0.35f);

// Keeps the densest band of rows and of columns (a lattice grown from a symbol into the text
// printed beside it picks up sparse rows of stroke ends); false when too little is left.
bool trimToDenseBand(LatticeFit& fit);

// A plane seen at a steep angle (tilted about 55 degrees or more) is foreshortened across one
// axis so much that a double step along it is as short as a diagonal, and the lattice's shortest
// basis, which the fit takes for the diagonals, may hold that step instead of one of them: the
// rows then run askew through the symbol. When the fit's basis allows it, `others` receives the
// same dots indexed by the two other pairs of its three shortest vectors (those whose extent and
// fill pass the fit's checks, after trimToDenseBand when `trim`), the better filled first;
// returns how many.
int otherDiagonals(const LatticeFit& fit, bool trim, LatticeFit others[2]);

// `first` grown again from its seed and basis, with steps of at most maxReach diagonals (2 keeps
// the growth from running on through dense noise peaks: see runPass); `used` must hold the marks
// from before the first growth. False as fitLattice.
bool regrowLattice(const std::vector<Blob>& blobs, const SpatialIndex& index, const LatticeFit& first,
                   std::vector<uint8_t>& used, int maxReach, LatticeFit& fit);

// Maps grid positions (row, col) to image points: a homography fitted to the lattice dots, plus
// a locally interpolated residual so mild curvature (cylinders) is followed.
// A lattice wrapped round a cylinder (fit_cylinder.cpp): p(k, j) = m + (o + a sin(u) + d (cos(u) - 1)
// + b j) / (1 + e . (sin(u), cos(u) - 1, j)), u = (k - kc) dphi, with k the index along the wrapped
// axis and j across it (the denominator is the camera's perspective).
struct CylinderWrap {
  bool alongCols = true;  // the wrapped axis is the lattice's columns (k = col, j = row)
  double kc = 0, dphi = 0;
  double ax[4] = {0}, ay[4] = {0}, persp[3] = {0};
  double mx = 0, my = 0;  // image centroid of the dots the model was fitted on
  static void basis(double k, double j, double kc, double dphi, double f[4]);
  PointF at(double k, double j) const;
  PointF atGrid(double row, double col) const { return alongCols ? at(col, row) : at(row, col); }
};

class GridMapper {
 public:
  bool fit(const std::vector<Blob>& blobs, const LatticeFit& lattice);
  // From now on the base map is the cylinder's instead of a homography (the dots' residuals are
  // still interpolated on top of it).
  void useCylinder(const CylinderWrap& wrap) {
    wrap_ = wrap;
    wrapped_ = true;
  }
  // The cylinder the map follows (useCylinder), or null for a flat print.
  const CylinderWrap* cylinder() const { return wrapped_ ? &wrap_ : nullptr; }
  // How far the lattice dots miss the homography on average, in pitches (over 0.12 the local
  // affine maps are used: the lattice bends).
  float misfit() const { return misfit_; }
  // The local affine maps were taken only because a few dots the homography misses by far raised
  // the mean: the dots within kStrayDot of it fit a flat print (see GridMapper::fit).
  bool bentByStrays() const { return bentByStrays_; }
  // From now on such a lattice keeps the homography map (a retry: on most prints the local maps
  // read as well or better, on a pack symbol with strays at its edge they tilt it).
  void keepFlatOverStrays() { flatOverStrays_ = true; }
  PointF map(float row, float col) const;

 private:
  double h_[9] = {0};
  CylinderWrap wrap_;
  bool wrapped_ = false;
  float misfit_ = 0;
  bool bentByStrays_ = false, flatOverStrays_ = false;
  // residuals on a coarse table over the grid extent (row/col offsets from rowMin/colMin)
  int r0_ = 0, c0_ = 0, rows_ = 0, cols_ = 0;
  std::vector<float> resX_, resY_;
  PointF project(float row, float col) const;
  void fitLocalAffine(const std::vector<Blob>& blobs, const LatticeFit& lattice);
};

// Samples presence at every lattice position of the grid [rowMin, rowMin+rows) x [colMin, colMin+cols).
// parity: (row+col)&1 of the lattice positions. dark: polarity of the dots.
struct SampleContext {
  const GreyImage* img = nullptr;
  const GridMapper* mapper = nullptr;
  bool dark = true;
  int parity = 0;
  float pitch = 1;
  float darkLevel = 0, lightLevel = 255;  // medians measured on the lattice dots / off-lattice gaps
  // The pass's blobs (optional): a dark position without a lattice dot whose blob is much
  // smaller than the lattice's dots or off the position is a speck of stray ink, not a dot.
  const std::vector<Blob>* blobs = nullptr;
  const SpatialIndex* index = nullptr;
  float dotD = 0;  // median diameter of the lattice dots
};
// Solves the n x n system M x = v in place (Gaussian elimination, partial pivoting); false when singular.
// v2, when given, is a second right-hand side solved with the same elimination (as a second call on
// a copy of M would: the same operations, the same results).
bool solveLinear(double* M, double* v, int n, double* v2 = nullptr);

// Bilinear sample in "dark form" (dots are low values whatever the print polarity).
inline float bilinear(const GreyImage& img, float x, float y, uint8_t xorMask) {
  x -= 0.5f;
  y -= 0.5f;
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  if (x > img.width - 1) x = static_cast<float>(img.width - 1);
  if (y > img.height - 1) y = static_cast<float>(img.height - 1);
  int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  int x1 = std::min(x0 + 1, img.width - 1), y1 = std::min(y0 + 1, img.height - 1);
  float fx = x - x0, fy = y - y0;
  float a = img.at(x0, y0) ^ xorMask, b = img.at(x1, y0) ^ xorMask;
  float c = img.at(x0, y1) ^ xorMask, d = img.at(x1, y1) ^ xorMask;
  return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}

// The lowest, second highest and highest of four values: the values a sort of the four puts
// first and last two, without the sort (sampleGrid's ground, once per lattice position).
inline void lowestAndHighestTwo(const float nb[4], float& lowest, float& second, float& highest) {
  const float lo01 = std::min(nb[0], nb[1]), hi01 = std::max(nb[0], nb[1]);
  const float lo23 = std::min(nb[2], nb[3]), hi23 = std::max(nb[2], nb[3]);
  lowest = std::min(lo01, lo23);
  highest = std::max(hi01, hi23);
  // (the highest of the other three)
  second = std::max(std::min(hi01, hi23), std::max(lo01, lo23));
}

// std::lround for |x| < 2^31 (halves away from zero), inline: the library call cost more than the
// grid map it served (GridMapper::map, once per sampled position). x minus its truncation is
// exact in float arithmetic.
inline int roundHalfAway(float x) {
  const int i = static_cast<int>(x);
  const float f = x - static_cast<float>(i);
  return i + (f >= 0.5f ? 1 : 0) - (f <= -0.5f ? 1 : 0);
}

// The three lowest of a stream of grey values (v[0] <= v[1] <= v[2]; 256 until that many came):
// what a partial sort's first three would hold, without storing the values.
struct LowestThree {
  float v[3] = {256, 256, 256};
  int n = 0;
  void add(float x) {
    ++n;
    if (x >= v[2]) return;
    if (x >= v[1]) {
      v[2] = x;
    } else {
      v[2] = v[1];
      if (x >= v[0]) {
        v[1] = x;
      } else {
        v[1] = v[0];
        v[0] = x;
      }
    }
  }
};

// Mean over a small disc: the centre twice and four points around it.
inline float sampleDisc(const GreyImage& img, PointF p, float rad, uint8_t xorMask) {
  float s = 2 * bilinear(img, p.x, p.y, xorMask);
  s += bilinear(img, p.x - rad, p.y, xorMask) + bilinear(img, p.x + rad, p.y, xorMask);
  s += bilinear(img, p.x, p.y - rad, xorMask) + bilinear(img, p.x, p.y + rad, xorMask);
  return s / 6;
}

// A lower bound of every bilinear (and so sampleDisc) value whose sample points lie within
// [x0, x1] x [y0, y1]: the lowest dark-form pixel bilinear can read there, less a margin for the
// float rounding of its weights. Cheaper than the samples when a search only cares whether any of
// them is dark enough (extend_lattice.cpp).
float lowestUnder(const GreyImage& img, float x0, float y0, float x1, float y1, uint8_t xorMask);

// Where an extended lattice may end on each side (0: first row, 1: last row, 2: first column,
// 3: last column): the grown lattice's own edge, then each added line that an empty one followed
// (a stray dot beyond the quiet zone can carry the extension past the symbol's true end).
struct LineEnds {
  static constexpr int kMax = 3;
  int count[4] = {0, 0, 0, 0};
  int line[4][kMax];
};
// Follows a lattice that did not decode past where its blob growth stopped (extend_lattice.cpp):
// new dots are appended to `blobs` and to the fit. Returns the number of grid lines added.
int extendLattice(const GreyImage& img, bool dark, std::vector<Blob>& blobs, LatticeFit& fit, LineEnds* ends = nullptr);
// Refits a lattice wrapped round a small cylinder with the cylinder's own column spacing
// (fit_cylinder.cpp): relabels its dots and adds the compressed lines towards the silhouette
// (new dots appended to `blobs`). False, and the fit untouched, when the lattice is not wrapped.
bool fitCylinderLattice(const GreyImage& img, bool dark, std::vector<Blob>& blobs, LatticeFit& fit, CylinderWrap& wrap);
// The homography misfit (pitches, GridMapper::misfit) from which a lattice is worth that model: a
// cylinder's lattice that needs it misses by more (its edge columns), and most decoys by less.
// (0.16 before: blurred cylinders of 60-64 degrees whose local fits had absorbed most of the
// wrap missed by 0.08-0.16 and were never refitted; docs/detector.md "Cylinders refitted from a
// misfit of 0.08".)
constexpr float kMinCylinderMisfit = 0.08f;

// Lattice evidence (lattice_evidence.cpp): the mean presence over the lattice positions of the
// fit's own box, read from `grid` (sampled from grid position (gridRow0, gridCol0)). A DotCode
// inks about 5/9 of them (five dots in every 9-position codeword); readable symbols measured
// 0.48-0.60 on the 366 reference images (renders and real photos). The bounds leave a wide
// margin on both sides: a lattice outside them is not worth its hypotheses or its extension.
constexpr float kMinInkShare = 0.35f;
constexpr float kMaxInkShare = 0.80f;
float latticeInkShare(const DotGrid& grid, int gridRow0, int gridCol0, const LatticeFit& fit, int parity);
bool plausibleInkShare(float share);

// Cuts a lattice's box to the run of lines that look like DotCode lines (lattice_evidence.cpp): a
// symbol inks only the positions of its checkerboard parity, while the text beside it, a glare
// patch or the pack's texture that its growth ran into ink the positions between them too. Keeps
// the fit's dots inside the cut; false, the fit untouched, when no cut of at least 5 x 5 lines
// leaves lines out.
bool cutToCodeLines(const SampleContext& ctx, LatticeFit& fit);
// The share of the positions between a DotCode's dots (the other parity) that look inked in the
// rows x cols box from lattice position (rowMin, colMin), by cutToCodeLines' measure: about 0 on a
// symbol, far more on bars, text and textures that a lattice was fitted to.
float offParityInkShare(const SampleContext& ctx, int rowMin, int colMin, int rows, int cols);

// Joins `other` to `fit` where both are parts of one line of a symbol split by a gap (a glare
// band, a crease): the same grid up to a whole shift of other's coordinates (join_lattices.cpp).
// fit's dots index `blobs`, other's `otherBlobs` (the same pass's coordinates); in the joined
// lattices other's dots index otherBase + their index there (where the caller puts them among
// `blobs`). `out` receives the joined lattices of the likeliest shifts, nearest the estimate
// first, in fit's coordinates; false when the parts do not line up as one symbol's.
bool joinLattices(const std::vector<Blob>& otherBlobs, const LatticeFit& other, const std::vector<Blob>& blobs, const LatticeFit& fit,
                  int otherBase, std::vector<LatticeFit>& out);

void calibrateLevels(SampleContext& ctx, const std::vector<Blob>& blobs, const LatticeFit& lattice);
// `evidence`, when given, receives the values of the lattice's own box as the lattice dots' level
// alone gives them (dark dots also take it from the positions themselves), for latticeInkShare;
// its other positions are 0. For light dots it is left empty: the grid's own values are those.
DotGrid sampleGrid(const SampleContext& ctx, const LatticeFit& lattice, int rowMin, int rows, int colMin, int cols,
                   DotGrid* evidence = nullptr);
// Crease glints over a short wide symbol of light dots (sample_grid.cpp): straight bright lines
// across its short side, found on the off-lattice positions (always empty in a DotCode), whose
// on-lattice positions read as dots whatever was printed. `all` is the grid sampled from
// (rowMin, colMin); the dot-like positions within a step of each line become erasures (0.5).
// Returns how many positions were erased (0: no line found, `all` unchanged).
int eraseGlintLines(const SampleContext& ctx, const LatticeFit& lattice, bool alongCols, int rowMin, int colMin, DotGrid& all);

}  // namespace det
}  // namespace dc
