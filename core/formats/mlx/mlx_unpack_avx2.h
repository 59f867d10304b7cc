#pragma once
// Eight consecutive b-bit codes of an LSB-first bitstream (b = 1..8), starting at bit 0 of
// byte p, as eight 32-bit lanes: lane i takes the 4 bytes from byte (b*i)/8 (vpshufb on the
// broadcast 16 bytes) and shifts right by (b*i)%8. Reads 16 bytes from p: callers check.
// Only inside a tier region (base/simd_tier.h).
#include <immintrin.h>

#include <cstdint>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

struct Unpack8 {
    __m256i shuffle, shifts, mask;
    explicit Unpack8(int b)
    {
        alignas(32) int8_t sh[32];
        alignas(32) int32_t sv[8];
        for (int i = 0; i < 8; ++i) {
            const int bit = b * i;
            for (int j = 0; j < 4; ++j) {
                sh[4 * i + j] = static_cast<int8_t>(bit / 8 + j);
            }
            sv[i] = bit % 8;
        }
        // vpshufb indexes within each 128-bit lane; both lanes hold the same 16 bytes.
        shuffle = _mm256_load_si256(reinterpret_cast<const __m256i*>(sh));
        shifts = _mm256_load_si256(reinterpret_cast<const __m256i*>(sv));
        mask = _mm256_set1_epi32((1 << b) - 1);
    }
    __m256i operator()(const uint8_t* p) const
    {
        const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        return _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(v, shuffle), shifts), mask);
    }
};

} // namespace
} // namespace qs
