// AVX-512 block FP4 rows: sixteen codes from eight bytes (nibbleLanes16), their E2M1 values by
// one vpermps from the 16-entry table, times the block's scale (a 16-code vector never crosses a
// block of 16 or 32): the reference's one multiply. A row's block scales are decoded sixteen at a
// time first, bit for bit as Fp4Blocks::blockScale: E8M0 byte e as the f32 bits e << 23 (255 gives
// +inf), 0x00400000 for e = 0; NVFP4's E4M3 bytes through base/fp8_avx512.h with weight_scale_2
// folded into the conversion's one multiply where 256 times it is exact. A row's last blocks and
// columns short of a vector go element by element.
#include "formats/blockfloat/blockfloat.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX512

#include "base/fp8_avx512.h"
#include "base/nibble_avx512.h"

namespace qs {

namespace {

void rowScalesAvx512(const Fp4Blocks& s, uint64_t n, float* out)
{
    const uint8_t* bytes = s.scales.data() + n * s.blocksPerRow;
    const uint64_t whole = s.blocksPerRow / 16 * 16;
    if (s.scaleKind == Fp4Blocks::Scale::E8M0) {
        for (uint64_t b = 0; b < whole; b += 16) {
            const __m512i e = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + b)));
            const __mmask16 zero = _mm512_testn_epi32_mask(e, e);
            _mm512_storeu_ps(out + b,
                             _mm512_castsi512_ps(
                                 _mm512_mask_mov_epi32(_mm512_slli_epi32(e, 23), zero, _mm512_set1_epi32(0x00400000))));
        }
    } else if (std::fabs(s.global) < 0x1p120f || std::isinf(s.global)) { // 256 * global exact, not NaN
        const __m512 g256 = _mm512_set1_ps(256.0f * s.global);
        for (uint64_t b = 0; b < whole; b += 16)
            _mm512_storeu_ps(out + b,
                             f8e4m3x16Scaled(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + b)), g256));
    } else {
        const __m512 g = _mm512_set1_ps(s.global);
        for (uint64_t b = 0; b < whole; b += 16)
            _mm512_storeu_ps(out + b,
                             _mm512_mul_ps(f8e4m3x16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + b))), g));
    }
    for (uint64_t b = whole; b < s.blocksPerRow; ++b)
        out[b] = s.blockScale(n, b);
}

} // namespace

void fp4RowsAvx512(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out)
{
    thread_local std::vector<float> scales;
    scales.resize(s.blocksPerRow);
    const __m512 table = _mm512_loadu_ps(s.values);
    const uint64_t blocks = s.cols / s.blockSize; // whole blocks; block sizes (16, 32) are whole vectors
    for (uint64_t n = r0; n < r1; ++n) {
        rowScalesAvx512(s, n, scales.data());
        const uint8_t* row = s.codes.data() + n * s.rowBytes;
        float* o = out + (n - r0) * s.cols;
        uint64_t k = 0;
        for (uint64_t b = 0; b < blocks; ++b) {
            const __m512 scale = _mm512_set1_ps(scales[b]);
            for (const uint64_t end = k + s.blockSize; k < end; k += 16)
                _mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_permutexvar_ps(nibbleLanes16(row + k / 2), table), scale));
        }
        for (; k < s.cols; ++k)
            o[k] = s.values[s.code(n, k)] * scales[k / s.blockSize];
    }
}

} // namespace qs

QS_TIER_END
