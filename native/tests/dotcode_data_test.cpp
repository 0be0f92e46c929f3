// Every branch of the DotCode data layer (FORMAT.md section 8), driven by codeword lists.
#include <cstdint>

#include "check.h"
#include "dotcode/data_decoder.h"
#include "dotcode_test_util.h"

namespace {

using dctest::cat;
using dctest::packBinary;

struct Out {
  bool ok;
  dc::DotCodeSymbol s;
};
Out run(const std::vector<int>& cw) {
  Out o;
  o.ok = dc::decodeDataCodewords(cw, o.s);
  return o;
}
std::string bytesOf(const std::vector<int>& cw) {
  Out o = run(cw);
  return o.ok ? o.s.bytes : std::string("<fail>");
}

}  // namespace

TEST("dotcode data: code set C digits, 17..10, GS1 decision and symbology id") {
  Out o = run({107, 12, 34, 56});
  CHECK(o.ok);
  CHECK_EQ(o.s.bytes, std::string("123456"));
  CHECK(!o.s.gs1);
  CHECK_EQ(o.s.symbologyId, std::string("]J0"));
  o = run({1, 12, 34, 56, 78, 90, 12, 31, 107, 21, 55});  // GS1: 01..., FNC1 later = GS
  CHECK(o.ok && o.s.gs1);
  CHECK_EQ(o.s.bytes, std::string("0112345678901231\x1D"
                                  "2155"));
  CHECK_EQ(o.s.symbologyId, std::string("]J1"));
  CHECK_EQ(bytesOf({100, 12, 34, 56}), std::string("1712345610"));
  CHECK(run({100, 12, 34, 56}).s.gs1);
  CHECK_EQ(bytesOf({100, 12, 34}), std::string("<fail>"));       // truncated 17..10
  CHECK_EQ(bytesOf({100, 12, 101, 56}), std::string("<fail>"));  // not a digit pair
  CHECK_EQ(bytesOf({}), std::string(""));
}

TEST("dotcode data: code set C latches and shifts") {
  CHECK_EQ(bytesOf({101, 33, 34}), std::string("AB"));        // Latch A
  CHECK_EQ(bytesOf({102, 65, 12}), std::string("a12"));       // Shift B 1, back to C
  CHECK_EQ(bytesOf({103, 65, 66, 12}), std::string("ab12"));  // Shift B 2
  CHECK_EQ(bytesOf({104, 65, 66, 67, 12}), std::string("abc12"));
  CHECK_EQ(bytesOf({105, 65, 66, 67, 68, 12}), std::string("abcd12"));
  CHECK_EQ(bytesOf({106, 65, 66}), std::string("ab"));  // Latch B
  CHECK(!run({106, 65}).s.gs1);
}

TEST("dotcode data: code set A characters, controls, shifts and latches") {
  CHECK_EQ(bytesOf({101, 0, 63, 64, 95}), std::string(" _\x00\x1F", 4));
  CHECK_EQ(bytesOf({101, 96, 65, 33}), std::string("aA"));                            // Shift B 1
  CHECK_EQ(bytesOf({101, 101, 65, 66, 67, 68, 69, 70, 33}), std::string("abcdefA"));  // Shift B 6
  CHECK_EQ(bytesOf({101, 102, 65}), std::string("a"));                                // Latch B
  CHECK_EQ(bytesOf({101, 103, 12, 34, 33}), std::string("1234A"));                    // Shift C 2
  CHECK_EQ(bytesOf({101, 105, 12, 34, 56, 78, 33}), std::string("12345678A"));
  CHECK_EQ(bytesOf({101, 106, 12}), std::string("12"));  // Latch C
}

TEST("dotcode data: code set B characters, controls, shifts and latches") {
  CHECK_EQ(bytesOf({106, 0, 95}), std::string(" \x7F"));
  CHECK_EQ(bytesOf({106, 33, 96, 97, 98, 99, 100}), std::string("A\r\n\t\x1C\x1D\x1E"));
  CHECK_EQ(bytesOf({106, 65, 101, 64, 66}), std::string("a\x00"
                                                        "b",
                                                        3));        // Shift A 1
  CHECK_EQ(bytesOf({106, 102, 33}), std::string("A"));              // Latch A
  CHECK_EQ(bytesOf({106, 103, 12, 34, 65}), std::string("1234a"));  // Shift C 2
  CHECK_EQ(bytesOf({106, 104, 12, 34, 56, 65}), std::string("123456a"));
  CHECK_EQ(bytesOf({106, 106, 12}), std::string("12"));           // Latch C
  CHECK_EQ(bytesOf({106, 65, 106, 106, 106}), std::string("a"));  // pads
  CHECK_EQ(bytesOf({106, 65, 102}), std::string("a"));            // dangling latch
  CHECK_EQ(bytesOf({102}), std::string(""));                      // dangling shift
}

TEST("dotcode data: FNC1 first, FNC1 later, FNC3 reader init and FNC3 later") {
  Out o = run({107, 106, 33});
  CHECK(o.ok && !o.s.gs1);
  CHECK_EQ(o.s.bytes, std::string("A"));
  CHECK_EQ(bytesOf({107, 12, 107, 34}), std::string("12\x1D"
                                                    "34"));
  o = run({109, 12, 34});
  CHECK(o.ok && o.s.readerInit && !o.s.gs1);
  CHECK_EQ(o.s.bytes, std::string("1234"));
  CHECK_EQ(bytesOf({106, 33, 109, 34}), std::string("AB"));  // FNC3 later: separator, no output
}

TEST("dotcode data: AIM application indicator (FNC1 after a first digit pair or letter)") {
  Out o = run({12, 107, 106, 33});
  CHECK(o.ok && !o.s.gs1);
  CHECK_EQ(o.s.bytes, std::string("12A"));
  CHECK_EQ(o.s.symbologyId, std::string("]J2"));
  o = run({101, 33, 107, 34});
  CHECK(o.ok);
  CHECK_EQ(o.s.bytes, std::string("AB"));
  CHECK_EQ(o.s.symbologyId, std::string("]J2"));
}

TEST("dotcode data: ECI by FNC2, one and three codewords, range and truncation") {
  Out o = run({108, 26, 106, 33});
  CHECK(o.ok && !o.s.gs1);
  CHECK(o.s.ecis == std::vector<int>{26});
  CHECK_EQ(o.s.symbologyId, std::string("]J3"));
  CHECK(run({108, 40, 1, 17}).s.ecis == std::vector<int>{170});
  CHECK(run({108, 40, 0, 0}).s.ecis == std::vector<int>{40});
  CHECK(run({108, 103, 64, 80}).s.ecis == std::vector<int>{811799});
  CHECK(!run({108, 104, 0, 0}).ok);  // above 811799
  CHECK(!run({108, 40, 1}).ok);
  o = run({108, 3, 106, 33, 108, 26, 34});
  CHECK(o.s.ecis == (std::vector<int>{3, 26}));
  CHECK_EQ(o.s.bytes, std::string("AB"));
}

TEST("dotcode data: upper shifts to bytes 128..255") {
  CHECK_EQ(bytesOf({110, 64}), std::string("\x80"));
  CHECK_EQ(bytesOf({110, 95}), std::string("\x9F"));
  CHECK_EQ(bytesOf({110, 0}), std::string("\xA0"));
  CHECK_EQ(bytesOf({110, 63}), std::string("\xDF"));
  CHECK_EQ(bytesOf({111, 0}), std::string("\xA0"));
  CHECK_EQ(bytesOf({111, 95}), std::string("\xFF"));
  CHECK_EQ(bytesOf({106, 111, 73, 65}), std::string("\xE9"
                                                    "a"));
  CHECK_EQ(bytesOf({111, 96}), std::string("<fail>"));
  CHECK_EQ(bytesOf({110}), std::string("<fail>"));
}

TEST("dotcode data: binary mode groups, interrupts, exits and ECI markers") {
  const std::vector<int> five{0, 255, 128, 65, 10};
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary(five)), {111, 12})), std::string("\x00\xFF\x80"
                                                                              "A\n"
                                                                              "12",
                                                                              7));
  CHECK_EQ(bytesOf(cat({112}, packBinary({200, 201}))), std::string("\xC8\xC9"));  // partial group at end
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({1, 2, 3, 4, 5, 6, 7})), {109, 33})), std::string("\x01\x02\x03\x04\x05\x06\x07"
                                                                                               "A"));
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({200})), {110, 65})), std::string("\xC8"
                                                                               "a"));
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({200})), {112, 12})), std::string("\xC8"
                                                                               "12"));
  // Interrupt: 103 = two digit pairs, then binary again.
  CHECK_EQ(bytesOf(cat(cat(cat({112}, packBinary({200})), {103, 12, 34}), packBinary({201}))), std::string("\xC8"
                                                                                                           "1234"
                                                                                                           "\xC9"));
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({200})), {108, 1, 2, 3, 4, 5, 6, 7})), std::string("\xC8"
                                                                                                "01020304050607"));
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({200})), {103, 12})), std::string("<fail>"));
  CHECK_EQ(bytesOf(cat(cat({112}, packBinary({200})), {103, 12, 101})), std::string("<fail>"));
  CHECK_EQ(bytesOf({112, 5}), std::string("<fail>"));                             // group of one digit
  CHECK_EQ(bytesOf({112, 102, 102, 102, 102, 102, 102}), std::string("<fail>"));  // > 259^5
  // ECI markers inside binary: 256 + 1 byte, 257 + 2 bytes, 258 + 3 bytes.
  Out o = run(cat({112}, packBinary({256, 26, 0xC3, 0xA9, 257, 0x03, 0xE8, 65, 258, 0x01, 0x00, 0x00})));
  CHECK(o.ok);
  CHECK(o.s.ecis == (std::vector<int>{26, 1000, 65536}));
  CHECK_EQ(o.s.bytes, std::string("\xC3\xA9"
                                  "A"));
  CHECK(!run(cat({112}, packBinary({257, 3}))).ok);    // data ends inside an ECI marker
  CHECK(!run(cat({112}, packBinary({256, 256}))).ok);  // marker value is not a byte
}

TEST("dotcode data: macros 05/06/12 and generic") {
  Out o = run({106, 97, 33, 34});
  CHECK(o.ok);
  CHECK_EQ(o.s.bytes, std::string("[)>\x1E"
                                  "05\x1D"
                                  "AB\x1E\x04"));
  CHECK_EQ(o.s.macro, std::string("05"));
  CHECK_EQ(bytesOf({106, 98, 33}), std::string("[)>\x1E"
                                               "06\x1D"
                                               "A\x1E\x04"));
  CHECK_EQ(bytesOf({106, 99, 33}), std::string("[)>\x1E"
                                               "12\x1D"
                                               "A\x1E\x04"));
  o = run({106, 100, 25, 25, 33});
  CHECK_EQ(o.s.bytes, std::string("[)>\x1E"
                                  "99A\x04"));
  CHECK_EQ(o.s.macro, std::string("generic"));
  CHECK_EQ(bytesOf({106, 33, 97}), std::string("A\t"));  // not first position: HT
  CHECK(run({106, 33, 97}).s.macro.empty());
}

TEST("dotcode data: structured append trailer, pads and latches before it, bad trailers") {
  Out o = run({106, 33, 18, 19, 108});
  CHECK(o.ok);
  CHECK_EQ(o.s.bytes, std::string("A"));
  CHECK_EQ(o.s.structuredAppendIndex, 2);
  CHECK_EQ(o.s.structuredAppendCount, 3);
  o = run({106, 33, 102, 106, 106, 17, 56, 108});  // pad + latch in front, 1 of 34 ('X'=56 -> 33)
  CHECK(o.ok);
  CHECK_EQ(o.s.structuredAppendIndex, 1);
  CHECK_EQ(o.s.structuredAppendCount, 33);
  CHECK_EQ(o.s.bytes, std::string("A"));
  CHECK(!run({106, 33, 20, 19, 108}).ok);  // index > count
  CHECK(!run({106, 33, 17, 17, 108}).ok);  // count 1
  CHECK(!run({106, 33, 0, 19, 108}).ok);   // not a digit/letter
  CHECK(!run({33, 108}).ok);
}

TEST("dotcode data: out-of-range codeword is refused") {
  CHECK(!run({106, 113}).ok);
  CHECK(!run({-1}).ok);
}
