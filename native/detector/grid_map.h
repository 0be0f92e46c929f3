// GridMap: lattice position (row, col) -> value, in one flat open-addressed table. The lattice
// growth and the extension look up every neighbour of every dot they accept (dozens of lookups
// per dot, mostly misses); std::unordered_map spends that time allocating nodes and chasing
// pointers, and decoy lattices in empty frames make it a large share of a frame's cost.
#pragma once

#include <cstdint>
#include <vector>

namespace dc {
namespace det {

template <class V>
class GridMap {
 public:
  explicit GridMap(size_t expected = 16) { reset(expected); }

  // Empties the map, sized for about `expected` entries.
  void reset(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    keys_.assign(cap, kEmpty);
    values_.resize(cap);
    size_ = 0;
  }

  const V* find(int row, int col) const {
    const uint64_t key = keyOf(row, col);
    for (size_t i = slot(key);; i = (i + 1) & (keys_.size() - 1)) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  bool contains(int row, int col) const { return find(row, col) != nullptr; }

  // Inserts or overwrites.
  void set(int row, int col, const V& v) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    insertKey(keyOf(row, col), v);
  }

  size_t size() const { return size_; }

 private:
  void insertKey(uint64_t key, const V& v) {
    size_t i = slot(key);
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & (keys_.size() - 1);
    if (keys_[i] == kEmpty) ++size_;
    keys_[i] = key;
    values_[i] = v;
  }

  // (row, col) packed as two 32-bit halves with their sign bits flipped, so the empty mark (all
  // ones) would be (INT_MAX, INT_MAX), which no lattice reaches; (-1, -1) is an ordinary position.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static uint64_t keyOf(int row, int col) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(row) ^ 0x80000000u) << 32) | (static_cast<uint32_t>(col) ^ 0x80000000u);
  }
  size_t slot(uint64_t key) const {
    // (a multiplicative hash: neighbouring positions land far apart)
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (keys_.size() - 1);
  }
  void grow() {
    std::vector<uint64_t> oldKeys;
    std::vector<V> oldValues;
    oldKeys.swap(keys_);
    oldValues.swap(values_);
    keys_.assign(2 * oldKeys.size(), kEmpty);
    values_.resize(keys_.size());
    size_ = 0;
    for (size_t i = 0; i < oldKeys.size(); ++i)
      if (oldKeys[i] != kEmpty) insertKey(oldKeys[i], oldValues[i]);
  }

  std::vector<uint64_t> keys_;
  std::vector<V> values_;
  size_t size_ = 0;
};

}  // namespace det
}  // namespace dc
