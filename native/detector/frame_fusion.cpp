// Video fusion, the driver: read the frame as any image (its own reads are answered at once),
// then continue the symbols' tracks with the lattices the frame showed, fuse, and decode the
// fused grid of every track this frame continued that it did not read alone.
#include "detector/frame_fusion.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "detector/frame_tracks.h"

namespace dc {

namespace {

using Clock = std::chrono::steady_clock;
using fusion::Homography;
using fusion::Match;
using fusion::Track;

// Tracks kept at once (decoy lattices of textures and text come and go; the symbol's own track is
// continued every frame, so it is never the least recently seen).
constexpr size_t kMaxTracks = 16;
// A lattice starts a track only with this many positions in its dot box (smaller ones are
// fragments that tell too little to be matched safely).
constexpr int kMinTrackPositions = 60;

// decodeDotGrid calls on fused grids per frame, at most (about 0.1-0.3 ms each at 1280x720 sizes).
constexpr int kFusedDecodesPerFrame = 8;
// A fused read is reported only when this frame saw at least this share of the symbol's positions.
constexpr float kMinFrameCoverage = 0.25f;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Overlap of two boxes as a share of the smaller one.
float boxOverlap(float ax0, float ay0, float ax1, float ay1, float bx0, float by0, float bx1, float by1) {
  const float w = std::min(ax1, bx1) - std::max(ax0, bx0), h = std::min(ay1, by1) - std::max(ay0, by0);
  if (w <= 0 || h <= 0) return 0;
  const float a = (ax1 - ax0) * (ay1 - ay0), b = (bx1 - bx0) * (by1 - by0);
  return w * h / std::max(1e-3f, std::min(a, b));
}

}  // namespace

struct FrameFusion::State {
  int maxFrames = 12;
  int frame = 0;
  int nextId = 1;
  std::vector<Track> tracks;
  std::vector<SampledLattice> sampled;
};

FrameFusion::FrameFusion(int maxFrames) : state_(new State) { state_->maxFrames = std::max(2, std::min(maxFrames, 120)); }
FrameFusion::~FrameFusion() = default;

void FrameFusion::reset() {
  state_->tracks.clear();
  state_->frame = 0;
}

namespace {

// Places a track's geometry as this lattice shows it: grid <-> image by the lattice's corners.
void placeTrack(Track& t, const SampledLattice& l, const fusion::Placement& p) {
  const int R = l.grid.rows - 1, C = l.grid.cols - 1;
  const int local[4][2] = {{0, 0}, {0, C}, {R, C}, {R, 0}};
  PointF grid[4];
  for (int k = 0; k < 4; ++k) {
    int tr, tc;
    p.apply(local[k][0], local[k][1], tr, tc);
    grid[k] = PointF{static_cast<float>(tc), static_cast<float>(tr)};
  }
  Homography to, from;
  if (to.fromPoints(grid, l.corners) && from.fromPoints(l.corners, grid)) {
    t.toImage = to;
    t.fromImage = from;
  }
  fusion::latticeBox(l, t.x0, t.y0, t.x1, t.y1);
  t.pitch = l.pitch;
}

}  // namespace

FramePush FrameFusion::push(const GreyImage& image, const ReadOptions& options) {
  State& s = *state_;
  FramePush out;
  const auto t0 = Clock::now();
  s.sampled.clear();
  ReadOptions o = options;
  o.sampled = &s.sampled;
  std::vector<ReadResult> reads = readDotCodes(image, o);
  out.detectMs = msSince(t0);
  const auto t1 = Clock::now();
  const int frame = ++s.frame;

  // Each lattice: its geometry, weights and the track it continues (at most one lattice per
  // track per frame: several passes can fit the same symbol).
  const size_t n = s.sampled.size();
  std::vector<Homography> toImage(n);
  std::vector<std::vector<float>> weights(n);
  std::vector<int> trackOf(n, -1);
  std::vector<Match> matches(n);
  std::vector<uint8_t> usable(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const SampledLattice& l = s.sampled[i];
    if (l.boxRows * l.boxCols < kMinTrackPositions && l.result < 0) continue;
    const int R = l.grid.rows - 1, C = l.grid.cols - 1;
    const PointF grid[4] = {{0, 0}, {static_cast<float>(C), 0}, {static_cast<float>(C), static_cast<float>(R)}, {0, static_cast<float>(R)}};
    if (!toImage[i].fromPoints(grid, l.corners)) continue;
    fusion::positionWeights(image, l, toImage[i], weights[i]);
    usable[i] = 1;
    const std::string* text = l.result >= 0 ? &reads[static_cast<size_t>(l.result)].symbol.bytes : nullptr;
    float bestScore = 0;
    for (size_t k = 0; k < s.tracks.size(); ++k) {
      const Track& t = s.tracks[k];
      if (text && t.hasText && t.text != *text) continue;  // another symbol read where this one was
      const Match m = fusion::matchTrack(t, l, weights[i], fusion::acrossFrames());
      const float score = m.agreement * static_cast<float>(m.overlap);
      if (m.ok && score > bestScore) {
        bestScore = score;
        trackOf[i] = static_cast<int>(k);
        matches[i] = m;
      }
    }
  }
  // One lattice per track: the one that read, else the best supported.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j || trackOf[i] < 0 || trackOf[i] != trackOf[j]) continue;
      const bool iBetter = (s.sampled[i].result >= 0) != (s.sampled[j].result >= 0)
          ? s.sampled[i].result >= 0
          : matches[i].agreement * matches[i].overlap >= matches[j].agreement * matches[j].overlap;
      (iBetter ? trackOf[j] : trackOf[i]) = -2;  // seen, but its track is continued by another
    }
  // Parts of a symbol the frame shows apart (a glare streak cuts its lattice in two): placed by
  // the geometry of this frame's lattice that continued the track.
  std::vector<uint8_t> anchor(n, 0);
  for (size_t i = 0; i < n; ++i) anchor[i] = trackOf[i] >= 0;
  for (size_t i = 0; i < n; ++i) {
    if (!anchor[i]) continue;
    Track& t = s.tracks[static_cast<size_t>(trackOf[i])];
    placeTrack(t, s.sampled[i], matches[i].placement);
    for (size_t j = 0; j < n; ++j) {
      if (!usable[j] || trackOf[j] != -1) continue;
      float x0, y0, x1, y1;
      fusion::latticeBox(s.sampled[j], x0, y0, x1, y1);
      bool duplicate = false;
      for (size_t k = 0; k < n; ++k) {
        if (trackOf[k] != trackOf[i]) continue;
        float a0, b0, a1, b1;
        fusion::latticeBox(s.sampled[k], a0, b0, a1, b1);
        if (boxOverlap(x0, y0, x1, y1, a0, b0, a1, b1) > 0.5f) duplicate = true;
      }
      if (duplicate) continue;
      const Match m = fusion::matchTrack(t, s.sampled[j], weights[j], fusion::withinFrame());
      if (!m.ok) continue;
      trackOf[j] = trackOf[i];
      matches[j] = m;
    }
  }
  // Lattices that continue no track start one, unless another lattice of this frame covers the same
  // place (the same symbol fitted by two passes).
  std::vector<size_t> taken;
  for (size_t i = 0; i < n; ++i)
    if (trackOf[i] >= 0) taken.push_back(i);
  // (a lattice that read goes first, then the larger ones)
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SampledLattice &la = s.sampled[a], &lb = s.sampled[b];
    if ((la.result >= 0) != (lb.result >= 0)) return la.result >= 0;
    return la.boxRows * la.boxCols > lb.boxRows * lb.boxCols;
  });
  for (size_t i : order) {
    if (!usable[i] || trackOf[i] != -1) continue;
    float x0, y0, x1, y1;
    fusion::latticeBox(s.sampled[i], x0, y0, x1, y1);
    bool covered = false;
    for (size_t j : taken) {
      float a0, b0, a1, b1;
      fusion::latticeBox(s.sampled[j], a0, b0, a1, b1);
      if (boxOverlap(x0, y0, x1, y1, a0, b0, a1, b1) > 0.5f) covered = true;
    }
    if (covered) continue;
    if (s.tracks.size() >= kMaxTracks) {
      // the least recently seen track that this frame does not continue makes room
      int oldest = -1;
      for (size_t k = 0; k < s.tracks.size(); ++k) {
        if (std::find(trackOf.begin(), trackOf.end(), static_cast<int>(k)) != trackOf.end()) continue;
        if (oldest < 0 || s.tracks[k].lastFrame < s.tracks[static_cast<size_t>(oldest)].lastFrame) oldest = static_cast<int>(k);
      }
      if (oldest < 0) continue;
      s.tracks.erase(s.tracks.begin() + oldest);
      for (int& k : trackOf)
        if (k > oldest) --k;
    }
    Track t;
    t.id = s.nextId++;
    t.dark = s.sampled[i].dark;
    t.parity = s.sampled[i].parity;
    s.tracks.push_back(std::move(t));
    trackOf[i] = static_cast<int>(s.tracks.size()) - 1;
    matches[i] = Match{true, fusion::Placement{}, 1.0f, 0};
    taken.push_back(i);
  }

  // Fuse: each frame weighs by its contrast against the best the track has seen (blur and defocus
  // lower it) and by how well it agreed.
  std::vector<int> idOf(n, 0);  // the continued track's id per lattice (0: none)
  for (size_t i = 0; i < n; ++i) {
    if (trackOf[i] < 0) continue;
    Track& t = s.tracks[static_cast<size_t>(trackOf[i])];
    const SampledLattice& l = s.sampled[i];
    t.bestContrast = std::max(t.bestContrast, l.contrast);
    const float contrast = t.bestContrast > 0 ? std::max(0.0f, l.contrast) / t.bestContrast : 1.0f;
    const float frameWeight = contrast * contrast * matches[i].agreement;
    fusion::addObservation(t, l, matches[i].placement, weights[i], frameWeight, frame);
    if (anchor[i] || t.pitch <= 0) placeTrack(t, l, matches[i].placement);
    t.lastFrame = frame;
    idOf[i] = t.id;
  }
  for (Track& t : s.tracks) fusion::forgetOld(t, frame, s.maxFrames);
  s.tracks.erase(std::remove_if(s.tracks.begin(), s.tracks.end(),
                                [&](const Track& t) { return t.lastFrame <= frame - s.maxFrames || t.observations.empty(); }),
                 s.tracks.end());
  auto trackById = [&](int id) -> Track* {
    for (Track& t : s.tracks)
      if (t.id == id) return &t;
    return nullptr;
  };

  // This frame's own reads, with their tracks.
  std::vector<int> readIds;
  for (size_t r = 0; r < reads.size(); ++r) {
    FrameRead fr;
    fr.read = reads[r];
    for (size_t i = 0; i < n; ++i)
      if (s.sampled[i].result == static_cast<int>(r) && idOf[i] > 0) fr.track = idOf[i];
    if (Track* t = trackById(fr.track)) {
      t->hasText = true;
      t->text = fr.read.symbol.bytes;
      readIds.push_back(t->id);
    }
    out.reads.push_back(std::move(fr));
  }
  // The fused grid of every other track this frame continued, those that read before first (the
  // symbol still in view), within a budget of decodes per frame (bounded cost; the rest of a
  // grid's hypotheses wait for the next frame).
  std::vector<int> toDecode;
  for (size_t i = 0; i < n; ++i) {
    const int id = idOf[i];
    if (id <= 0 || std::find(readIds.begin(), readIds.end(), id) != readIds.end()) continue;
    if (std::find(toDecode.begin(), toDecode.end(), id) == toDecode.end()) toDecode.push_back(id);
  }
  std::stable_sort(toDecode.begin(), toDecode.end(), [&](int a, int b) {
    const Track* ta = trackById(a);
    const Track* tb = trackById(b);
    return (ta && ta->hasText) > (tb && tb->hasText);
  });
  int decodes = kFusedDecodesPerFrame;
  for (const int id : toDecode) {
    Track* t = trackById(id);
    if (!t) continue;
    std::optional<fusion::FusedSymbol> fused;
    if (fusion::framesOf(*t) >= 2) fused = fusion::decodeTrack(*t, decodes);
    if (fused && t->hasText && fused->symbol.bytes != t->text) {
      // The fused grid reads as another symbol than the track did: its frames cannot all be of
      // one symbol. Nothing is reported and the track is dropped (never a mixed text).
      s.tracks.erase(s.tracks.begin() + (t - s.tracks.data()));
      continue;
    }
    // The frame itself must show a good part of the symbol: a report says it is in view now.
    if (fused && fusion::frameCoverage(*t, fused->extent, frame) < kMinFrameCoverage) fused.reset();
    if (!fused) {
      if (t->hasText) out.seen.push_back(t->text);
      continue;
    }
    FrameRead fr;
    fr.read.symbol = std::move(fused->symbol);
    fr.read.via = "dotcode:fused";
    std::copy(fused->corners, fused->corners + 4, fr.read.corners);
    fr.framesUsed = fusion::framesOf(*t);
    fr.track = id;
    t->hasText = true;
    t->text = fr.read.symbol.bytes;
    out.reads.push_back(std::move(fr));
  }
  out.fuseMs = msSince(t1);
  return out;
}

}  // namespace dc
