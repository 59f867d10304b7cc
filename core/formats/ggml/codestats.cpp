#include "formats/ggml/codestats.h"

#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_codes.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace qs {

namespace {

// One code of a group: n > 0 elements hold v.
inline void codestatsTallyCode(float v, uint32_t n, uint32_t c, CodeTally& t, uint32_t* split, const RangeBins* range,
                               uint64_t* rangeCounts)
{
    uint32_t u;
    std::memcpy(&u, &v, 4);
    split[valueKey(u) * kKeySplit + c % kKeySplit] += n;
    if (range)
        range->add(rangeCounts, v, n);
    if (!std::isfinite(v))
        return;
    const uint32_t o = orderedBits(u);
    t.lo = std::min(t.lo, o);
    t.hi = std::max(t.hi, o);
    const double p = double(n) * double(v);
    t.sum[c % CodeTally::kLanes] += p;
    t.sumSq[c % CodeTally::kLanes] += p * double(v);
}

} // namespace

bool codeDomainStats(int type)
{
    GgmlCodeShape shape;
    return ggmlCodeShape(type, shape);
}

void tallyGgmlBlocks(int type, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts)
{
    GgmlCodeShape shape;
    if (!ggmlCodeShape(type, shape))
        return;
    const uint64_t blockBytes = ggmlTypeTraits(type)->blockBytes;
    float values[1024];
    uint8_t codes[256];
    uint32_t counts[256] = {};
    for (uint64_t i = 0; i < nblocks; ++i, src += blockBytes) {
        ggmlBlockCodes(type, src, values, codes);
        for (uint32_t g = 0; g < shape.groups; ++g) {
            // Only the codes present, in ascending order (an absent code changes nothing).
            uint64_t present[4] = {0, 0, 0, 0};
            const uint8_t* c = codes + g * shape.groupWeights;
            for (uint32_t e = 0; e < shape.groupWeights; ++e) {
                ++counts[c[e]];
                present[c[e] >> 6] |= uint64_t(1) << (c[e] & 63);
            }
            const float* v = values + g * shape.codes;
            for (uint32_t w = 0; w < 4; ++w)
                for (uint64_t m = present[w]; m; m &= m - 1) {
                    const uint32_t code = w * 64 + uint32_t(std::countr_zero(m));
                    codestatsTallyCode(v[code], counts[code], code, t, split, range, rangeCounts);
                    counts[code] = 0;
                }
        }
    }
}

void tallyGgmlBlocks(int type, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts, SimdPath path)
{
    using TallyFn = void (*)(int, const uint8_t*, uint64_t, CodeTally&, uint32_t*);
    const auto tally =
        simdKernel(path, SimdKernels<TallyFn>{QS_X86(avx512::tallyGgmlBlocks), QS_X86(avx2::tallyGgmlBlocks)});
    if (!tally || range || !codeDomainStats(type))
        tallyGgmlBlocks(type, src, nblocks, t, split, range, rangeCounts);
    else
        tally(type, src, nblocks, t, split);
}

} // namespace qs
