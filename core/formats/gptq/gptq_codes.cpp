// Every logical code of a PackedLinear at once (FamilyRow::codes, repack): GPTQ's bitstream
// a block of columns at a time, the other layouts through codeAt, rows in parallel.
#include "formats/gptq/gptq.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"

#include <algorithm>
#include <cstring>

namespace qs {

namespace {

// Codes of GPTQ qweight (column n: the LSB-first bitstream of row n's K codes) into
// codes[n * K + k], a block of 64 columns at a time: each word row of the block is one
// contiguous read, each column's pending bits held in a 64-bit buffer. The same codes as
// PackedLinear::codeAt (tests compare them on every fixture).
void gptqStreamCodes(const PackedLinear& p, uint8_t* codes)
{
    const uint64_t N = p.N, K = p.K, bits = uint64_t(p.bits);
    const uint64_t wordRows = ceilDiv(K * bits, 32);
    if (p.qweight.size() / 4 / wordRows < N)
        throw Error(ErrorContext{p.file},
                    p.name + ": qweight holds fewer words than " + std::to_string(wordRows) + " x "
                        + std::to_string(N));
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    runChunks(ceilDiv(N, 64), 0, nullptr, [&](uint64_t b, NoChunkState&) {
        const uint64_t n0 = b * 64, w = std::min<uint64_t>(64, N - n0);
        uint64_t acc[64] = {};
        uint64_t have = 0, k = 0;
        for (uint64_t r = 0; r < wordRows && k < K; ++r) {
            const uint8_t* row = p.qweight.data() + 4 * (r * N + n0);
            for (uint64_t j = 0; j < w; ++j) {
                uint32_t word;
                std::memcpy(&word, row + 4 * j, 4);
                acc[j] |= uint64_t(word) << have; // have < bits: room for 32 more
            }
            have += 32;
            const uint64_t ready = std::min(have / bits, K - k);
            for (uint64_t j = 0; j < w; ++j) {
                uint64_t a = acc[j];
                uint8_t* dst = codes + (n0 + j) * K + k;
                for (uint64_t i = 0; i < ready; ++i, a >>= bits)
                    dst[i] = uint8_t(a & mask);
                acc[j] = a;
            }
            have -= ready * bits;
            k += ready;
        }
    });
}

} // namespace

void packedCodes(const PackedLinear& p, uint8_t* codes)
{
    if (p.kind == PackedKind::Gptq) {
        gptqStreamCodes(p, codes);
        return;
    }
    parallelFor(p.N, true, [&](uint64_t n) { // codeAt only reads: rows are independent
        for (uint64_t k = 0; k < p.K; ++k)
            codes[n * p.K + k] = uint8_t(p.codeAt(n, k));
    });
}

} // namespace qs
