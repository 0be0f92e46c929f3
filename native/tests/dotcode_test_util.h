// Helpers shared by the dotcode_* tests: a tiny JSON reader (just enough for vectors.jsonl),
// the vector loader, grid transforms and a seeded RNG. Test code only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "dotcode/dotcode_symbol.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"

namespace dctest {

struct Json {
  // clang-format off
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  // clang-format on
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json* get(const std::string& k) const {
    auto it = obj.find(k);
    return it == obj.end() ? nullptr : &it->second;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json parse() {
    Json j = value();
    ws();
    if (p_ != s_.size()) throw std::runtime_error("json: trailing characters");
    return j;
  }

 private:
  void ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) ++p_;
  }
  char peek() {
    ws();
    if (p_ >= s_.size()) throw std::runtime_error("json: unexpected end");
    return s_[p_];
  }
  void expect(char c) {
    if (peek() != c) throw std::runtime_error(std::string("json: expected ") + c);
    ++p_;
  }
  Json value() {
    Json j;
    const char c = peek();
    if (c == '{') {
      j.kind = Json::Object;
      ++p_;
      if (peek() == '}') {
        ++p_;
        return j;
      }
      for (;;) {
        Json key = value();
        expect(':');
        j.obj[key.str] = value();
        if (peek() == ',') {
          ++p_;
          continue;
        }
        expect('}');
        return j;
      }
    }
    if (c == '[') {
      j.kind = Json::Array;
      ++p_;
      if (peek() == ']') {
        ++p_;
        return j;
      }
      for (;;) {
        j.arr.push_back(value());
        if (peek() == ',') {
          ++p_;
          continue;
        }
        expect(']');
        return j;
      }
    }
    if (c == '"') {
      j.kind = Json::String;
      ++p_;
      while (p_ < s_.size() && s_[p_] != '"') {
        char ch = s_[p_++];
        if (ch != '\\') {
          j.str += ch;
          continue;
        }
        const char e = s_.at(p_++);
        switch (e) {
          case 'n':
            j.str += '\n';
            break;
          case 't':
            j.str += '\t';
            break;
          case 'r':
            j.str += '\r';
            break;
          case 'b':
            j.str += '\b';
            break;
          case 'f':
            j.str += '\f';
            break;
          case 'u': {
            const unsigned cp = static_cast<unsigned>(std::stoul(s_.substr(p_, 4), nullptr, 16));
            p_ += 4;
            // Encode as UTF-8 (we only need the code points <= 0xFFFF found in the vectors).
            if (cp < 0x80)
              j.str += static_cast<char>(cp);
            else if (cp < 0x800) {
              j.str += static_cast<char>(0xC0 | cp >> 6);
              j.str += static_cast<char>(0x80 | (cp & 63));
            } else {
              j.str += static_cast<char>(0xE0 | cp >> 12);
              j.str += static_cast<char>(0x80 | ((cp >> 6) & 63));
              j.str += static_cast<char>(0x80 | (cp & 63));
            }
            break;
          }
          default:
            j.str += e;
        }
      }
      ++p_;
      return j;
    }
    if (s_.compare(p_, 4, "true") == 0) {
      p_ += 4;
      j.kind = Json::Bool;
      j.b = true;
      return j;
    }
    if (s_.compare(p_, 5, "false") == 0) {
      p_ += 5;
      j.kind = Json::Bool;
      return j;
    }
    if (s_.compare(p_, 4, "null") == 0) {
      p_ += 4;
      return j;
    }
    size_t used = 0;
    j.kind = Json::Number;
    j.num = std::stod(s_.substr(p_, 32), &used);
    p_ += used;
    return j;
  }
  const std::string& s_;
  size_t p_ = 0;
};

struct Vector {
  std::string desc;
  std::string expected;  // bytes, from expected_hex
  bool gs1 = false;
  std::vector<int> ecis;
  int saIndex = 0, saCount = 0;
  bool readerInit = false;
  bool macro = false;
  int rows = 0, cols = 0, mask = 0, nd = 0, nc = 0;
  std::vector<std::string> matrix;
  std::vector<int> codewords, dataCodewords;
};

inline std::string fromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

inline std::vector<Vector> loadVectors() {
  const std::string path = check::sharedFile("dotcode/vectors.jsonl");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<Vector> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const Json j = JsonParser(line).parse();
    Vector v;
    v.desc = j.get("desc")->str;
    v.expected = fromHex(j.get("expected_hex")->str);
    v.gs1 = j.get("gs1")->b;
    if (auto e = j.get("eci"))
      for (auto& x : e->arr) v.ecis.push_back(static_cast<int>(x.num));
    if (auto s = j.get("structapp")) {
      v.saIndex = static_cast<int>(s->arr[0].num);
      v.saCount = static_cast<int>(s->arr[1].num);
    }
    if (auto r = j.get("reader_init")) v.readerInit = r->b;
    if (auto m = j.get("macro")) v.macro = m->kind == Json::Bool ? m->b : m->kind != Json::Null;
    v.rows = static_cast<int>(j.get("rows")->num);
    v.cols = static_cast<int>(j.get("cols")->num);
    v.mask = static_cast<int>(j.get("mask")->num);
    for (auto& row : j.get("matrix")->arr) v.matrix.push_back(row.str);
    for (auto& x : j.get("codewords")->arr) v.codewords.push_back(static_cast<int>(x.num));
    for (auto& x : j.get("data_codewords")->arr) v.dataCodewords.push_back(static_cast<int>(x.num));
    v.nd = static_cast<int>(j.get("nd_nc")->arr[0].num);
    v.nc = static_cast<int>(j.get("nd_nc")->arr[1].num);
    out.push_back(std::move(v));
  }
  return out;
}

inline dc::DotGrid gridOf(const Vector& v) {
  dc::DotGrid g;
  g.rows = v.rows;
  g.cols = v.cols;
  for (auto& row : v.matrix)
    for (char ch : row) g.value.push_back(ch == '1' ? 1.0f : 0.0f);
  return g;
}

inline dc::DotGrid gridOf(int rows, int cols, const std::vector<uint8_t>& dots) {
  dc::DotGrid g;
  g.rows = rows;
  g.cols = cols;
  for (uint8_t d : dots) g.value.push_back(d ? 1.0f : 0.0f);
  return g;
}

// The grid as the detector might hand it over: transform t (same numbering as GridTransform),
// realised by inverting it so that transform t of the result is the canonical grid again.
inline dc::DotGrid transformed(const dc::DotGrid& g, int t) {
  // Apply t to g: out(r,c) = g(sourceIndex(r,c)).
  const int R = g.rows, C = g.cols;
  dc::DotGrid o;
  o.rows = (t & 1) ? C : R;
  o.cols = (t & 1) ? R : C;
  o.value.resize(g.value.size());
  for (int r = 0; r < o.rows; ++r)
    for (int c = 0; c < o.cols; ++c) {
      int a, b;
      switch (t & 3) {
        case 0:
          a = r;
          b = c;
          break;
        case 1:
          a = R - 1 - c;
          b = r;
          break;
        case 2:
          a = R - 1 - r;
          b = C - 1 - c;
          break;
        default:
          a = c;
          b = C - 1 - r;
          break;
      }
      if (t >= 4) b = C - 1 - b;
      o.value[static_cast<size_t>(r) * o.cols + c] = g.value[static_cast<size_t>(a) * C + b];
    }
  return o;
}

// xorshift64*: small, seeded, reproducible.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

// A built symbol: its layout, codewords, dots and the text it holds.
struct BuiltSymbol {
  dc::SymbolLayout layout;
  std::vector<int> words;
  std::vector<uint8_t> dots;
  std::string text;
};

// A Code Set B message of `len` capitals in an H x W symbol with the given mask (no digit pairs,
// to keep the stream simple); words and dots are empty when the message does not fit.
inline BuiltSymbol buildSymbol(Rng& rng, int H, int W, int len, int mask) {
  BuiltSymbol b;
  b.layout = dc::layoutFor(H, W);
  std::vector<int> data{106};
  for (int i = 0; i < len; ++i) {
    const int v = 33 + rng.below(26);  // 'A'..'Z'
    data.push_back(v);
    b.text += static_cast<char>(v + 32);
  }
  b.words = dc::buildCodewords(b.layout, data, mask);
  if (!b.words.empty()) b.dots = dc::placeCodewords(b.layout, b.words);
  return b;
}

// The encoder's binary-mode packing (FORMAT.md 8.5): values 0..258 in groups of up to 5 become
// base-103 digits (k values -> k+1 digits), so tests can build binary-mode codeword streams.
inline std::vector<int> packBinary(const std::vector<int>& values) {
  std::vector<int> out;
  for (size_t i = 0; i < values.size(); i += 5) {
    const size_t m = std::min<size_t>(5, values.size() - i);
    uint64_t num = 0;
    for (size_t k = 0; k < m; ++k) num = num * 259 + static_cast<uint64_t>(values[i + k]);
    std::vector<int> digits(m + 1);
    for (size_t k = m + 1; k-- > 0;) {
      digits[k] = static_cast<int>(num % 103);
      num /= 103;
    }
    out.insert(out.end(), digits.begin(), digits.end());
  }
  return out;
}

inline std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace dctest
