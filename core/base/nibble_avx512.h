#pragma once
// The 4-bit lookups of the AVX-512 kernels (GPTQ, AWQ, compressed-tensors): a code selects its value from a
// 16-entry table (the reference's own results for codes 0..15 of one row and group) with one
// vpermps, which reads bits 0..3 of each index lane, so a code shifted into its lane needs no
// mask. Only inside an AVX-512 tier region (base/simd_tier.h).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

// Sixteen codes from the LSB-first nibbles of the 8 bytes at src (code i: bits 4i..4i+3), each
// moved to the bottom of its lane by one VBMI multishift.
inline __m512i nibbleLanes16(const uint8_t* src)
{
    // Qword lane q holds lanes 2q and 2q + 1: their low bytes take bits 8q and 8q + 4.
    const __m512i offsets =
        _mm512_set_epi64(0x0000003C00000038, 0x0000003400000030, 0x0000002C00000028, 0x0000002400000020,
                         0x0000001C00000018, 0x0000001400000010, 0x0000000C00000008, 0x0000000400000000);
    uint64_t w;
    std::memcpy(&w, src, 8);
    return _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(w)));
}

} // namespace
} // namespace qs
