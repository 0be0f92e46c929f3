// A tiny append-only little-endian byte writer: how the WebAssembly build hands its results to
// JavaScript. One flat buffer per call (read back by lib/engine/wasm-wire.ts) instead of many
// small calls across the wasm boundary, and floats passed as their exact 32-bit patterns so the
// JavaScript numbers equal the ones the N-API addon produces.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dcwasm {

class WireWriter {
 public:
  void clear() { buf_.clear(); }
  const std::vector<uint8_t>& bytes() const { return buf_; }

  void u8(uint8_t v) { buf_.push_back(v); }
  void i32(int32_t v) { raw(&v, 4); }
  void u32(uint32_t v) { raw(&v, 4); }
  void f32(float v) { raw(&v, 4); }
  void f64(double v) { raw(&v, 8); }
  void blob(const void* p, size_t n) {
    u32(static_cast<uint32_t>(n));
    raw(p, n);
  }
  void str(const std::string& s) { blob(s.data(), s.size()); }
  void i32s(const std::vector<int>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (int x : v) i32(x);
  }
  void f32s(const std::vector<float>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (float x : v) f32(x);
  }

 private:
  // wasm32 is little-endian, as the JavaScript reader assumes.
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  std::vector<uint8_t> buf_;
};

}  // namespace dcwasm
