#pragma once
// The code structure of the ggml block types whose values are a function of a small code
// within a group of a block (an affine or table function per sub-block): for each group the
// value of every code, computed once with the reference dequantizer's own float operations,
// and each element's code. Statistics count codes instead of dequantizing (formats/ggml/codestats.h).
#include <cstdint>

namespace qs {

struct GgmlCodeShape {
    uint32_t groupWeights = 0; // consecutive elements sharing one value table
    uint32_t codes = 0; // table entries per group (a power of two, >= 4)
    uint32_t groups = 0; // groups per block
};

// Q4_0, Q4_1, Q4_K, IQ4_NL and IQ4_XS: 4-bit codes in 32-weight groups, the types with an AVX2
// code counter (for the others, dequantizing and scanning is faster); false for the rest.
bool ggmlCodeShape(int ggmlType, GgmlCodeShape& shape);

// One block of a type ggmlCodeShape accepts: values[g * codes + c] is the value code c takes
// in group g, bit for bit what dequantizeGgmlRowsRef writes for an element of group g holding
// code c; codes[e] is the code of element e (its group is e / groupWeights).
void ggmlBlockCodes(int ggmlType, const uint8_t* block, float* values, uint8_t* codes);

} // namespace qs
