#pragma once
// The code histogram of weightHistograms, a row block at a time: for the layouts whose
// words hold whole codes of the block's rows only (GPTQ 2/4/8-bit, AWQ GEMM, GEMV,
// GEMV_FAST), a byte histogram of those words split into the codes each byte holds (counting
// needs no order); every other element (Marlin tiles, 3-bit streams, rows that share a word
// with rows outside the block, padding words) through PackedLinear::codeAt.
#include "kernels/gptq.h"

#include <cstdint>
#include <vector>

namespace qs {

// counts[c] += the number of elements of rows [r0, r1) whose code is c; counts holds 2^bits
// entries (codes outside it are ignored). p must be validated (describePacked does).
void countCodes(const PackedLinear& p, uint64_t r0, uint64_t r1, std::vector<uint64_t>& counts);

} // namespace qs
