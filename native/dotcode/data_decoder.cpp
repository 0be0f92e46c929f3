#include "dotcode/data_decoder.h"

#include <cctype>
#include <cstdint>
#include <string>

namespace dc {
namespace {

constexpr char kGS = 0x1D, kRS = 0x1E, kEOT = 0x04;
// A macro's trailer: RS EOT after the 05, 06 and 12 headers, EOT alone (its tail) after the generic one.
constexpr char kRsEot[] = {kRS, kEOT, 0};
constexpr int kMaxEci = 811799;

enum class Set { A,
                 B,
                 C };

// Structured Append index/count character (FORMAT.md 8.9): '1'..'9' -> 1..9, 'A'..'Z' -> 10..35.
int saNumber(int v) {
  if (v >= 17 && v <= 25) return v - 16;
  if (v >= 33 && v <= 58) return v - 23;
  return -1;
}

class Decoder {
 public:
  Decoder(const std::vector<int>& d, DotCodeSymbol& out) : d_(d), out_(out) {}

  bool run() {
    out_.bytes.clear();
    out_.ecis.clear();
    out_.eciSegments.clear();
    out_.gs1 = false;
    out_.readerInit = false;
    out_.macro.clear();
    out_.structuredAppendIndex = out_.structuredAppendCount = 0;
    out_.structuredAppendFileId = -1;
    end_ = d_.size();
    for (int v : d_)
      if (v < 0 || v > 112) return false;

    // Structured Append trailer first: a pad or latch before it must not change its meaning (8.9).
    if (end_ >= 1 && d_[end_ - 1] == 108) {
      if (end_ < 3) return false;
      const int index = saNumber(d_[end_ - 3]), count = saNumber(d_[end_ - 2]);
      if (index < 1 || count < 2 || index > count) return false;
      out_.structuredAppendIndex = index;
      out_.structuredAppendCount = count;
      end_ -= 3;
    }

    size_t i = 0;
    const char* macroTrailer = "";
    if (end_ > 0) {
      const int first = d_[0];
      if (first <= 100) out_.gs1 = true;  // GS1 data begins with an AI, i.e. with digits (8.6)
      if (first == 107) {
        i = 1;  // FNC1 first: "not GS1", no output
      } else if (first == 109) {
        out_.readerInit = true;  // FNC3 first: reader programming symbol (8.10)
        i = 1;
      } else if (first == 106 && end_ >= 2 && d_[1] >= 97 && d_[1] <= 100) {
        // Latch B + macro codeword (8.7).
        static const char* const kNames[4] = {"05", "06", "12", "generic"};
        out_.macro = kNames[d_[1] - 97];
        out_.bytes += "[)>";
        out_.bytes += kRS;
        if (d_[1] < 100) {
          out_.bytes += out_.macro;
          out_.bytes += kGS;
          macroTrailer = kRsEot;
        } else {
          macroTrailer = kRsEot + 1;
        }
        set_ = Set::B;
        i = 2;
      }
    }

    while (i < end_) {
      const int v = d_[i++];
      if (binary_) {
        if (!binaryWord(v, i)) return false;
        continue;
      }
      Set cur = set_;
      if (shiftLeft_ > 0) {
        cur = shiftSet_;
        --shiftLeft_;
      }
      if (v >= 107) {
        if (!common(v, i)) return false;
        continue;
      }
      bool ok = cur == Set::C ? setC(v, i) : cur == Set::A ? setA(v)
                                                           : setB(v);
      if (!ok) return false;
    }
    if (binary_ && !flushBinary()) return false;
    if (eciPending_ > 0) return false;  // binary ended inside an ECI marker
    out_.bytes += macroTrailer;

    int modifier = out_.gs1 ? 1 : aimIndicator_ ? 2
                                                : 0;
    if (!out_.ecis.empty()) modifier += 3;
    out_.symbologyId = "]J" + std::to_string(modifier);
    return true;
  }

 private:
  void shift(Set s, int n) {
    shiftSet_ = s;
    shiftLeft_ = n;
  }
  void latch(Set s) {
    set_ = s;
    shiftLeft_ = 0;
  }
  // An ECI applies from the next byte written (FORMAT.md 8.8), in normal and binary mode alike.
  void addEci(int eci) {
    out_.ecis.push_back(eci);
    out_.eciSegments.push_back({out_.bytes.size(), eci});
  }
  void digits(int v) {
    out_.bytes += static_cast<char>('0' + v / 10);
    out_.bytes += static_cast<char>('0' + v % 10);
  }

  bool setC(int v, size_t& i) {
    if (v < 100) {
      digits(v);
    } else if (v == 100) {  // "17" + three digit pairs + "10" (8.1)
      if (i + 3 > end_) return false;
      out_.bytes += "17";
      for (int k = 0; k < 3; ++k) {
        const int pair = d_[i++];
        if (pair > 99) return false;
        digits(pair);
      }
      out_.bytes += "10";
    } else if (v == 101) {
      latch(Set::A);
    } else if (v <= 105) {
      shift(Set::B, v - 101);
    } else {  // 106
      latch(Set::B);
    }
    return true;
  }

  bool setA(int v) {
    if (v < 64) {
      out_.bytes += static_cast<char>(v + 32);
    } else if (v < 96) {
      out_.bytes += static_cast<char>(v - 64);
    } else if (v <= 101) {
      shift(Set::B, v - 95);
    } else if (v == 102) {
      latch(Set::B);
    } else if (v <= 105) {
      shift(Set::C, v - 101);
    } else {
      latch(Set::C);
    }
    return true;
  }

  bool setB(int v) {
    if (v < 96) {
      out_.bytes += static_cast<char>(v + 32);
    } else if (v <= 100) {
      static const char kCtl[5] = {'\r', '\t', 0x1C, 0x1D, 0x1E};
      out_.bytes += kCtl[v - 96];
      if (v == 96) out_.bytes += '\n';
    } else if (v == 101) {
      shift(Set::A, 1);
    } else if (v == 102) {
      latch(Set::A);
    } else if (v <= 105) {
      shift(Set::C, v - 101);
    } else {
      latch(Set::C);
    }
    return true;
  }

  // Functions 107..112, the same in A, B and C (8.4). `i` indexes the codeword after v.
  bool common(int v, size_t& i) {
    switch (v) {
      case 107: {
        // AIM application indicator (8.6, [?]): FNC1 right after a leading digit pair, or after
        // a single leading letter, flags the indicator and is not transmitted.
        const size_t pos = i - 1;
        const bool afterPair = pos == 1 && d_[0] <= 99;
        const bool afterLetter = out_.bytes.size() == 1 && out_.macro.empty() && !out_.readerInit &&
            out_.ecis.empty() && std::isalpha(static_cast<unsigned char>(out_.bytes[0])) &&
            d_[0] != 107;
        if (afterPair || afterLetter) {
          aimIndicator_ = true;
          out_.gs1 = false;
        } else {
          out_.bytes += kGS;
        }
        return true;
      }
      case 108: {  // ECI (8.8)
        if (i >= end_) return false;
        const int a = d_[i++];
        int eci = a;
        if (a >= 40) {
          if (i + 2 > end_) return false;
          const int b = d_[i++], c = d_[i++];
          eci = (a - 40) * 12769 + b * 113 + c + 40;
          if (eci > kMaxEci) return false;
        }
        addEci(eci);
        return true;
      }
      case 109:
        // FNC3 after the first position: BWIPP's segment separator (FORMAT.md 8.4 [?]). It
        // carries no character, so it outputs nothing.
        return true;
      case 110:
      case 111: {  // Upper Shift A/B: one extended character 128..255
        if (i >= end_) return false;
        const int c = d_[i++];
        if (c > 95) return false;
        const int byte = v == 110 ? (c < 64 ? c + 32 : c - 64) + 128 : c + 160;
        out_.bytes += static_cast<char>(byte);
        return true;
      }
      default:  // 112 Binary Latch
        binary_ = true;
        groupLen_ = 0;
        group_ = 0;
        shiftLeft_ = 0;
        return true;
    }
  }

  bool binaryWord(int v, size_t& i) {
    if (v < 103) {
      group_ = group_ * 103 + static_cast<uint64_t>(v);
      if (++groupLen_ == 6) return flushBinary();
      return true;
    }
    if (!flushBinary()) return false;  // any codeword >= 103 closes the group
    if (v <= 108) {                    // interrupt: v-101 digit pairs, then binary again
      const int n = v - 101;
      if (i + n > end_) return false;
      for (int k = 0; k < n; ++k) {
        const int pair = d_[i++];
        if (pair > 99) return false;
        digits(pair);
      }
      return true;
    }
    if (eciPending_ > 0) return false;
    binary_ = false;
    latch(v == 109 ? Set::A : v == 110 ? Set::B
                                       : Set::C);  // 112: latch C + separator [?]
    return true;
  }

  // Converts the collected base-103 digits (m of them) into m-1 base-259 values.
  bool flushBinary() {
    if (groupLen_ == 0) return true;
    if (groupLen_ == 1) return false;
    const int count = groupLen_ - 1;
    uint64_t limit = 1;
    for (int k = 0; k < count; ++k) limit *= 259;
    if (group_ >= limit) return false;  // more than m-1 values can hold: corrupt
    int values[5];
    uint64_t g = group_;
    for (int k = count - 1; k >= 0; --k) {
      values[k] = static_cast<int>(g % 259);
      g /= 259;
    }
    group_ = 0;
    groupLen_ = 0;
    for (int k = 0; k < count; ++k)
      if (!binaryValue(values[k])) return false;
    return true;
  }

  bool binaryValue(int value) {
    if (eciPending_ > 0) {
      if (value > 255) return false;
      eciValue_ = eciValue_ << 8 | value;
      if (--eciPending_ == 0) {
        if (eciValue_ > 999999) return false;
        addEci(eciValue_);
      }
      return true;
    }
    if (value >= 256) {  // ECI marker: next 1/2/3 values are the ECI number, big-endian
      eciPending_ = value - 255;
      eciValue_ = 0;
      return true;
    }
    out_.bytes += static_cast<char>(value);
    return true;
  }

  const std::vector<int>& d_;
  DotCodeSymbol& out_;
  size_t end_ = 0;
  Set set_ = Set::C;
  Set shiftSet_ = Set::C;
  int shiftLeft_ = 0;
  bool binary_ = false;
  uint64_t group_ = 0;
  int groupLen_ = 0;
  int eciPending_ = 0;
  int eciValue_ = 0;
  bool aimIndicator_ = false;
};

}  // namespace

bool decodeDataCodewords(const std::vector<int>& data, DotCodeSymbol& out) {
  return Decoder(data, out).run();
}

}  // namespace dc
