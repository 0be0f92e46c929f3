// The DotCode data layer (FORMAT.md section 8): unmasked data codewords -> bytes and flags.
#pragma once
#include <vector>

#include "dotcode/dotcode_symbol.h"

namespace dc {

// Decodes data codewords 1..ND-1 (mask word excluded, already unmasked, values 0..112) into
// out.bytes, gs1, ecis (and eciSegments), structured append, readerInit, macro and symbologyId. Returns false
// (leaving `out` in an unspecified state) when the stream is not a valid DotCode message, e.g.
// a digit group out of range or a truncated ECI: such a symbol is rejected, never guessed at.
bool decodeDataCodewords(const std::vector<int>& data, DotCodeSymbol& out);

}  // namespace dc
