#pragma once
// weightHistograms in the code domain: a group of a quantized block (ggml_codes.h) holds at
// most `codes` distinct values, so each group's codes are counted and each code's value is
// taken once, with its count. No float per element is written. The cost that remains is per
// code, not per element: 16 key-counter increments per 32 weights (a scalar read-modify-write
// each, through a store/reload of the indices), the bit-plane counts, and the double products
// of the sums. On AVX-512 (Zen 5, Q4_K in cache) a group takes about 29 cycles: the
// increments alone about 16 (one per cycle, the floor of an exact histogram: 0.5 cycle per
// weight, where the AVX-512 dequantization takes 0.13 in cache and about 0.3 reading the
// weights from memory), the vector work alone about 23. The value-key histogram, the
// caller's-range histogram, min and max come out identical to dequantizing and scanning every
// element (analysis/valuescan.h); the sums are formed differently (CodeTally). The AVX2 and AVX-512
// paths give the same bits as the scalar reference.
#include "base/valuekeys.h"
#include "base/simd.h"

#include <algorithm>
#include <cstdint>

namespace qs {

// `nblocks` consecutive blocks of a ggml type that ggmlCodeShape accepts, group by group:
// each code present adds its count to split[valueKey(value) * kKeySplit + code % kKeySplit]
// (NaN and Inf too, under their own keys) and to the range bins when given, and its finite
// value to the tally.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts);
// The types weightHistograms counts in the code domain: those with an AVX2 tally below (the
// scalar tally is the reference, slower than dequantizing with AVX2 and scanning; a type is
// switched on every path or none, so that all give the same bits).
bool codeDomainStats(int ggmlType);

namespace avx2 {
// The codeDomainStats types without a range: codes counted from bit planes, values formed
// 16 at a time; a block whose scales are not finite through the reference.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split);
} // namespace avx2
namespace avx512 {
// The same, 16 codes to a vector.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split);
} // namespace avx512

// The tally of `path` (the best one it has at or below it); with a range, or a type the SIMD
// tallies do not cover, the reference.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts, SimdPath path);

} // namespace qs
