// libFuzzer target: arbitrary dot grids into decodeDotGrid. Input bytes: rows, cols, erasure
// margin (bits 0-5), reading by reliability (bit 6), spare check words (bit 7), then one presence
// byte per position (value/255). Checks the result's invariants too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "dotcode/dotcode_symbol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  dc::DotGrid grid;
  grid.rows = data[0] % 64 + 1;  // small grids keep the fuzzer fast; sizes up to 64 x 64
  grid.cols = data[1] % 64 + 1;
  dc::GridDecodeOptions opts;
  opts.erasureMargin = (data[2] % 64) / 128.0f;
  opts.minSpareCheckWords = 1 + data[2] / 128;
  opts.byReliability = (data[2] & 64) != 0;
  const size_t n = static_cast<size_t>(grid.rows) * grid.cols;
  grid.value.resize(n, 0.0f);
  for (size_t i = 0; i < n && 3 + i < size; ++i) grid.value[i] = data[3 + i] / 255.0f;
  const auto s = dc::decodeDotGrid(grid, opts);
  if (s) {
    // A returned symbol must be self-consistent.
    if (s->rows * s->cols != grid.rows * grid.cols) std::abort();
    if (s->mask < 0 || s->mask > 3) std::abort();
    if (s->erasuresCorrected + 2 * s->errorsCorrected > s->ecBudget) std::abort();
    if (s->symbologyId.size() != 3 || s->symbologyId[0] != ']' || s->symbologyId[1] != 'J') std::abort();
  }
  return 0;
}
