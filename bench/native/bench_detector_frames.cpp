// The detector on greyscale frames saved as binary PGM (P5) files, for stable instruction counts
// (valgrind --tool=callgrind) and wall-time medians outside Node, and for comparing two builds'
// results on a fixed image set (bench/dump-detector-frames.ts writes such a set).
//
//   bench_detector_frames [--runs N] [--fast | --thorough] [--budget MS] [--cpu] file.pgm...
//
// Per file, one line: the name, the median wall time over N calls (ms; --cpu: the thread's CPU
// time, which waits for a busy core do not inflate), and every symbol read
// (via, text bytes as hex, corners rounded to 0.1 px); the line is the same for the same
// detector, so two builds' outputs can be diffed (--runs 1 and a lifted budget make the list
// independent of the machine's load: only the time column then differs).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <ctime>
#include <string>
#include <vector>

#include "detector/dotcode_reader.h"

namespace {

// A P5 PGM with maxval 255 (what the dumper writes); false on anything else.
bool readPgm(const char* path, std::vector<uint8_t>& pixels, int& width, int& height) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string magic;
  int maxval = 0;
  in >> magic >> width >> height >> maxval;
  if (magic != "P5" || width <= 0 || height <= 0 || maxval != 255) return false;
  in.get();  // the single whitespace before the raster
  pixels.resize(static_cast<size_t>(width) * height);
  in.read(reinterpret_cast<char*>(pixels.data()), static_cast<std::streamsize>(pixels.size()));
  return static_cast<size_t>(in.gcount()) == pixels.size();
}

double nowMs(bool cpu) {
  if (!cpu) return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 1;
  bool cpu = false;
  dc::ReadOptions options;
  options.timeBudgetMs = 1e6;  // no run cut short by load: results depend on the image only
  std::vector<const char*> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--fast"))
      options.tryHarder = false;
    else if (!std::strcmp(argv[i], "--thorough"))
      options.thorough = true;
    else if (!std::strcmp(argv[i], "--cpu"))
      cpu = true;
    else if (!std::strcmp(argv[i], "--budget") && i + 1 < argc)
      options.timeBudgetMs = std::atof(argv[++i]);
    else
      files.push_back(argv[i]);
  }
  std::vector<uint8_t> pixels;
  int failures = 0;
  for (const char* file : files) {
    int w = 0, h = 0;
    if (!readPgm(file, pixels, w, h)) {
      std::fprintf(stderr, "%s: not a P5 PGM with maxval 255\n", file);
      ++failures;
      continue;
    }
    const dc::GreyImage img{pixels.data(), w, h, w};
    std::vector<double> ms;
    std::vector<dc::ReadResult> results;
    for (int r = 0; r < runs; ++r) {
      const double t0 = nowMs(cpu);
      results = dc::readDotCodes(img, options);
      ms.push_back(nowMs(cpu) - t0);
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    const char* name = std::strrchr(file, '/') ? std::strrchr(file, '/') + 1 : file;
    std::printf("%s %.3f", name, ms[ms.size() / 2]);
    for (const dc::ReadResult& res : results) {
      std::printf(" | %s %s", res.via.c_str(), hex(res.symbol.bytes).c_str());
      for (const dc::PointF& p : res.corners) std::printf(" %.1f,%.1f", p.x, p.y);
    }
    std::printf("\n");
  }
  return failures ? 1 : 0;
}
