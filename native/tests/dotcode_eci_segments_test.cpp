// ECI segments (FORMAT.md 8.5, 8.8): every ECI designator is recorded with the byte offset from
// which it applies, so a symbol that switches character set mid-message can be turned into text
// segment by segment. Covered at the codeword level (every way an ECI can appear) and end to end
// on grids that zint 2.11.1 made with several ECI segments.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "dotcode/data_decoder.h"
#include "dotcode/dotcode_symbol.h"
#include "dotcode_test_util.h"

namespace {

using dctest::cat;
using dctest::packBinary;

using Segs = std::vector<dc::EciSegment>;

std::ostream& operator<<(std::ostream& os, const Segs& s) {
  for (auto& e : s) os << "(" << e.offset << "," << e.eci << ")";
  return os;
}

// A `zint --dump` matrix: one line per row, hex digits (spaces ignored), most significant bit of
// each digit first; the last digit of a row is padded, so the width has to be given.
dc::DotGrid gridFromDump(const std::string& dump, int cols) {
  std::vector<uint8_t> dots;
  int rows = 0;
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    std::string hex;
    for (char ch : line)
      if (ch != ' ') hex += ch;
    if (hex.empty()) continue;
    REQUIRE(hex.size() * 4 >= static_cast<size_t>(cols));
    for (int c = 0; c < cols; ++c) {
      const int nibble = std::stoi(hex.substr(c / 4, 1), nullptr, 16);
      dots.push_back(static_cast<uint8_t>((nibble >> (3 - c % 4)) & 1));
    }
    ++rows;
  }
  return dctest::gridOf(rows, cols, dots);
}

// zint -b DOTCODE --dump --eci=3 -d 'Grüße' --seg1=26,'日本語 текст'   (28 x 41)
// Codewords: FNC2 3, Shift B "Gr", binary "üß", "e", FNC2 26, binary UTF-8 ...: both ECIs by FNC2.
const char* const kLatin1ThenUtf8 = R"(A0 8A 88 8A A2 8
01 51 54 50 51 0
28 82 20 00 28 8
45 40 50 45 10 0
82 82 8A A0 82 0
14 15 01 40 04 0
8A A8 28 8A A8 8
54 10 15 05 55 0
A8 22 A0 2A 82 8
41 54 55 14 45 0
00 A8 8A 08 0A 8
11 45 40 14 11 0
22 20 02 A0 0A 0
54 15 15 50 14 0
08 88 2A A2 A0 0
14 41 41 41 41 0
82 22 A0 0A A2 0
45 04 40 01 14 0
A8 0A 22 2A 00 8
50 01 04 55 44 0
A2 28 8A A2 88 8
15 54 11 50 40 0
28 8A 08 A8 80 0
15 11 45 45 55 0
80 02 AA 80 2A 8
44 50 14 15 15 0
8A A8 A8 2A 28 8
51 54 45 04 51 0)";

// zint -b DOTCODE --dump -d 'ABC' --seg1=7,'Привет'   (18 x 27)
// No ECI for the first segment (default ISO-8859-1), then FNC2 7 and binary ISO-8859-5 bytes.
const char* const kDefaultThenCyrillic = R"(8A A2 2A A
14 15 44 0
80 8A 80 2
15 40 14 4
A0 08 A8 2
15 51 01 0
28 20 2A 2
45 00 51 0
8A A8 A2 A
41 15 55 4
80 28 AA A
15 04 51 4
A2 88 00 2
54 44 00 4
88 8A AA A
44 51 05 4
A0 A2 00 A
41 15 15 4)";

// zint -b DOTCODE --dump --eci=899 --binary --esc -d '\x00\x01\x02\x80\xff\xfe\x00\x9f' --seg1=26,'€ ok'
// (22 x 33). ECI 899 by FNC2, then inside one binary run the marker 256 + 26 switches to UTF-8.
const char* const kBinaryThenUtf8 = R"(8A A8 08 80 8
41 04 54 51 0
80 20 22 02 0
14 41 04 14 0
A0 22 80 28 8
45 55 55 54 0
AA 22 AA 08 0
55 40 11 15 0
8A 8A A8 82 0
14 15 04 01 0
22 28 02 2A 8
44 55 50 54 0
00 8A AA 20 8
11 14 41 41 0
0A 2A 08 8A 0
40 05 44 54 0
A2 0A 80 88 0
55 41 11 11 0
A8 A0 AA A2 8
11 14 05 51 0
A0 A0 22 8A 0
45 00 55 44 0)";

}  // namespace

TEST("dotcode eci segments: FNC2 in the code sets records the offset of the next byte") {
  dc::DotCodeSymbol s;
  // FNC2 3, Shift B 1 'A', FNC2 26, Latch B "bc": (0,3) then (1,26).
  REQUIRE(dc::decodeDataCodewords({108, 3, 102, 33, 108, 26, 106, 66, 67}, s));
  CHECK_EQ(s.bytes, std::string("Abc"));
  CHECK_EQ(s.eciSegments, (Segs{{0, 3}, {1, 26}}));
  CHECK(s.ecis == (std::vector<int>{3, 26}));  // the old list is unchanged
  // Three-codeword ECI after digits: "1234" then ECI 170 at offset 4, then "56".
  REQUIRE(dc::decodeDataCodewords({107, 12, 34, 108, 40, 1, 17, 56}, s));
  CHECK_EQ(s.bytes, std::string("123456"));
  CHECK_EQ(s.eciSegments, (Segs{{4, 170}}));
  // Two ECIs in a row apply at the same offset (the later one wins when turning into text);
  // an ECI at the very end is kept with offset == bytes.size() (an empty segment).
  REQUIRE(dc::decodeDataCodewords({106, 33, 108, 4, 108, 7, 34, 108, 26}, s));
  CHECK_EQ(s.bytes, std::string("AB"));
  CHECK_EQ(s.eciSegments, (Segs{{1, 4}, {1, 7}, {2, 26}}));
  // No ECI: no segments, and a decoder reused for another symbol forgets the previous ones.
  REQUIRE(dc::decodeDataCodewords({106, 33, 34}, s));
  CHECK(s.eciSegments.empty());
  CHECK(s.ecis.empty());
}

TEST("dotcode eci segments: offsets count the macro header and upper shift bytes") {
  dc::DotCodeSymbol s;
  // Latch B + macro 05 writes "[)>" RS "05" GS (7 bytes) before the data; ECI 26 comes after it.
  REQUIRE(dc::decodeDataCodewords({106, 97, 108, 26, 33}, s));
  CHECK_EQ(s.bytes, std::string("[)>\x1E"
                                "05\x1D"
                                "A\x1E\x04"));
  CHECK_EQ(s.eciSegments, (Segs{{7, 26}}));
  // Upper Shift B (one byte 0xE9) before FNC2 7.
  REQUIRE(dc::decodeDataCodewords({106, 111, 73, 108, 7, 33}, s));
  CHECK_EQ(s.bytes, std::string("\xE9"
                                "A"));
  CHECK_EQ(s.eciSegments, (Segs{{1, 7}}));
}

TEST("dotcode eci segments: 256-258 markers inside binary mode, across groups and interrupts") {
  dc::DotCodeSymbol s;
  // Binary: 'a', ECI 26 (256 + 1 byte), 'b', 'c', ECI 1000 (257 + 2 bytes), 'd', ECI 65536
  // (258 + 3 bytes), 'e'. Markers straddle the 5-value group boundaries on purpose.
  const std::vector<int> values = {'a', 256, 26, 'b', 'c', 257, 3, 232, 'd', 258, 1, 0, 0, 'e'};
  REQUIRE(dc::decodeDataCodewords(cat({112}, packBinary(values)), s));
  CHECK_EQ(s.bytes, std::string("abcde"));
  CHECK_EQ(s.eciSegments, (Segs{{1, 26}, {3, 1000}, {4, 65536}}));
  CHECK(s.ecis == (std::vector<int>{26, 1000, 65536}));
  // A digit-pair interrupt (103: two pairs) between binary runs moves the offset by 4.
  REQUIRE(dc::decodeDataCodewords(cat(cat(cat({112}, packBinary({'x'})), {103, 12, 34}), packBinary({256, 7, 0xE0})), s));
  CHECK_EQ(s.bytes, std::string("x1234\xE0"));
  CHECK_EQ(s.eciSegments, (Segs{{5, 7}}));
  // Binary ECI, leave binary (110 = Latch B), then FNC2 in set B: both recorded in order.
  REQUIRE(dc::decodeDataCodewords(cat(cat({112}, packBinary({256, 3, 0xFC})), {110, 33, 108, 26, 34}), s));
  CHECK_EQ(s.bytes, std::string("\xFC"
                                "AB"));
  CHECK_EQ(s.eciSegments, (Segs{{0, 3}, {2, 26}}));
}

TEST("dotcode eci segments: zint multi-ECI symbols, every orientation") {
  struct Case {
    const char* name;
    const char* dump;
    int cols;
    std::string bytes;
    Segs segs;
  };
  const Case cases[] = {
      {"latin1 then utf8", kLatin1ThenUtf8, 41,
       "Gr\xFC\xDF"
       "e"
       "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xD1\x82\xD0\xB5\xD0\xBA\xD1\x81\xD1\x82",
       {{0, 3}, {5, 26}}},
      {"default then cyrillic", kDefaultThenCyrillic, 27, "ABC\xBF\xE0\xD8\xD2\xD5\xE2", {{3, 7}}},
      {"binary then utf8 in binary", kBinaryThenUtf8, 33, std::string("\x00\x01\x02\x80\xFF\xFE\x00\x9F", 8) + "\xE2\x82\xAC ok", {{0, 899}, {8, 26}}},
  };
  for (const Case& c : cases) {
    const dc::DotGrid grid = gridFromDump(c.dump, c.cols);
    for (int t = 0; t < 8; ++t) {
      const auto s = dc::decodeDotGrid(dctest::transformed(grid, t));
      if (!s) {
        check::fail(__FILE__, __LINE__, std::string(c.name) + ": no decode, transform " + std::to_string(t));
        continue;
      }
      CHECK_EQ(s->bytes, c.bytes);
      CHECK_EQ(s->eciSegments, c.segs);
      CHECK_EQ(s->symbologyId, std::string("]J3"));
    }
  }
}
