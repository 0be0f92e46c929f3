// DotCode codeword <-> 9-dot pattern table (FORMAT.md section 4).
// Values 0..112 are "5 of 9" patterns; the table is generated from the ordering rule rather than
// typed in, and a unit test compares it against the table printed in FORMAT.md.
#pragma once

namespace dc {

// Pattern (9 bits, first stream bit = most significant) of codeword value 0..112; -1 if out of range.
int codewordPattern(int value);

// Codeword value of a 9-bit pattern, or -1 when the pattern is not a valid codeword (wrong number
// of dots, or one of the 13 unused 5-of-9 patterns). -1 means: erase this slot.
int codewordValue(int pattern9);

}  // namespace dc
