// Placeholder until the decoding core lands (issue 3): no grid is a valid symbol yet.
#include "dotcode/dotcode_symbol.h"

namespace dc {
std::optional<DotCodeSymbol> decodeDotGrid(const DotGrid&, const GridDecodeOptions&) { return std::nullopt; }
}  // namespace dc
