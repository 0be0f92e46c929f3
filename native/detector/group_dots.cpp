// Stage 2: group dots into symbol candidates. Two dots are linked when they are close compared
// with their size and of similar size; linked components are the candidates. The link radius
// covers the largest gap inside a symbol (two empty lattice positions between dots) but not the
// 3-module quiet zone, so neighbouring text and other symbols stay apart most of the time; the
// lattice fit (stage 3) rejects whatever does not sit on the lattice anyway.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "detector/detector_internal.h"

namespace dc {
namespace det {

void groupDots(const std::vector<Blob>& blobs, const SpatialIndex& index, int minSize,
               std::vector<std::vector<int>>& clusters) {
  clusters.clear();
  const int n = static_cast<int>(blobs.size());
  std::vector<int32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  // Each pair is judged from its bigger blob's side: that blob's radius is the one that counts.
  for (int i = 0; i < n; ++i) {
    const Blob& a = blobs[i];
    const float da = std::max(a.d, 1.5f);
    const float r = 3.2f * da + 1.0f;
    index.forEachNear(a.x, a.y, r, [&](int j) {
      if (j == i) return;
      const float db = std::max(blobs[j].d, 1.5f);
      if (db > da || da > db * 2.5f) return;  // similar sizes only
      int ra = unionRoot(parent, i), rb = unionRoot(parent, j);
      if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
    });
  }
  std::vector<int> count(n, 0);
  for (int i = 0; i < n; ++i) ++count[unionRoot(parent, i)];
  std::vector<int> slot(n, -1);
  for (int i = 0; i < n; ++i) {
    int r = unionRoot(parent, i);
    if (count[r] < minSize) continue;
    if (slot[r] < 0) {
      slot[r] = static_cast<int>(clusters.size());
      clusters.emplace_back();
      clusters.back().reserve(count[r]);
    }
    clusters[slot[r]].push_back(i);
  }
  // stable: clusters of equal size keep the order of their first dots, whatever the standard
  // library (std::sort leaves ties in an order of its own, and libc++ in the WebAssembly build
  // chose another than libstdc++: the two readers then tried equal clusters in different orders)
  std::stable_sort(clusters.begin(), clusters.end(),
                   [](const std::vector<int>& a, const std::vector<int>& b) { return a.size() > b.size(); });
}

void groupSeeds(const std::vector<Blob>& peaks, const std::vector<uint8_t>& seed, int width, int height, float cell,
                int minSize, std::vector<std::vector<int>>& clusters) {
  std::vector<Blob> seeds;
  std::vector<int> seedOf;
  for (size_t k = 0; k < peaks.size(); ++k)
    if (seed[k]) {
      seeds.push_back(peaks[k]);
      seedOf.push_back(static_cast<int>(k));
    }
  // A peak's size says little (blur and the smoothing set it); the seeds' spacing sets the link
  // radius instead: groupDots links within about 3.2 diameters, so a "diameter" of 0.7 nearest
  // neighbour distances links across one empty lattice position.
  SpatialIndex index;
  index.build(seeds, width, height, cell);
  std::vector<float> nn;
  for (const Blob& b : seeds) {
    float best = 1e9f;
    index.forEachNear(b.x, b.y, 24.0f, [&](int j) {
      const float dx = seeds[j].x - b.x, dy = seeds[j].y - b.y, d2 = dx * dx + dy * dy;
      if (d2 > 0.25f && d2 < best) best = d2;
    });
    if (best < 1e9f) nn.push_back(std::sqrt(best));
  }
  if (!nn.empty()) {
    std::nth_element(nn.begin(), nn.begin() + nn.size() / 2, nn.end());
    for (Blob& b : seeds) b.d = 0.7f * nn[nn.size() / 2];
  }
  groupDots(seeds, index, minSize, clusters);
  for (auto& cl : clusters)
    for (int& k : cl) k = seedOf[k];
}

}  // namespace det
}  // namespace dc
