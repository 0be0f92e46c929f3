// Speed of grid -> text (decodeDotGrid: orientation, bit extraction, RS, data layer) for a symbol
// of about 40 x 60 dots. Reports the median of many timed batches. Goal (issue 3): < 50 us.
// Usage: bench_dotcode_speed [runs=2000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dotcode/dotcode_symbol.h"
#include "dotcode/symbol_layout.h"
#include "dotcode/symbol_writer.h"

namespace {

double medianMicros(const dc::DotGrid& grid, int runs, bool& ok) {
  std::vector<double> t;
  t.reserve(runs);
  const int batch = 10;
  ok = true;
  for (int r = 0; r < runs; ++r) {
    const auto a = std::chrono::steady_clock::now();
    for (int k = 0; k < batch; ++k) ok = ok && dc::decodeDotGrid(grid).has_value();
    const auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count() / batch);
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[runs / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int H = 40, W = 61;  // column layout, 1220 dots, 2 RS blocks
  const dc::SymbolLayout l = dc::layoutFor(H, W);
  std::vector<int> data{106};
  for (int i = 0; i + 1 < l.dataWords - 1; ++i) data.push_back(33 + i % 60);
  const std::vector<int> words = dc::buildCodewords(l, data, 2);
  const std::vector<uint8_t> dots = dc::placeCodewords(l, words);
  dc::DotGrid grid;
  grid.rows = H;
  grid.cols = W;
  for (uint8_t d : dots) grid.value.push_back(d ? 0.9f : 0.1f);
  bool ok1, ok2, ok3;
  const double clean = medianMicros(grid, runs, ok1);
  // Same symbol with 6 flipped dots (erasures for RS) and handed over mirrored and turned.
  dc::DotGrid damaged = grid;
  const std::vector<int> order = dc::bitOrder(H, W);
  for (int k = 0; k < 6; ++k) damaged.value[order[100 + 97 * k]] = 1.0f - damaged.value[order[100 + 97 * k]];
  const double dmg = medianMicros(damaged, runs, ok2);
  dc::DotGrid turned;
  turned.rows = W;
  turned.cols = H;
  turned.value.resize(grid.value.size());
  for (int r = 0; r < W; ++r)
    for (int c = 0; c < H; ++c) turned.value[r * H + c] = damaged.value[c * W + r];  // transpose = turn + mirror
  const double trn = medianMicros(turned, runs, ok3);
  std::printf("symbol %dx%d, %d codewords (%d data incl. mask, %d check, %d blocks)\n", H, W, l.totalWords, l.dataWords,
              l.checkWords, l.blocks);
  std::printf("clean:                      median %.1f us %s\n", clean, ok1 ? "" : "(DECODE FAILED)");
  std::printf("6 dots flipped:             median %.1f us %s\n", dmg, ok2 ? "" : "(DECODE FAILED)");
  std::printf("6 flipped, transposed grid: median %.1f us %s\n", trn, ok3 ? "" : "(DECODE FAILED)");
  return ok1 && ok2 && ok3 ? 0 : 1;
}
