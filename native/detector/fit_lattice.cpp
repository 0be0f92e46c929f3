// Stage 3: fit the checkerboard lattice. DotCode dots sit where row+col is even, so the shortest
// vectors between dots are the two diagonals (length sqrt(2) modules); rows and columns are their
// sum and difference. We estimate the two diagonal vectors for the whole cluster from the
// directions and lengths of nearest-neighbour vectors, then grow the lattice from a seed dot:
// each accepted dot predicts its neighbours with a basis refitted on the dots around it, so
// perspective and mild curvature (which bend the basis slowly across the symbol) are followed.
#include <algorithm>
#include <cmath>

#include "detector/debug_log.h"
#include "detector/detector_internal.h"
#include "detector/grid_map.h"

namespace dc {
namespace det {

namespace {

constexpr float kPi = 3.14159265f;

// A basis whose third shortest vector (a + b or a - b) is at most this much longer than its
// longer vector may hold a double row or column step in place of a diagonal (otherDiagonals).
// Seen square on, the double steps are sqrt(2) = 1.41 times a diagonal; the ratio falls to 1.15
// at a 45 degree tilt and to 1 at about 55 degrees.
constexpr float kSteepViewRatio = 1.2f;
// How much better than the first indexing another must fill its box to be tried.
constexpr float kSteepViewFillGain = 1.1f;

// The fit's row and column extent from its dots.
void setExtent(LatticeFit& fit) {
  fit.rowMin = fit.colMin = 1 << 30;
  fit.rowMax = fit.colMax = -(1 << 30);
  for (const LatticeDot& d : fit.dots) {
    fit.rowMin = std::min(fit.rowMin, d.row);
    fit.rowMax = std::max(fit.rowMax, d.row);
    fit.colMin = std::min(fit.colMin, d.col);
    fit.colMax = std::max(fit.colMax, d.col);
  }
}

// The share of its box's lattice positions the fit's dots fill.
float fillOf(const LatticeFit& fit) {
  return static_cast<float>(fit.dots.size()) / (0.5f * (fit.rowMax - fit.rowMin + 1) * (fit.colMax - fit.colMin + 1));
}

// A DotCode fills its lattice positions roughly half; a regular dotted texture fills them all,
// and a scatter of unrelated blobs hardly at all.
bool plausibleExtent(const LatticeFit& fit) {
  const int H = fit.rowMax - fit.rowMin + 1, W = fit.colMax - fit.colMin + 1;
  if (H < 4 || W < 4 || H > 202 || W > 202) return false;
  const float fill = fillOf(fit);
  return fill >= 0.18f && fill <= 0.93f;
}

struct Vec {
  float x, y;
};

struct Basis {
  float ax, ay, bx, by;
  float det() const { return ax * by - ay * bx; }
  float la() const { return std::sqrt(ax * ax + ay * ay); }
  float lb() const { return std::sqrt(bx * bx + by * by); }
  // lattice coordinates of v in this basis
  bool solve(float vx, float vy, float& u, float& w) const {
    float d = det();
    if (std::fabs(d) < 1e-6f) return false;
    u = (vx * by - vy * bx) / d;
    w = (ax * vy - ay * vx) / d;
    return true;
  }
};

// Least-squares refit of the basis from vectors with known integer coordinates (n1, n2).
bool refitBasis(const std::vector<Vec>& vs, const std::vector<std::pair<int, int>>& ns, Basis& b) {
  double s11 = 0, s12 = 0, s22 = 0, x1 = 0, x2 = 0, y1 = 0, y2 = 0;
  for (size_t k = 0; k < vs.size(); ++k) {
    double n1 = ns[k].first, n2 = ns[k].second;
    s11 += n1 * n1;
    s12 += n1 * n2;
    s22 += n2 * n2;
    x1 += n1 * vs[k].x;
    x2 += n2 * vs[k].x;
    y1 += n1 * vs[k].y;
    y2 += n2 * vs[k].y;
  }
  double det = s11 * s22 - s12 * s12;
  if (det < 1e-6 * (s11 + s22) * (s11 + s22) || det <= 0) return false;
  b.ax = static_cast<float>((s22 * x1 - s12 * x2) / det);
  b.bx = static_cast<float>((s11 * x2 - s12 * x1) / det);
  b.ay = static_cast<float>((s22 * y1 - s12 * y2) / det);
  b.by = static_cast<float>((s11 * y2 - s12 * y1) / det);
  return true;
}

// Lagrange-Gauss reduction: the two shortest vectors spanning the same lattice.
void reduce(Basis& b) {
  for (int it = 0; it < 16; ++it) {
    float aa = b.ax * b.ax + b.ay * b.ay, bb = b.bx * b.bx + b.by * b.by;
    if (bb < aa) {
      std::swap(b.ax, b.bx);
      std::swap(b.ay, b.by);
      std::swap(aa, bb);
    }
    float mu = std::round((b.ax * b.bx + b.ay * b.by) / aa);
    if (mu == 0) break;
    b.bx -= mu * b.ax;
    b.by -= mu * b.ay;
  }
}

// The vectors to the (up to four) nearest like-sized neighbours of the cluster's dots, folded to a
// half plane; only the symmetric ones (see below) when there are enough of them. About 150 dots,
// spread over the cluster, are enough: their 600 vectors fix the directions as well as all of a
// large cluster's would (400 before: the same lattices on every reference image and render), and
// the large clusters are mostly the dotted textures of empty frames.
bool neighbourVectors(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<int>& cluster,
                      float dmed, std::vector<Vec>& vs) {
  std::vector<Vec> sym;
  vs.clear();
  const int n = static_cast<int>(cluster.size());
  const int step = std::max(1, n / 150);
  const float r = 3.2f * std::max(dmed, 1.5f) + 1.0f;
  struct Nb {
    float d2;
    Vec v;
  };
  // Only the four nearest are used: kept sorted as they are found (most dots have a dozen or more
  // within reach, and sorting them all was a large share of the basis estimate).
  Nb nbs[4];
  int found = 0;
  for (int k = 0; k < n; k += step) {
    const Blob& a = blobs[cluster[k]];
    found = 0;
    index.forEachNear(a.x, a.y, r, [&](int j) {
      const Blob& b = blobs[j];
      float dx = b.x - a.x, dy = b.y - a.y, d2 = dx * dx + dy * dy;
      if (d2 < 0.25f) return;
      if (b.d > 2.5f * std::max(a.d, 1.0f) || a.d > 2.5f * std::max(b.d, 1.0f)) return;
      if (found == 4 && d2 >= nbs[3].d2) return;
      int at = found < 4 ? found++ : 3;
      while (at > 0 && nbs[at - 1].d2 > d2) {
        nbs[at] = nbs[at - 1];
        --at;
      }
      nbs[at] = {d2, {dx, dy}};
    });
    for (int t = 0; t < found; ++t) {
      Vec v = nbs[t].v;
      // A neighbour vector matched by one the other way (a dot at a - v too) is a lattice
      // vector far more often than not; text, specks and noise beside the symbol rarely line
      // up so. Those vectors alone set the directions when there are enough of them.
      const float tol = 0.2f * std::sqrt(nbs[t].d2) + 0.7f;
      const bool symmetric = index.nearest(a.x - v.x, a.y - v.y, tol, blobs) >= 0;
      if (v.x < 0 || (v.x == 0 && v.y < 0)) v = {-v.x, -v.y};  // fold to a half plane
      vs.push_back(v);
      if (symmetric) sym.push_back(v);
    }
  }
  if (sym.size() >= 24) vs.swap(sym);
  return vs.size() >= 12;
}

constexpr int kBins = 90;  // direction histogram bins over 180 degrees

int directionBin(const Vec& v) {
  const float ang = std::atan2(v.y, v.x);  // (-90, 90]
  int bin = static_cast<int>(std::floor((ang + kPi / 2) / kPi * kBins)) % kBins;
  return bin < 0 ? bin + kBins : bin;
}

// The direction histogram (mod 180 degrees) of the vectors (bins: directionBin of each), weighted
// towards short ones (the diagonals) and smoothed; its local maxima, strongest first (at most 4).
int directionPeaks(const std::vector<Vec>& vs, const std::vector<int>& bins, int peaks[4]) {
  float hist[kBins] = {0};
  for (size_t k = 0; k < vs.size(); ++k) hist[bins[k]] += 1.0f / (vs[k].x * vs[k].x + vs[k].y * vs[k].y);
  float smooth[kBins];
  for (int i = 0; i < kBins; ++i)
    smooth[i] = hist[(i + kBins - 1) % kBins] + 2 * hist[i] + hist[(i + 1) % kBins];
  int nPeaks = 0;
  {
    std::vector<std::pair<float, int>> maxima;
    for (int i = 0; i < kBins; ++i)
      if (smooth[i] > 0 && smooth[i] >= smooth[(i + kBins - 1) % kBins] && smooth[i] > smooth[(i + 1) % kBins])
        maxima.push_back({smooth[i], i});
    std::sort(maxima.begin(), maxima.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& m : maxima)
      if (nPeaks < 4) peaks[nPeaks++] = m.second;
  }
  return nPeaks;
}

// The mean direction and the typical shortest length of the vectors near a histogram bin (bins:
// directionBin of each vector, computed once for the histogram and every pair of peaks tried).
bool peakVector(const std::vector<Vec>& vs, const std::vector<int>& bins, int bin, Vec& res) {
  float cx = 0, cy = 0;
  std::vector<float> lens;
  // the bin's direction, to align the vectors with (bins wrap at +-90 degrees)
  const float bang = (bin + 0.5f) / kBins * kPi - kPi / 2;
  const float cosBin = std::cos(bang), sinBin = std::sin(bang);
  for (size_t k = 0; k < vs.size(); ++k) {
    int dist = std::abs(bins[k] - bin);
    dist = std::min(dist, kBins - dist);
    if (dist > 2) continue;
    Vec u = vs[k];
    if (u.x * cosBin + u.y * sinBin < 0) u = {-u.x, -u.y};
    float l = std::sqrt(u.x * u.x + u.y * u.y);
    lens.push_back(l);
    cx += u.x / l;
    cy += u.y / l;
  }
  if (lens.size() < 3) return false;
  std::sort(lens.begin(), lens.end());
  float l10 = lens[lens.size() / 10];
  std::vector<float> shortOnes;
  for (float l : lens)
    if (l < 1.35f * l10) shortOnes.push_back(l);
  float L = shortOnes[shortOnes.size() / 2];
  float cl = std::sqrt(cx * cx + cy * cy);
  if (cl <= 0) return false;
  res = {cx / cl * L, cy / cl * L};
  return true;
}

// Refines a basis on all vectors by least squares (three rounds); switches to the half-diagonals
// when many vectors sit at (1/2, 1/2) (the peaks were then the row and column directions). False
// when the vectors do not form a lattice or the basis is no plausible view of one.
bool refineBasis(const std::vector<Vec>& vs, Basis b, Basis& out) {
  for (int iter = 0; iter < 3; ++iter) {
    std::vector<Vec> good;
    std::vector<std::pair<int, int>> ns;
    int half = 0;
    for (const Vec& v : vs) {
      float u, w;
      if (!b.solve(v.x, v.y, u, w)) return false;
      float fu = u - std::round(u), fw = w - std::round(w);
      if (std::fabs(fu) < 0.2f && std::fabs(fw) < 0.2f) {
        int n1 = static_cast<int>(std::round(u)), n2 = static_cast<int>(std::round(w));
        if (n1 == 0 && n2 == 0) continue;
        good.push_back(v);
        ns.push_back({n1, n2});
      } else if (std::fabs(std::fabs(fu) - 0.5f) < 0.2f && std::fabs(std::fabs(fw) - 0.5f) < 0.2f) {
        ++half;
      }
    }
    if (half * 4 > static_cast<int>(vs.size())) {
      b = Basis{(b.ax + b.bx) / 2, (b.ay + b.by) / 2, (b.ax - b.bx) / 2, (b.ay - b.by) / 2};
      continue;
    }
    DBG("  basis iter %d: a (%.2f,%.2f) b (%.2f,%.2f) good %zu of %zu half %d\n", iter, b.ax, b.ay, b.bx, b.by, good.size(), vs.size(), half);
    if (good.size() * 20 < vs.size() * 7) return false;  // the vectors do not form a lattice (35%)
    if (!refitBasis(good, ns, b)) return false;
    reduce(b);
  }
  float la = b.la(), lb = b.lb();
  if (la < 1.2f || lb < 1.2f) return false;
  if (la > 2.2f * lb || lb > 2.2f * la) return false;
  float sinAng = std::fabs(b.det()) / (la * lb);
  if (sinAng < 0.5f) return false;  // more than 60 degrees of shear: not a plausible view
  out = b;
  return true;
}

// Estimates the diagonal basis from the neighbour vectors of the cluster.
bool estimateBasis(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<int>& cluster,
                   float dmed, Basis& out) {
  std::vector<Vec> vs;
  if (!neighbourVectors(blobs, index, cluster, dmed, vs)) return false;
  std::vector<int> bins(vs.size());
  for (size_t k = 0; k < vs.size(); ++k) bins[k] = directionBin(vs[k]);
  int peaks[4];
  const int nPeaks = directionPeaks(vs, bins, peaks);
  if (nPeaks < 2) return false;
  // The two strongest directions at least 24 degrees apart are the diagonals almost always;
  // when they do not make a lattice (a resampled or rotated print of small dots gives some
  // neighbour vectors of the wrong length), the next pairs of peaks are tried.
  int tried = 0;
  for (int i = 0; i < nPeaks; ++i)
    for (int j = i + 1; j < nPeaks; ++j) {
      int dist = std::abs(peaks[i] - peaks[j]);
      dist = std::min(dist, kBins - dist);
      if (dist < 12) continue;  // at least 24 degrees apart
      if (++tried > 3) return false;
      Vec va, vb;
      if (peakVector(vs, bins, peaks[i], va) && peakVector(vs, bins, peaks[j], vb) && refineBasis(vs, Basis{va.x, va.y, vb.x, vb.y}, out)) return true;
    }
  return false;
}

// Above this share of dots with all four diagonal neighbours, a cluster is a texture.
constexpr float kMaxFullFraction = 0.5f;

// The longest step of a lattice's first growth, in diagonals (regrowLattice takes shorter ones).
constexpr int kLongestStep = 3;

struct Grown {
  int blob;
  int i, j;
  Basis basis;
};

// The cluster's typical dot: its size (the area-weighted median diameter: specks of noise that
// chained into the cluster are many but small, the dots few but large), the members of that size
// (`core`), the contrast a grown dot must reach, and the cluster's centroid.
struct DotStats {
  float dmed = 0, dLo = 0, dHi = 0, depthMin = 0, cx = 0, cy = 0;
  std::vector<int> core;
};
bool dotStats(const std::vector<Blob>& blobs, const std::vector<int>& cluster, float minDepthShare, DotStats& st) {
  std::vector<std::pair<float, float>> ds;  // (d, area)
  std::vector<float> deps;
  ds.reserve(cluster.size());
  deps.reserve(cluster.size());
  float cx = 0, cy = 0, areaSum = 0;
  for (int k : cluster) {
    ds.push_back({blobs[k].d, static_cast<float>(blobs[k].area)});
    areaSum += blobs[k].area;
    cx += blobs[k].x;
    cy += blobs[k].y;
  }
  std::sort(ds.begin(), ds.end());
  float dmed = ds.back().first, acc = 0;
  for (const auto& q : ds) {
    acc += q.second;
    if (acc >= 0.5f * areaSum) {
      dmed = q.first;
      break;
    }
  }
  cx /= cluster.size();
  cy /= cluster.size();
  const float dLo = 0.5f * dmed - 0.5f, dHi = 1.8f * dmed + 1.0f;  // dots of one symbol are alike
  std::vector<int>& core = st.core;                                // the members of the typical size
  core.reserve(cluster.size());
  for (int k : cluster)
    if (blobs[k].d >= dLo && blobs[k].d <= dHi) {
      core.push_back(k);
      deps.push_back(static_cast<float>(blobs[k].depth));
    }
  if (core.size() < 12) return false;
  std::nth_element(deps.begin(), deps.begin() + deps.size() / 2, deps.end());
  // printed dots of one symbol have alike contrast; faint fragments (label edges, texture) do not
  const float depthMin = minDepthShare * deps[deps.size() / 2];
  st.dmed = dmed, st.dLo = dLo, st.dHi = dHi, st.depthMin = depthMin, st.cx = cx, st.cy = cy;
  return true;
}

// Share of the core dots (about 150 sampled) with all four diagonal neighbours present under the basis.
float fullNeighbourShare(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<int>& core,
                         const Basis& global) {
  const float tol = 0.3f * std::min(global.la(), global.lb());
  const int n = static_cast<int>(core.size());
  const int step = std::max(1, n / 150);
  int tested = 0, full = 0;
  for (int k = 0; k < n; k += step) {
    const Blob& a = blobs[core[k]];
    int present = 0;
    for (int s = 0; s < 4; ++s) {
      const float sx = (s & 1 ? -1.0f : 1.0f), ax = s < 2 ? global.ax : global.bx, ay = s < 2 ? global.ay : global.by;
      if (index.nearest(a.x + sx * ax, a.y + sx * ay, tol, blobs) >= 0) ++present;
    }
    ++tested;
    if (present == 4) ++full;
  }
  return tested ? static_cast<float>(full) / tested : 0;
}

// Grows the lattice from the seed: each accepted dot predicts its neighbours with a basis refitted
// on the dots already accepted around it. `at` maps lattice coordinates to indices into `grown`.
// Returns how many dots it reached by a step of three diagonals (at most maxReach diagonals a step).
int growLattice(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<uint8_t>& used,
                const GrowthStart& start, int maxReach, std::vector<Grown>& grown, GridMap<int>& at) {
  const float dLo = start.dLo, dHi = start.dHi, depthMin = start.depthMin;
  const int seed = start.seed;
  const Basis global{start.ax, start.ay, start.bx, start.by};
  // Steps to try from an accepted dot, nearest first: up to kLongestStep diagonal steps each way,
  // so a prediction can jump the empty stretches inside a symbol (padding regions leave whole
  // empty columns) while the quiet zone (3 modules) is mostly out of reach.
  static const std::vector<std::pair<int, int>> kSteps = [] {
    std::vector<std::pair<int, int>> s;
    for (int di = -kLongestStep; di <= kLongestStep; ++di)
      for (int dj = -kLongestStep; dj <= kLongestStep; ++dj)
        if (di || dj) s.push_back({di, dj});
    // sort by length in the (square) diagonal basis
    std::stable_sort(s.begin(), s.end(), [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
      return a.first * a.first + a.second * a.second < b.first * b.first + b.second * b.second;
    });
    return s;
  }();
  at.reset(start.dots + 16);
  grown.reserve(start.dots + 16);
  std::vector<uint8_t> taken(blobs.size(), 0);
  grown.push_back({seed, 0, 0, global});
  at.set(0, 0, 0);
  taken[seed] = 1;
  const int kMaxDots = 12000;
  std::vector<Vec> vs;
  std::vector<std::pair<int, int>> ns;
  int farGrown = 0;
  for (size_t q = 0; q < grown.size() && static_cast<int>(grown.size()) < kMaxDots; ++q) {
    Grown g = grown[q];
    const Blob& gb = blobs[g.blob];
    // Refit the local basis on the dots already accepted around this one.
    vs.clear();
    ns.clear();
    for (const auto& s : kSteps) {
      if (std::abs(s.first) > 2 || std::abs(s.second) > 2) break;  // the local fit uses the near ring
      const int* near = at.find(g.i + s.first, g.j + s.second);
      if (!near) continue;
      const Blob& nb = blobs[grown[*near].blob];
      vs.push_back({nb.x - gb.x, nb.y - gb.y});
      ns.push_back({s.first, s.second});
    }
    if (vs.size() >= 4) {
      Basis local = g.basis;
      if (refitBasis(vs, ns, local)) {
        // accept only a moderate change, a wrong neighbour must not derail the growth
        float la = local.la(), lb = local.lb(), ga = g.basis.la(), gb2 = g.basis.lb();
        if (la > 0.7f * ga && la < 1.4f * ga && lb > 0.7f * gb2 && lb < 1.4f * gb2) g.basis = local;
      }
    }
    grown[q].basis = g.basis;
    const float tolBase = 0.3f * std::min(g.basis.la(), g.basis.lb());
    for (const auto& s : kSteps) {
      const int stepReach = std::max(std::abs(s.first), std::abs(s.second));
      if (stepReach > maxReach) continue;
      const int ni = g.i + s.first, nj = g.j + s.second;
      if (at.contains(ni, nj)) continue;
      if (std::abs(ni) > 400 || std::abs(nj) > 400) continue;
      const float px = gb.x + s.first * g.basis.ax + s.second * g.basis.bx;
      const float py = gb.y + s.first * g.basis.ay + s.second * g.basis.by;
      const int reach = std::abs(s.first) + std::abs(s.second);
      const float tol = reach <= 1 ? tolBase : reach <= 3 ? tolBase * 1.15f
                                                          : tolBase * 1.3f;
      int best = -1;
      float bestD2 = tol * tol;
      index.forEachNear(px, py, tol, [&](int k) {
        if (used[k] || taken[k]) return;
        const Blob& kb = blobs[k];
        if (kb.d > dHi || kb.d < dLo || kb.depth < depthMin) return;
        float dx = kb.x - px, dy = kb.y - py, d2 = dx * dx + dy * dy;
        if (d2 < bestD2) {
          bestD2 = d2;
          best = k;
        }
      });
      if (best < 0) continue;
      at.set(ni, nj, static_cast<int>(grown.size()));
      taken[best] = 1;
      grown.push_back({best, ni, nj, g.basis});
      if (stepReach >= kLongestStep) ++farGrown;
    }
  }
  return farGrown;
}

// An unused core member near the cluster's centroid (the growth's start).
int seedNearCentroid(const std::vector<Blob>& blobs, const std::vector<uint8_t>& used, const DotStats& st) {
  int seed = -1;
  float bestD = 1e30f;
  for (int k : st.core) {
    if (used[k]) continue;
    float dx = blobs[k].x - st.cx, dy = blobs[k].y - st.cy, d2 = dx * dx + dy * dy;
    if (d2 < bestD) {
      bestD = d2;
      seed = k;
    }
  }
  return seed;
}

// Share of the grown dots whose four diagonal neighbours were all grown too.
float fullGrownShare(const std::vector<Grown>& grown, const GridMap<int>& at) {
  int full = 0;
  for (const Grown& g : grown)
    if (at.contains(g.i + 1, g.j) && at.contains(g.i - 1, g.j) && at.contains(g.i, g.j + 1) && at.contains(g.i, g.j - 1))
      ++full;
  return static_cast<float>(full) / grown.size();
}

// Grid coordinates: the diagonal steps a and b are (+1,+1) and (+1,-1) in (row, col). Sets the
// fit's dots, extent and mean pitch.
void toGridCoordinates(const std::vector<Grown>& grown, LatticeFit& fit) {
  fit.dots.reserve(grown.size());
  double pitchSum = 0;
  for (const Grown& g : grown) {
    fit.dots.push_back(LatticeDot{g.blob, g.i + g.j, g.i - g.j});
    pitchSum += (g.basis.la() + g.basis.lb()) / (2 * std::sqrt(2.0));
  }
  setExtent(fit);
  fit.pitch = static_cast<float>(pitchSum / grown.size());
}

// The lattice grown from fit.start, tested (a texture, its extent and fill) and its dots marked used.
bool growFit(const std::vector<Blob>& blobs, const SpatialIndex& index, std::vector<uint8_t>& used, int maxReach, LatticeFit& fit) {
  std::vector<Grown> grown;
  GridMap<int> at;  // lattice coordinate -> index in grown
  fit.farGrown = growLattice(blobs, index, used, fit.start, maxReach, grown, at);
  if (grown.size() < 15) return false;
  // The texture test again on the grown lattice (exact neighbours this time): a texture whose
  // nearest-neighbour vectors fooled the estimate above (gaps between packed dots, a basis at
  // half scale) still fills its lattice.
  const float grownFull = fullGrownShare(grown, at);
  fit.fullFraction = std::max(fit.fullFraction, grownFull);
  if (grownFull > kMaxFullFraction) {
    fit.basisFound = false;
    fit.texture = true;
    return false;
  }
  toGridCoordinates(grown, fit);
  for (const Grown& g : grown) used[g.blob] = 1;
  return plausibleExtent(fit);
}

}  // namespace

bool fitLattice(const std::vector<Blob>& blobs, const SpatialIndex& index, const std::vector<int>& cluster,
                std::vector<uint8_t>& used, LatticeFit& fit, float minDepthShare) {
  fit = LatticeFit{};
  if (cluster.size() < 12) return false;
  DotStats st;
  if (!dotStats(blobs, cluster, minDepthShare, st)) return false;
  Basis global;
  if (!estimateBasis(blobs, index, st.core, st.dmed, global)) return false;
  // A regular dotted texture (a halftone, a perforation pattern, a dot screen) fills every
  // checkerboard position; a DotCode fills about half of them (each codeword is 5 dots of 9,
  // and the mask avoids solid areas), so a dot whose four diagonal neighbours are all present
  // is the exception in a symbol and the rule in a texture. Rejecting such clusters here spares
  // the growth, sampling and decoding that a frame full of texture would otherwise pay, and they
  // do not count as lattice evidence for the harder passes.
  fit.fullFraction = fullNeighbourShare(blobs, index, st.core, global);
  if (fit.fullFraction > kMaxFullFraction) {
    fit.texture = true;
    return false;
  }
  fit.basisFound = true;

  const int seed = seedNearCentroid(blobs, used, st);
  if (seed < 0) return false;
  fit.start = GrowthStart{seed, global.ax, global.ay, global.bx, global.by, st.dLo, st.dHi, st.depthMin, st.core.size()};
  return growFit(blobs, index, used, kLongestStep, fit);
}

bool regrowLattice(const std::vector<Blob>& blobs, const SpatialIndex& index, const LatticeFit& first,
                   std::vector<uint8_t>& used, int maxReach, LatticeFit& fit) {
  fit = LatticeFit{};
  if (first.start.seed < 0 || used[first.start.seed]) return false;
  fit.basisFound = true;
  fit.fullFraction = first.fullFraction;
  fit.start = first.start;
  return growFit(blobs, index, used, maxReach, fit);
}

}  // namespace det
}  // namespace dc

namespace dc {
namespace det {

namespace {

// The contiguous run [lo, hi] of counts (index 0 = first row or column) whose sum of
// (count - threshold) is largest (maximum subarray).
void densestBand(const std::vector<int>& counts, float threshold, int& lo, int& hi) {
  float best = -1e30f, cur = 0;
  int start = 0;
  lo = 0;
  hi = static_cast<int>(counts.size()) - 1;
  for (int i = 0; i < static_cast<int>(counts.size()); ++i) {
    if (cur <= 0) {
      cur = 0;
      start = i;
    }
    cur += counts[i] - threshold;
    if (cur > best) {
      best = cur;
      lo = start;
      hi = i;
    }
  }
}

float topHalfMean(std::vector<int> counts) {
  std::sort(counts.begin(), counts.end(), std::greater<int>());
  const size_t n = std::max<size_t>(1, counts.size() / 2);
  float s = 0;
  for (size_t i = 0; i < n && i < counts.size(); ++i) s += counts[i];
  return s / n;
}

}  // namespace

bool trimToDenseBand(LatticeFit& fit) {
  if (fit.dots.empty()) return false;
  for (int pass = 0; pass < 4; ++pass) {
    const bool rows = (pass & 1) == 0;
    const int base = rows ? fit.rowMin : fit.colMin, n = (rows ? fit.rowMax - fit.rowMin : fit.colMax - fit.colMin) + 1;
    std::vector<int> counts(n, 0);
    for (const LatticeDot& d : fit.dots) ++counts[(rows ? d.row : d.col) - base];
    int lo, hi;
    densestBand(counts, 0.5f * topHalfMean(counts), lo, hi);
    if (lo == 0 && hi == n - 1) continue;
    std::vector<LatticeDot> kept;
    for (const LatticeDot& d : fit.dots) {
      const int k = (rows ? d.row : d.col) - base;
      if (k >= lo && k <= hi) kept.push_back(d);
    }
    fit.dots.swap(kept);
    if (fit.dots.size() < 15) return false;
    setExtent(fit);
  }
  const int H = fit.rowMax - fit.rowMin + 1, W = fit.colMax - fit.colMin + 1;
  const float fill = fillOf(fit);
  return H >= 4 && W >= 4 && fill >= 0.18f && fill <= 0.93f;
}

int otherDiagonals(const LatticeFit& fit, bool trim, LatticeFit others[2]) {
  if (fit.dots.size() < 15) return 0;
  const GrowthStart& g = fit.start;
  const float la = std::hypot(g.ax, g.ay), lb = std::hypot(g.bx, g.by);
  const float lSum = std::hypot(g.ax + g.bx, g.ay + g.by), lDiff = std::hypot(g.ax - g.bx, g.ay - g.by);
  // c = a + s b, the third shortest lattice vector
  const int s = lSum < lDiff ? 1 : -1;
  const float lc = std::min(lSum, lDiff);
  if (lc > kSteepViewRatio * std::max(la, lb)) return 0;
  const float cx = g.ax + s * g.bx, cy = g.ay + s * g.by;
  // A symbol's dots fill a rectangle of its own rows and columns; indexed askew, they fill a
  // parallelogram in a box about twice its size. (So do a decoy's: only an indexing that fills
  // its box better than the first is kept, each judged on what the trim keeps of it.)
  float firstFill = fillOf(fit);
  if (trim) {
    LatticeFit trimmed = fit;
    if (trimToDenseBand(trimmed)) firstFill = fillOf(trimmed);
  }
  float fills[2] = {0, 0};
  int n = 0;
  for (int k = 0; k < 2; ++k) {
    LatticeFit& alt = others[n];
    alt = fit;
    // A dot i a + j b is (i - s j) a + (s j) c, and i c + (j - s i) b.
    for (LatticeDot& d : alt.dots) {
      const int i = (d.row + d.col) / 2, j = (d.row - d.col) / 2;
      const int i2 = k == 0 ? i - s * j : i, j2 = k == 0 ? s * j : j - s * i;
      d.row = i2 + j2;
      d.col = i2 - j2;
    }
    setExtent(alt);
    // (the fit's own checks, or the peaks' trim, which makes them on what it keeps)
    if (!(trim ? trimToDenseBand(alt) : plausibleExtent(alt))) continue;
    fills[n] = fillOf(alt);
    if (fills[n] < kSteepViewFillGain * firstFill) continue;
    const float l1 = k == 0 ? la : lc, l2 = k == 0 ? lc : lb;
    alt.pitch = fit.pitch * (l1 + l2) / (la + lb);
    if (k == 0) {
      alt.start.bx = cx;
      alt.start.by = cy;
    } else {
      alt.start.ax = cx;
      alt.start.ay = cy;
    }
    alt.farGrown = 0;  // (not grown again: its dots are the first growth's)
    ++n;
  }
  if (n == 2 && fills[1] > fills[0]) std::swap(others[0], others[1]);
  return n;
}

}  // namespace det
}  // namespace dc
