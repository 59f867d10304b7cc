#include "analysis/spanscan.h"

#include <cstring>

namespace qs {

uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero)
{
    uint64_t bad = 0;
    for (uint64_t a = 0, s = 0; a < n; a += span, ++s) {
        const uint64_t end = n - a > span ? a + span : n;
        uint32_t any = 0;
        for (uint64_t i = a; i < end; ++i) {
            uint32_t b;
            std::memcpy(&b, v + i, 4);
            b &= 0x7FFFFFFFu;
            bad += b >= 0x7F800000u;
            any |= b;
        }
        zero[s] = any == 0;
    }
    return bad;
}

uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero, SimdPath path)
{
    using ScanFn = uint64_t (*)(const float*, uint64_t, uint64_t, uint8_t*);
    const ScanFn scan = simdKernel(path, SimdKernels<ScanFn>{QS_X86(avx512::scanSpans), QS_X86(avx2::scanSpans)});
    return (scan ? scan : static_cast<ScanFn>(scanSpans))(v, n, span, zero);
}

} // namespace qs
