#pragma once
// The code histogram of weightHistograms, a row block at a time: for the layouts whose
// words hold whole codes of the block's rows only (GPTQ 2/4/8-bit, AWQ GEMM, GEMV,
// GEMV_FAST, Marlin tiles of 64 rows), a byte histogram of those words split into the codes
// each byte holds (counting needs no order); every other element (3-bit streams, planar
// GPTQ, rows that share a word or tile with rows outside the block, padding) through
// PackedLinear::codeAt.
#include "formats/gptq/gptq.h"

#include <cstdint>
#include <vector>

namespace qs {

// counts[c] += the number of elements of rows [r0, r1) whose code is c; counts holds 2^bits
// entries (codes outside it are ignored). p must be validated (describePacked does).
void countCodes(const PackedLinear& p, uint64_t r0, uint64_t r1, std::vector<uint64_t>& counts);

} // namespace qs
