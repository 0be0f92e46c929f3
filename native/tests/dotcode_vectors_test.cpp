// All 79 vectors of ../shared/dotcode/vectors.jsonl (zint and bwip-js output) through the whole
// core, in all 8 orientations, plus the intermediate codeword stages against the vector fields.
#include <sstream>

#include "check.h"
#include "dotcode/data_decoder.h"
#include "dotcode/symbol_codewords.h"
#include "dotcode/symbol_layout.h"
#include "dotcode_test_util.h"

using namespace dctest;

TEST("dotcode vectors: layout counts match nd_nc") {
  for (const Vector& v : loadVectors()) {
    const dc::SymbolLayout l = dc::layoutFor(v.rows, v.cols);
    CHECK(l.valid);
    CHECK_EQ(l.dataWords, v.nd);
    CHECK_EQ(l.checkWords, v.nc);
    CHECK_EQ(l.totalWords, static_cast<int>(v.codewords.size()));
  }
}

TEST("dotcode vectors: data layer decodes the listed data codewords") {
  for (const Vector& v : loadVectors()) {
    dc::DotCodeSymbol s;
    const bool ok = dc::decodeDataCodewords(v.dataCodewords, s);
    CHECK(ok);
    if (!ok || s.bytes != v.expected) {
      check::fail(__FILE__, __LINE__, "data layer mismatch: " + v.desc);
      continue;
    }
    CHECK_EQ(s.gs1, v.gs1);
  }
}

TEST("dotcode vectors: all 8 orientations decode to the expected bytes and flags") {
  int decoded = 0, total = 0;
  for (const Vector& v : loadVectors()) {
    const dc::DotGrid g = gridOf(v);
    for (int t = 0; t < 8; ++t) {
      ++total;
      const auto s = dc::decodeDotGrid(transformed(g, t));
      if (!s || s->bytes != v.expected) {
        std::ostringstream os;
        os << "vector '" << v.desc << "' orientation " << t << (s ? " wrong bytes" : " not decoded");
        check::fail(__FILE__, __LINE__, os.str());
        continue;
      }
      ++decoded;
      CHECK_EQ(s->gs1, v.gs1);
      CHECK(s->ecis == v.ecis);
      CHECK_EQ(s->structuredAppendIndex, v.saIndex);
      CHECK_EQ(s->structuredAppendCount, v.saCount);
      CHECK_EQ(s->readerInit, v.readerInit);
      CHECK_EQ(s->macro.empty(), !v.macro);
      CHECK_EQ(s->mask, v.mask);
      CHECK_EQ(s->ecBudget, v.nc);
      CHECK(s->rows * s->cols == v.rows * v.cols);
      // Canonical size reported either as given or as its quarter-turn twin (same reading).
      CHECK((s->rows == v.rows && s->cols == v.cols) || (s->rows == v.cols && s->cols == v.rows));
      if (t == 0) {
        CHECK_EQ(s->orientation, 0);
        CHECK(!s->mirrored);
      }
    }
  }
  CHECK_EQ(decoded, total);
}
