// Placeholder until the detector lands (issue 4): no symbol is found yet.
#include "detector/dotcode_reader.h"

namespace dc {
std::vector<ReadResult> readDotCodes(const GreyImage&, const ReadOptions&) { return {}; }
}  // namespace dc
