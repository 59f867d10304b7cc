#include "formats/gptq/codecount.h"

#include "base/intmath.h"

#include <array>

namespace qs {

namespace {

// Byte counts in four interleaved copies (byte i in copy i % 4), so runs of equal bytes do
// not wait on one counter.
struct ByteCounts {
    std::array<uint64_t, 256 * 4> c{};
    void add(const uint8_t* p, uint64_t n)
    {
        uint64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            ++c[size_t(p[i]) * 4];
            ++c[size_t(p[i + 1]) * 4 + 1];
            ++c[size_t(p[i + 2]) * 4 + 2];
            ++c[size_t(p[i + 3]) * 4 + 3];
        }
        for (; i < n; ++i)
            ++c[size_t(p[i]) * 4];
    }
    // Each byte holds 8 / bits codes, LSB first.
    void splitInto(int bits, std::vector<uint64_t>& counts) const
    {
        const uint32_t mask = (1u << bits) - 1u;
        for (uint32_t b = 0; b < 256; ++b) {
            const uint64_t t = c[b * 4] + c[b * 4 + 1] + c[b * 4 + 2] + c[b * 4 + 3];
            if (!t)
                continue;
            for (int sh = 0; sh < 8; sh += bits) {
                const uint32_t code = (b >> sh) & mask;
                if (code < counts.size())
                    counts[code] += t;
            }
        }
    }
};

void countByElement(const PackedLinear& p, uint64_t r0, uint64_t r1, uint64_t k0, uint64_t k1,
                    std::vector<uint64_t>& counts)
{
    for (uint64_t n = r0; n < r1; ++n)
        for (uint64_t k = k0; k < k1; ++k) {
            const uint32_t code = p.codeAt(n, k);
            if (code < counts.size())
                ++counts[code];
        }
}

// Rows [r0, r1) of a layout that packs `per` rows into each unit along N ([outer][N / per]
// units of `wordBytes`: AWQ GEMM words, Marlin tiles): the whole words of the block's rows as bytes, the rows sharing a
// word with rows outside the block element by element.
void countAlongN(const PackedLinear& p, uint64_t r0, uint64_t r1, uint64_t per, uint64_t outer, uint64_t wordBytes,
                 ByteCounts& bytes, std::vector<uint64_t>& counts)
{
    const uint64_t w0 = ceilDiv(r0, per), w1 = r1 / per;
    if (w0 >= w1) {
        countByElement(p, r0, r1, 0, p.K, counts);
        return;
    }
    const uint64_t rowWords = p.N / per;
    for (uint64_t o = 0; o < outer; ++o)
        bytes.add(p.qweight.data() + (o * rowWords + w0) * wordBytes, (w1 - w0) * wordBytes);
    countByElement(p, r0, w0 * per, 0, p.K, counts);
    countByElement(p, w1 * per, r1, 0, p.K, counts);
}

} // namespace

void countCodes(const PackedLinear& p, uint64_t r0, uint64_t r1, std::vector<uint64_t>& counts)
{
    if (r0 >= r1)
        return;
    ByteCounts bytes;
    int byteBits = 0; // the code width the byte counts hold; 0: none
    switch (p.kind) {
    case PackedKind::Gptq:
        if (p.bits == 2 || p.bits == 4 || p.bits == 8) {
            // qweight [K*b/32, N]: word row w holds k in [w*32/b, (w+1)*32/b) of every column.
            const uint64_t perWord = uint64_t(32 / p.bits), fullRows = p.K / perWord;
            for (uint64_t w = 0; w < fullRows; ++w)
                bytes.add(p.qweight.data() + (w * p.N + r0) * 4, (r1 - r0) * 4);
            countByElement(p, r0, r1, fullRows * perWord, p.K, counts);
            byteBits = p.bits;
        } else {
            countByElement(p, r0, r1, 0, p.K, counts);
        }
        break;
    case PackedKind::AwqGemm: // [K, N/8] words of 8 rows
        countAlongN(p, r0, r1, 8, p.K, 4, bytes, counts);
        byteBits = 4;
        break;
    case PackedKind::AwqGemvFast: {
        // [N/4, K] int16: row group g's K words (a permutation of k) hold rows 4g .. 4g+3.
        const uint64_t g0 = ceilDiv(r0, 4), g1 = r1 / 4;
        if (g0 < g1) {
            bytes.add(p.qweight.data() + g0 * p.K * 2, (g1 - g0) * p.K * 2);
            countByElement(p, r0, g0 * 4, 0, p.K, counts);
            countByElement(p, g1 * 4, r1, 0, p.K, counts);
        } else {
            countByElement(p, r0, r1, 0, p.K, counts);
        }
        byteBits = 4;
        break;
    }
    case PackedKind::AwqGemv: {
        // [N, ceil(K/8)] words along K: the whole words of each row, its padded last word by element.
        const uint64_t rowWords = ceilDiv(p.K, 8), full = p.K / 8;
        for (uint64_t n = r0; n < r1; ++n)
            bytes.add(p.qweight.data() + n * rowWords * 4, full * 4);
        countByElement(p, r0, r1, full * 8, p.K, counts);
        byteBits = 4;
        break;
    }
    case PackedKind::Marlin:
        // [K/16, N*b/2] words: the 16 x 64 tile of k-tile row kt and columns 64c .. 64c+63 is
        // the 32*b words from kt * N*b/2 + 32*b*c on (spec B.4).
        countAlongN(p, r0, r1, 64, p.K / 16, 128 * uint64_t(p.bits), bytes, counts);
        byteBits = p.bits;
        break;
    case PackedKind::GptqPlanar: countByElement(p, r0, r1, 0, p.K, counts); break;
    }
    if (byteBits)
        bytes.splitInto(byteBits, counts);
}

} // namespace qs
