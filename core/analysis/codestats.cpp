#include "analysis/codestats.h"

#include "kernels/ggml.h"
#include "kernels/ggml_codes.h"

#include <cmath>
#include <cstring>

namespace qs {

void tallyCodeGroup(const float* values, const uint32_t* counts, uint32_t codes, CodeTally& t, uint32_t* split,
                    const RangeBins* range, uint64_t* rangeCounts)
{
    for (uint32_t c = 0; c < codes; ++c) {
        const uint32_t n = counts[c], l = c % CodeTally::kLanes;
        const float v = values[c];
        uint32_t u;
        std::memcpy(&u, &v, 4);
        split[valueKey(u) * kKeySplit + c % kKeySplit] += n;
        if (!n)
            continue;
        if (range)
            range->add(rangeCounts, v, n);
        if (!std::isfinite(v))
            continue;
        const uint32_t o = orderedBits(u);
        t.lo = std::min(t.lo, o);
        t.hi = std::max(t.hi, o);
        const double p = double(n) * double(v);
        t.sum[l] += p;
        t.sumSq[l] += p * double(v);
    }
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
    uint32_t counts[256];
    for (uint64_t i = 0; i < nblocks; ++i, src += blockBytes) {
        ggmlBlockCodes(type, src, values, codes);
        for (uint32_t g = 0; g < shape.groups; ++g) {
            std::memset(counts, 0, shape.codes * sizeof(uint32_t));
            const uint8_t* c = codes + g * shape.groupWeights;
            for (uint32_t e = 0; e < shape.groupWeights; ++e)
                ++counts[c[e]];
            tallyCodeGroup(values + g * shape.codes, counts, shape.codes, t, split, range, rangeCounts);
        }
    }
}

} // namespace qs
