// AVX2 block FP4 rows: eight codes from four bytes, their E2M1 values picked from the 16-entry
// table (select16), times the block's scale: the reference's one multiply. A row's block scales
// are decoded eight at a time first, bit for bit as Fp4Blocks::blockScale: E8M0 byte e as the f32
// bits e << 23 (2^(e - 127); 255 gives +inf), 0x00400000 for e = 0 (2^-127); NVFP4's E4M3 bytes
// through base/fp8_avx2.h times weight_scale_2, one rounding. A row's last blocks and columns short
// of a vector go element by element.
#include "formats/blockfloat/blockfloat.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX2

#include "base/fp8_avx2.h"
#include "base/select16_avx2.h"

namespace qs {

namespace {

void rowScalesAvx2(const Fp4Blocks& s, uint64_t n, float* out)
{
    const uint8_t* bytes = s.scales.data() + n * s.blocksPerRow;
    const uint64_t whole = s.blocksPerRow / 8 * 8;
    if (s.scaleKind == Fp4Blocks::Scale::E8M0) {
        const __m256i zero = _mm256_setzero_si256(), tiny = _mm256_set1_epi32(0x00400000);
        for (uint64_t b = 0; b < whole; b += 8) {
            const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + b)));
            const __m256i bits = _mm256_blendv_epi8(_mm256_slli_epi32(e, 23), tiny, _mm256_cmpeq_epi32(e, zero));
            _mm256_storeu_ps(out + b, _mm256_castsi256_ps(bits));
        }
    } else {
        const __m256 g = _mm256_set1_ps(s.global);
        for (uint64_t b = 0; b < whole; b += 8)
            _mm256_storeu_ps(out + b,
                             _mm256_mul_ps(f8e4m3x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + b))), g));
    }
    for (uint64_t b = whole; b < s.blocksPerRow; ++b)
        out[b] = s.blockScale(n, b);
}

} // namespace

void fp4RowsAvx2(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out)
{
    thread_local std::vector<float> scales;
    scales.resize(s.blocksPerRow);
    const __m256 lo = _mm256_loadu_ps(s.values), hi = _mm256_loadu_ps(s.values + 8);
    const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const uint64_t blocks = s.cols / s.blockSize; // whole blocks; block sizes (16, 32) are whole vectors
    for (uint64_t n = r0; n < r1; ++n) {
        rowScalesAvx2(s, n, scales.data());
        const uint8_t* row = s.codes.data() + n * s.rowBytes;
        float* o = out + (n - r0) * s.cols;
        uint64_t k = 0;
        for (uint64_t b = 0; b < blocks; ++b) {
            const __m256 scale = _mm256_set1_ps(scales[b]);
            for (const uint64_t end = k + s.blockSize; k < end; k += 8) {
                uint32_t w;
                std::memcpy(&w, row + k / 2, 4);
                const __m256i idx = _mm256_srlv_epi32(_mm256_set1_epi32(int(w)), shifts);
                _mm256_storeu_ps(o + k, _mm256_mul_ps(select16(lo, hi, idx), scale));
            }
        }
        for (; k < s.cols; ++k)
            o[k] = s.values[s.code(n, k)] * scales[k / s.blockSize];
    }
}

} // namespace qs

QS_TIER_END
