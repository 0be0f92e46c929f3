// libFuzzer target: arbitrary codeword streams into the data layer, and arbitrary blocks with
// erasure lists into Reed-Solomon. Bytes are reduced mod 113 (codeword values).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "dotcode/data_decoder.h"
#include "dotcode/reed_solomon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int mode = data[0] & 1;
  std::vector<int> words;
  for (size_t i = 1; i < size; ++i) words.push_back(data[i] % 113);
  if (mode == 0) {
    dc::DotCodeSymbol s;
    dc::decodeDataCodewords(words, s);
    return 0;
  }
  // Reed-Solomon: k from the first byte, erasures from bytes whose top bit is set.
  if (words.size() > 112) words.resize(112);
  const int n = static_cast<int>(words.size());
  const int k = (data[0] >> 1) % (n > 1 ? n : 1);
  std::vector<int> erasures;
  for (size_t i = 1; i < size && static_cast<int>(i - 1) < n; ++i)
    if (data[i] & 0x80) erasures.push_back(static_cast<int>(i - 1));
  const dc::RsOutcome r = dc::rsDecode(words, k, erasures);
  if (r.ok) {
    // Accepted blocks are verified and within budget.
    if (!dc::rsSyndromesZero(words, k)) std::abort();
    if (r.cost() > k) std::abort();
  }
  return 0;
}
