// The WebAssembly build's entry points: the same three calls as the N-API addon
// (native/addon/addon.cpp) over a plain C ABI, for lib/engine/wasm-*.ts (Node.js fallback) and the
// Live Scanner page (in the browser). No decoding logic lives here, only argument plumbing and
// the serialisation of results into one buffer (wire_writer.h; its layout is read back by
// lib/engine/wasm-wire.ts: change both together).
//
// Argument checking (types, sizes, the option ranges) happens in JavaScript before these are
// called, with the addon's exact messages; what arrives here is already valid. Memory for the
// pixels is the caller's: dc_alloc'd, filled, passed in, dc_free'd.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "detector/dotcode_reader.h"
#include "detector/frame_fusion.h"
#include "dotcode/dotcode_symbol.h"
#include "wasm/wire_writer.h"

#define DC_EXPORT extern "C" __attribute__((used, visibility("default")))

namespace {

// The last call's answer; stays valid until the next call (the JS side copies it out at once).
dcwasm::WireWriter out;

void writeSymbol(dcwasm::WireWriter& w, const dc::DotCodeSymbol& s) {
  w.blob(s.bytes.data(), s.bytes.size());
  w.u8(s.gs1 ? 1 : 0);
  w.i32s(s.ecis);
  w.u32(static_cast<uint32_t>(s.eciSegments.size()));
  for (const auto& seg : s.eciSegments) {
    w.u32(static_cast<uint32_t>(seg.offset));
    w.i32(seg.eci);
  }
  w.i32(s.structuredAppendIndex);
  w.i32(s.structuredAppendCount);
  w.i32(s.structuredAppendFileId);
  w.u8(s.readerInit ? 1 : 0);
  w.str(s.macro);
  w.str(s.symbologyId);
  w.i32(s.rows);
  w.i32(s.cols);
  w.i32(s.mask);
  w.i32(s.errorsCorrected);
  w.i32(s.erasuresCorrected);
  w.i32(s.ecBudget);
  w.i32(s.orientation);
  w.u8(s.mirrored ? 1 : 0);
}

void writeCorners(dcwasm::WireWriter& w, const dc::PointF* corners) {
  for (int k = 0; k < 4; ++k) {
    w.f32(corners[k].x);
    w.f32(corners[k].y);
  }
}

void writeReads(dcwasm::WireWriter& w, const std::vector<dc::ReadResult>& reads) {
  w.u32(static_cast<uint32_t>(reads.size()));
  for (const auto& r : reads) {
    writeSymbol(w, r.symbol);
    w.str(r.via);
    writeCorners(w, r.corners);
  }
}

void writeDots(dcwasm::WireWriter& w, const std::vector<dc::TraceDot>& dots) {
  w.u32(static_cast<uint32_t>(dots.size()));
  for (const auto& d : dots) {
    w.f32(d.x);
    w.f32(d.y);
    w.f32(d.d);
  }
}

void writeRegion(dcwasm::WireWriter& w, int x0, int y0, int x1, int y1) {
  w.i32(x0);
  w.i32(y0);
  w.i32(x1);
  w.i32(y1);
}

void writeTrace(dcwasm::WireWriter& w, const dc::DetectorTrace& t) {
  w.u32(static_cast<uint32_t>(t.passes.size()));
  for (const auto& p : t.passes) {
    w.str(p.via);
    w.u8(p.dark ? 1 : 0);
    writeRegion(w, p.x0, p.y0, p.x1, p.y1);
    w.f32(p.scale);
    w.u8(p.deconvolving ? 1 : 0);
    writeDots(w, p.dots);
    w.u32(static_cast<uint32_t>(p.clusters.size()));
    for (const auto& c : p.clusters) w.i32s(c);
    w.u32(static_cast<uint32_t>(p.lattices.size()));
    for (const auto& l : p.lattices) {
      w.i32(l.cluster);
      w.str(l.outcome);
      writeDots(w, l.dots);
      w.i32s(l.row);
      w.i32s(l.col);
      w.i32(l.rows);
      w.i32(l.cols);
      w.f32(l.pitch);
    }
  }
  w.u32(static_cast<uint32_t>(t.hypotheses.size()));
  for (const auto& h : t.hypotheses) {
    w.i32(h.pass);
    w.i32(h.lattice);
    w.i32(h.rows);
    w.i32(h.cols);
    w.f32s(h.values);
    writeCorners(w, h.corners);
    w.str(h.outcome);
  }
  w.u32(static_cast<uint32_t>(t.windows.size()));
  for (const auto& x : t.windows) {
    writeRegion(w, x.x0, x.y0, x.x1, x.y1);
    w.u8(x.deconvolving ? 1 : 0);
    w.i32(x.read);
  }
}

// tryHarder: -1 not given (the default), 0 the fast passes only, 1 every pass, 2 every pass with
// the thorough allowances (ReadOptions::thorough).
dc::ReadOptions readOptions(int tryHarder, int maxSymbols, double timeBudgetMs) {
  dc::ReadOptions o;
  if (tryHarder >= 0) o.tryHarder = tryHarder != 0;
  o.thorough = tryHarder >= 2;
  o.maxSymbols = maxSymbols;
  o.timeBudgetMs = timeBudgetMs;
  return o;
}

dc::GreyImage greyImage(const uint8_t* grey, int width, int height) {
  dc::GreyImage image;
  image.data = grey;
  image.width = width;
  image.height = height;
  image.stride = width;
  return image;
}

}  // namespace

DC_EXPORT void* dc_alloc(uint32_t n) { return std::malloc(n ? n : 1); }
DC_EXPORT void dc_free(void* p) { std::free(p); }
DC_EXPORT const uint8_t* dc_out_ptr() { return out.bytes().data(); }
DC_EXPORT uint32_t dc_out_len() { return static_cast<uint32_t>(out.bytes().size()); }

// readImageSync: every symbol read -> out (count, then each read).
DC_EXPORT void dc_read_image(const uint8_t* grey, int width, int height, int tryHarder, int maxSymbols, double timeBudgetMs) {
  out.clear();
  writeReads(out, dc::readDotCodes(greyImage(grey, width, height), readOptions(tryHarder, maxSymbols, timeBudgetMs)));
}

// inspectImageSync: the reads, then the trace of every stage -> out.
DC_EXPORT void dc_inspect_image(const uint8_t* grey, int width, int height, int tryHarder, int maxSymbols, double timeBudgetMs) {
  dc::DetectorTrace trace;
  dc::ReadOptions options = readOptions(tryHarder, maxSymbols, timeBudgetMs);
  options.trace = &trace;
  const std::vector<dc::ReadResult> reads = dc::readDotCodes(greyImage(grey, width, height), options);
  out.clear();
  writeReads(out, reads);
  writeTrace(out, trace);
}

// decodeGrid: values are rows*cols floats already clamped to [0, 1] -> out (0, or 1 + symbol).
DC_EXPORT void dc_decode_grid(const float* values, int rows, int cols, int hasMargin, float erasureMargin) {
  dc::DotGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.value.assign(values, values + static_cast<size_t>(rows) * static_cast<size_t>(cols));
  dc::GridDecodeOptions options;
  if (hasMargin) options.erasureMargin = erasureMargin;
  out.clear();
  auto symbol = dc::decodeDotGrid(grid, options);
  out.u8(symbol ? 1 : 0);
  if (symbol) writeSymbol(out, *symbol);
}

// Video fusion (detector/frame_fusion.h), one FrameFusion per handle: createFrameFusion,
// pushFrame, resetFrameFusion of the addon. pushFrame's answer: the reads (as dc_read_image's),
// then per read its frames used and track, then the payloads seen, then the two timings.
DC_EXPORT void* dc_fusion_new(int maxFrames) { return new dc::FrameFusion(maxFrames); }
DC_EXPORT void dc_fusion_free(void* fusion) { delete static_cast<dc::FrameFusion*>(fusion); }
DC_EXPORT void dc_fusion_reset(void* fusion) { static_cast<dc::FrameFusion*>(fusion)->reset(); }

DC_EXPORT void dc_fusion_push(void* fusion, const uint8_t* grey, int width, int height, int tryHarder, int maxSymbols, double timeBudgetMs) {
  const dc::FramePush push =
      static_cast<dc::FrameFusion*>(fusion)->push(greyImage(grey, width, height), readOptions(tryHarder, maxSymbols, timeBudgetMs));
  std::vector<dc::ReadResult> reads;
  std::vector<int> framesUsed, tracks;
  for (const dc::FrameRead& r : push.reads) {
    reads.push_back(r.read);
    framesUsed.push_back(r.framesUsed);
    tracks.push_back(r.track);
  }
  out.clear();
  writeReads(out, reads);
  out.i32s(framesUsed);
  out.i32s(tracks);
  out.u32(static_cast<uint32_t>(push.seen.size()));
  for (const std::string& s : push.seen) out.str(s);
  out.f32(static_cast<float>(push.detectMs));
  out.f32(static_cast<float>(push.fuseMs));
}
