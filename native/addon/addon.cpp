// N-API glue: converts between JavaScript values and the native engine's types. No decoding
// logic lives here. Every entry point catches everything: the addon must never take the process down.
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>

#include "addon/jpeg_grey.h"
#include "addon/webp_grey.h"
#include "detector/dotcode_reader.h"
#include "detector/frame_fusion.h"
#include "dotcode/dotcode_symbol.h"

namespace {

Napi::Object symbolToJs(Napi::Env env, const dc::DotCodeSymbol& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("bytes", Napi::Buffer<char>::Copy(env, s.bytes.data(), s.bytes.size()));
  o.Set("gs1", Napi::Boolean::New(env, s.gs1));
  Napi::Array ecis = Napi::Array::New(env, s.ecis.size());
  for (size_t i = 0; i < s.ecis.size(); ++i) ecis.Set(static_cast<uint32_t>(i), Napi::Number::New(env, s.ecis[i]));
  o.Set("ecis", ecis);
  // Each ECI with the offset into `bytes` from which it applies, so JS can decode per segment.
  Napi::Array segs = Napi::Array::New(env, s.eciSegments.size());
  for (size_t i = 0; i < s.eciSegments.size(); ++i) {
    Napi::Object seg = Napi::Object::New(env);
    seg.Set("offset", Napi::Number::New(env, static_cast<double>(s.eciSegments[i].offset)));
    seg.Set("eci", Napi::Number::New(env, s.eciSegments[i].eci));
    segs.Set(static_cast<uint32_t>(i), seg);
  }
  o.Set("eciSegments", segs);
  if (s.structuredAppendCount > 0) {
    Napi::Object sa = Napi::Object::New(env);
    sa.Set("index", Napi::Number::New(env, s.structuredAppendIndex));
    sa.Set("count", Napi::Number::New(env, s.structuredAppendCount));
    sa.Set("fileId", s.structuredAppendFileId >= 0 ? Napi::Value(Napi::Number::New(env, s.structuredAppendFileId)) : env.Null());
    o.Set("structuredAppend", sa);
  } else {
    o.Set("structuredAppend", env.Null());
  }
  o.Set("readerInit", Napi::Boolean::New(env, s.readerInit));
  o.Set("macro", s.macro.empty() ? env.Null() : Napi::Value(Napi::String::New(env, s.macro)));
  o.Set("symbologyId", Napi::String::New(env, s.symbologyId));
  o.Set("rows", Napi::Number::New(env, s.rows));
  o.Set("cols", Napi::Number::New(env, s.cols));
  o.Set("mask", Napi::Number::New(env, s.mask));
  o.Set("errorsCorrected", Napi::Number::New(env, s.errorsCorrected));
  o.Set("erasuresCorrected", Napi::Number::New(env, s.erasuresCorrected));
  o.Set("ecBudget", Napi::Number::New(env, s.ecBudget));
  o.Set("orientation", Napi::Number::New(env, s.orientation));
  o.Set("mirrored", Napi::Boolean::New(env, s.mirrored));
  return o;
}

Napi::Array cornersToJs(Napi::Env env, const dc::PointF* corners) {
  Napi::Array arr = Napi::Array::New(env, 4);
  for (uint32_t k = 0; k < 4; ++k) {
    Napi::Object p = Napi::Object::New(env);
    p.Set("x", Napi::Number::New(env, corners[k].x));
    p.Set("y", Napi::Number::New(env, corners[k].y));
    arr.Set(k, p);
  }
  return arr;
}

Napi::Array readResultsToJs(Napi::Env env, const std::vector<dc::ReadResult>& results) {
  Napi::Array arr = Napi::Array::New(env, results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    Napi::Object o = symbolToJs(env, results[i].symbol);
    o.Set("via", Napi::String::New(env, results[i].via));
    o.Set("corners", cornersToJs(env, results[i].corners));
    arr.Set(static_cast<uint32_t>(i), o);
  }
  return arr;
}

// decodeGrid({ rows, cols, values }) -> symbol | null. values: any array-like of numbers in [0,1]
// (Float32Array, Uint8Array of 0/1, or a plain array), row-major, rows*cols long.
Napi::Value DecodeGrid(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    Napi::TypeError::New(env, "decodeGrid expects { rows, cols, values }").ThrowAsJavaScriptException();
    return env.Null();
  }
  Napi::Object in = info[0].As<Napi::Object>();
  dc::DotGrid grid;
  grid.rows = in.Get("rows").ToNumber().Int32Value();
  grid.cols = in.Get("cols").ToNumber().Int32Value();
  if (grid.rows <= 0 || grid.cols <= 0 || grid.rows > 1000 || grid.cols > 1000) return env.Null();
  Napi::Value values = in.Get("values");
  if (!values.IsObject()) {
    Napi::TypeError::New(env, "decodeGrid: values must be an array of numbers").ThrowAsJavaScriptException();
    return env.Null();
  }
  Napi::Object arr = values.As<Napi::Object>();
  const uint32_t n = static_cast<uint32_t>(grid.rows) * static_cast<uint32_t>(grid.cols);
  uint32_t length = arr.Get("length").ToNumber().Uint32Value();
  if (length != n) {
    Napi::RangeError::New(env, "decodeGrid: values.length must equal rows*cols").ThrowAsJavaScriptException();
    return env.Null();
  }
  grid.value.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    double v = arr.Get(i).ToNumber().DoubleValue();
    if (!(v >= 0)) v = 0;  // NaN and negatives count as "no dot"
    if (v > 1) v = 1;
    grid.value[i] = static_cast<float>(v);
  }
  dc::GridDecodeOptions options;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Value margin = info[1].As<Napi::Object>().Get("erasureMargin");
    if (margin.IsNumber()) options.erasureMargin = margin.As<Napi::Number>().FloatValue();
  }
  try {
    auto symbol = dc::decodeDotGrid(grid, options);
    if (!symbol) return env.Null();
    return symbolToJs(env, *symbol);
  } catch (const std::exception& e) {
    Napi::Error::New(env, std::string("decode_error:native:") + e.what()).ThrowAsJavaScriptException();
    return env.Null();
  }
}

struct ImageArgs {
  dc::GreyImage image;
  dc::ReadOptions options;
};

// Validates (grey: Uint8Array, width, height[, options]) from argument `first` on and fills args;
// throws a JS error if bad.
bool parseImageArgs(const Napi::CallbackInfo& info, ImageArgs& args, size_t first = 0) {
  Napi::Env env = info.Env();
  if (info.Length() < first + 3 || !info[first].IsTypedArray() || !info[first + 1].IsNumber() || !info[first + 2].IsNumber()) {
    Napi::TypeError::New(env, "expected (grey: Uint8Array, width: number, height: number[, options])").ThrowAsJavaScriptException();
    return false;
  }
  Napi::TypedArray ta = info[first].As<Napi::TypedArray>();
  if (ta.TypedArrayType() != napi_uint8_array && ta.TypedArrayType() != napi_uint8_clamped_array) {
    Napi::TypeError::New(env, "grey must be a Uint8Array").ThrowAsJavaScriptException();
    return false;
  }
  Napi::Uint8Array grey = info[first].As<Napi::Uint8Array>();
  // Read as doubles: Int32Value() would wrap 2^32+640 to 640 and accept a wrong size silently.
  const double w = info[first + 1].As<Napi::Number>().DoubleValue();
  const double h = info[first + 2].As<Napi::Number>().DoubleValue();
  constexpr double kMaxSide = 1 << 20;
  if (!(w >= 1 && w <= kMaxSide && w == std::floor(w)) || !(h >= 1 && h <= kMaxSide && h == std::floor(h))) {
    Napi::RangeError::New(env, "width and height must be whole numbers from 1 to 1048576").ThrowAsJavaScriptException();
    return false;
  }
  const int width = static_cast<int>(w);
  const int height = static_cast<int>(h);
  if (w * h > grey.ByteLength()) {
    Napi::RangeError::New(env, "grey is smaller than width*height").ThrowAsJavaScriptException();
    return false;
  }
  args.image.data = grey.Data();
  args.image.width = width;
  args.image.height = height;
  args.image.stride = width;
  if (info.Length() > first + 3 && info[first + 3].IsObject()) {
    Napi::Object o = info[first + 3].As<Napi::Object>();
    if (o.Get("tryHarder").IsBoolean()) args.options.tryHarder = o.Get("tryHarder").As<Napi::Boolean>().Value();
    if (o.Get("thorough").IsBoolean()) args.options.thorough = o.Get("thorough").As<Napi::Boolean>().Value();
    if (o.Get("maxSymbols").IsNumber()) args.options.maxSymbols = o.Get("maxSymbols").As<Napi::Number>().Int32Value();
    if (o.Get("timeBudgetMs").IsNumber()) {
      // Bounded so the detector's deadline arithmetic cannot overflow: at most ten minutes.
      const double t = o.Get("timeBudgetMs").As<Napi::Number>().DoubleValue();
      args.options.timeBudgetMs = t >= 0 ? std::min(t, 600000.0) : 0.0;
    }
  }
  return true;
}

// The synchronous image entry points: parse the arguments, run `read` on them, and turn any
// exception into a JS error (the addon must never take the process down).
template <class F>
Napi::Value withImageArgs(const Napi::CallbackInfo& info, F&& read) {
  Napi::Env env = info.Env();
  ImageArgs args;
  if (!parseImageArgs(info, args)) return env.Null();
  try {
    return read(env, args);
  } catch (const std::exception& e) {
    Napi::Error::New(env, std::string("decode_error:native:") + e.what()).ThrowAsJavaScriptException();
    return env.Null();
  }
}

Napi::Value ReadImageSync(const Napi::CallbackInfo& info) {
  return withImageArgs(info, [](Napi::Env env, ImageArgs& args) -> Napi::Value {
    return readResultsToJs(env, dc::readDotCodes(args.image, args.options));
  });
}

Napi::Float32Array traceDotsToJs(Napi::Env env, const std::vector<dc::TraceDot>& dots) {
  // flat [x, y, d, x, y, d, ...]: a pass can hold tens of thousands of candidates
  Napi::Float32Array a = Napi::Float32Array::New(env, dots.size() * 3);
  for (size_t i = 0; i < dots.size(); ++i) {
    a[i * 3] = dots[i].x;
    a[i * 3 + 1] = dots[i].y;
    a[i * 3 + 2] = dots[i].d;
  }
  return a;
}

// { x0, y0, x1, y1 }: a pass's region or a window, in the caller's image.
Napi::Object regionToJs(Napi::Env env, int x0, int y0, int x1, int y1) {
  Napi::Object region = Napi::Object::New(env);
  region.Set("x0", x0);
  region.Set("y0", y0);
  region.Set("x1", x1);
  region.Set("y1", y1);
  return region;
}

Napi::Object traceToJs(Napi::Env env, const dc::DetectorTrace& t) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array passes = Napi::Array::New(env, t.passes.size());
  for (size_t i = 0; i < t.passes.size(); ++i) {
    const dc::TracePass& p = t.passes[i];
    Napi::Object po = Napi::Object::New(env);
    po.Set("via", Napi::String::New(env, p.via));
    po.Set("dark", Napi::Boolean::New(env, p.dark));
    po.Set("region", regionToJs(env, p.x0, p.y0, p.x1, p.y1));
    po.Set("scale", Napi::Number::New(env, p.scale));
    po.Set("deconvolving", Napi::Boolean::New(env, p.deconvolving));
    po.Set("dots", traceDotsToJs(env, p.dots));
    Napi::Array clusters = Napi::Array::New(env, p.clusters.size());
    for (size_t c = 0; c < p.clusters.size(); ++c) {
      Napi::Int32Array idx = Napi::Int32Array::New(env, p.clusters[c].size());
      for (size_t k = 0; k < p.clusters[c].size(); ++k) idx[k] = p.clusters[c][k];
      clusters.Set(static_cast<uint32_t>(c), idx);
    }
    po.Set("clusters", clusters);
    Napi::Array lattices = Napi::Array::New(env, p.lattices.size());
    for (size_t l = 0; l < p.lattices.size(); ++l) {
      const dc::TraceLattice& tl = p.lattices[l];
      Napi::Object lo = Napi::Object::New(env);
      lo.Set("cluster", tl.cluster);
      lo.Set("outcome", Napi::String::New(env, tl.outcome));
      lo.Set("dots", traceDotsToJs(env, tl.dots));
      Napi::Int32Array rows = Napi::Int32Array::New(env, tl.row.size()), cols = Napi::Int32Array::New(env, tl.col.size());
      for (size_t k = 0; k < tl.row.size(); ++k) {
        rows[k] = tl.row[k];
        cols[k] = tl.col[k];
      }
      lo.Set("row", rows);
      lo.Set("col", cols);
      lo.Set("rows", tl.rows);
      lo.Set("cols", tl.cols);
      lo.Set("pitch", Napi::Number::New(env, tl.pitch));
      lattices.Set(static_cast<uint32_t>(l), lo);
    }
    po.Set("lattices", lattices);
    passes.Set(static_cast<uint32_t>(i), po);
  }
  o.Set("passes", passes);
  Napi::Array hyps = Napi::Array::New(env, t.hypotheses.size());
  for (size_t i = 0; i < t.hypotheses.size(); ++i) {
    const dc::TraceHypothesis& h = t.hypotheses[i];
    Napi::Object ho = Napi::Object::New(env);
    ho.Set("pass", h.pass);
    ho.Set("lattice", h.lattice);
    ho.Set("rows", h.rows);
    ho.Set("cols", h.cols);
    Napi::Float32Array v = Napi::Float32Array::New(env, h.values.size());
    for (size_t k = 0; k < h.values.size(); ++k) v[k] = h.values[k];
    ho.Set("values", v);
    ho.Set("corners", cornersToJs(env, h.corners));
    ho.Set("outcome", Napi::String::New(env, h.outcome));
    hyps.Set(static_cast<uint32_t>(i), ho);
  }
  o.Set("hypotheses", hyps);
  Napi::Array windows = Napi::Array::New(env, t.windows.size());
  for (size_t i = 0; i < t.windows.size(); ++i) {
    const dc::TraceWindow& w = t.windows[i];
    Napi::Object wo = Napi::Object::New(env);
    wo.Set("region", regionToJs(env, w.x0, w.y0, w.x1, w.y1));
    wo.Set("deconvolving", Napi::Boolean::New(env, w.deconvolving));
    wo.Set("read", w.read);
    windows.Set(static_cast<uint32_t>(i), wo);
  }
  o.Set("windows", windows);
  return o;
}

// inspectImageSync(grey, width, height[, options]) -> { results, passes, hypotheses }: the same
// read as readImageSync with what every stage saw (dotcode inspect).
Napi::Value InspectImageSync(const Napi::CallbackInfo& info) {
  return withImageArgs(info, [](Napi::Env env, ImageArgs& args) -> Napi::Value {
    dc::DetectorTrace trace;
    args.options.trace = &trace;
    const std::vector<dc::ReadResult> results = dc::readDotCodes(args.image, args.options);
    Napi::Object o = traceToJs(env, trace);
    o.Set("results", readResultsToJs(env, results));
    return o;
  });
}

// Runs the detector on the libuv pool; keeps a reference to the pixel buffer while it works.
// Runs `work` on a libuv thread and settles a promise with `toJs` of its result (a thrown C++
// exception becomes decode_error:native:...). `keep` stays referenced until then: the grey plane,
// and for a fusion push its handle.
template <class Result>
class PromiseWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<Result()>;
  using ToJs = std::function<Napi::Value(Napi::Env, const Result&)>;
  PromiseWorker(Napi::Env env, std::initializer_list<Napi::Value> keep, Work work, ToJs toJs)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), toJs_(std::move(toJs)) {
    for (const Napi::Value& v : keep) kept_.push_back(Napi::Persistent(v));
  }
  // Queues the worker (which deletes itself when done) and returns its promise.
  Napi::Promise start() {
    Napi::Promise promise = deferred_.Promise();
    Queue();
    return promise;
  }

  void Execute() override {
    try {
      result_ = work_();
    } catch (const std::exception& e) {
      SetError(std::string("decode_error:native:") + e.what());
    } catch (...) {
      SetError("decode_error:native:unknown");
    }
  }
  void OnOK() override { deferred_.Resolve(toJs_(Env(), result_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::vector<Napi::Reference<Napi::Value>> kept_;
  Work work_;
  ToJs toJs_;
  Result result_{};
};

Napi::Value ReadImage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ImageArgs args;
  if (!parseImageArgs(info, args)) return env.Null();
  return (new PromiseWorker<std::vector<dc::ReadResult>>(
              env, {info[0]}, [args] { return dc::readDotCodes(args.image, args.options); }, readResultsToJs))
      ->start();
}

// The arguments of the image decoders, (bytes: Uint8Array, grey: Uint8Array) (or Buffers); false
// with a TypeError thrown otherwise.
bool decoderArgs(const Napi::CallbackInfo& info) {
  auto isBytes = [](const Napi::Value& v) { return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array; };
  if (info.Length() >= 2 && isBytes(info[0]) && isBytes(info[1])) return true;
  Napi::TypeError::New(info.Env(), "expected (bytes: Uint8Array, grey: Uint8Array)").ThrowAsJavaScriptException();
  return false;
}

// An image decoder's answer: null when the plane was written, else why it refused.
Napi::Value refusalToJs(Napi::Env env, const char* refused) { return refused ? Napi::Value(Napi::String::New(env, refused)) : env.Null(); }

// jpegToGrey(bytes, grey) -> Promise<null | refusal> on the libuv pool (addon/jpeg_grey.h): the
// plane is written into `grey`, which the caller allocates at the size its header names, so it
// is ordinary JS memory (movable to a worker thread). jpegAvailable() tells whether libjpeg was
// found, so the engine asks only where the answer can be a plane.
Napi::Value JpegToGrey(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!decoderArgs(info)) return env.Null();
  Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
  Napi::Uint8Array grey = info[1].As<Napi::Uint8Array>();
  const uint8_t* in = bytes.Data();
  const size_t inSize = bytes.ByteLength();
  uint8_t* out = grey.Data();
  const size_t outSize = grey.ByteLength();
  return (new PromiseWorker<const char*>(
              env, {info[0], info[1]}, [in, inSize, out, outSize] { return dcjpeg::decode(in, inSize, out, outSize); },
              refusalToJs))
      ->start();
}

Napi::Value JpegAvailable(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), dcjpeg::available()); }

// webpToGreySync(bytes, grey) -> null | refusal, in the calling thread (addon/webp_grey.h): the
// engine asks only for small WebPs, which take about a millisecond (a hop to the libuv pool
// would cost a fair share of that). `grey` is allocated by the caller at the size the header
// names. webpAvailable() tells whether libwebp was found.
Napi::Value WebpToGreySync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!decoderArgs(info)) return env.Null();
  Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
  Napi::Uint8Array grey = info[1].As<Napi::Uint8Array>();
  return refusalToJs(env, dcwebp::decode(bytes.Data(), bytes.ByteLength(), grey.Data(), grey.ByteLength()));
}

Napi::Value WebpAvailable(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), dcwebp::available()); }

// Video fusion (detector/frame_fusion.h): createFrameFusion(maxFrames) -> handle;
// pushFrame(handle, grey, width, height[, options]) -> Promise<{ reads, seen, detectMs, fuseMs }>
// (runs on the libuv pool; the caller must not push the same handle twice at once);
// resetFrameFusion(handle). The handle owns the tracks; the garbage collector frees it.
Napi::Value CreateFrameFusion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int maxFrames = 12;
  if (info.Length() > 0 && info[0].IsNumber()) maxFrames = info[0].As<Napi::Number>().Int32Value();
  auto* fusion = new dc::FrameFusion(maxFrames);
  return Napi::External<dc::FrameFusion>::New(env, fusion, [](Napi::Env, dc::FrameFusion* f) { delete f; });
}

dc::FrameFusion* fusionOf(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsExternal()) {
    Napi::TypeError::New(info.Env(), "expected a frame fusion handle").ThrowAsJavaScriptException();
    return nullptr;
  }
  return info[0].As<Napi::External<dc::FrameFusion>>().Data();
}

Napi::Object framePushToJs(Napi::Env env, const dc::FramePush& push) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array reads = Napi::Array::New(env, push.reads.size());
  for (size_t i = 0; i < push.reads.size(); ++i) {
    const dc::FrameRead& r = push.reads[i];
    Napi::Object ro = symbolToJs(env, r.read.symbol);
    ro.Set("via", Napi::String::New(env, r.read.via));
    ro.Set("corners", cornersToJs(env, r.read.corners));
    ro.Set("framesUsed", Napi::Number::New(env, r.framesUsed));
    ro.Set("track", Napi::Number::New(env, r.track));
    reads.Set(static_cast<uint32_t>(i), ro);
  }
  o.Set("reads", reads);
  Napi::Array seen = Napi::Array::New(env, push.seen.size());
  for (size_t i = 0; i < push.seen.size(); ++i)
    seen.Set(static_cast<uint32_t>(i), Napi::Buffer<char>::Copy(env, push.seen[i].data(), push.seen[i].size()));
  o.Set("seen", seen);
  o.Set("detectMs", Napi::Number::New(env, push.detectMs));
  o.Set("fuseMs", Napi::Number::New(env, push.fuseMs));
  return o;
}

// pushFrame(handle, grey, width, height[, options]): the image arguments as readImage's, after the handle.
Napi::Value PushFrame(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  dc::FrameFusion* fusion = fusionOf(info);
  if (!fusion) return env.Null();
  ImageArgs args;
  if (!parseImageArgs(info, args, 1)) return env.Null();
  return (new PromiseWorker<dc::FramePush>(
              env, {info[0], info[1]}, [fusion, args] { return fusion->push(args.image, args.options); }, framePushToJs))
      ->start();
}

Napi::Value ResetFrameFusion(const Napi::CallbackInfo& info) {
  dc::FrameFusion* fusion = fusionOf(info);
  if (fusion) fusion->reset();
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("createFrameFusion", Napi::Function::New(env, CreateFrameFusion));
  exports.Set("pushFrame", Napi::Function::New(env, PushFrame));
  exports.Set("resetFrameFusion", Napi::Function::New(env, ResetFrameFusion));
  exports.Set("decodeGrid", Napi::Function::New(env, DecodeGrid));
  exports.Set("readImageSync", Napi::Function::New(env, ReadImageSync));
  exports.Set("readImage", Napi::Function::New(env, ReadImage));
  exports.Set("inspectImageSync", Napi::Function::New(env, InspectImageSync));
  exports.Set("jpegToGrey", Napi::Function::New(env, JpegToGrey));
  exports.Set("jpegAvailable", Napi::Function::New(env, JpegAvailable));
  exports.Set("webpToGreySync", Napi::Function::New(env, WebpToGreySync));
  exports.Set("webpAvailable", Napi::Function::New(env, WebpAvailable));
  return exports;
}

}  // namespace

NODE_API_MODULE(dotcode_native, Init)
