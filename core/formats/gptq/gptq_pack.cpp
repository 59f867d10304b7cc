// Packers for GPTQ / AWQ / Marlin: every stored word is produced by the generic bitstream
// oracle (bitstream.h) from the logical codes, so a reader that agrees with these packers
// agrees with the oracle.
#include "formats/gptq/gptq.h"
#include "base/intmath.h"

#include "base/bitstream.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace qs {

namespace {

void checkSize(size_t got, uint64_t want, const char* what)
{
    if (got != want)
        throw std::invalid_argument(std::string("pack: ") + what + " has " + std::to_string(got) + " entries, expected "
                                    + std::to_string(want));
}

PackedTensor rawTensor(const void* data, size_t bytes, std::vector<uint64_t> shape)
{
    PackedTensor t;
    t.bytes.resize(bytes);
    if (bytes)
        std::memcpy(t.bytes.data(), data, bytes);
    t.shape = std::move(shape);
    return t;
}

// Words of a stream (or planar planes) of `codes`, as 32-bit values.
std::vector<uint32_t> wordsOf(const std::vector<uint8_t>& bytes)
{
    std::vector<uint32_t> w(bytes.size() / 4);
    std::memcpy(w.data(), bytes.data(), w.size() * 4);
    return w;
}

// Packs a sequence along the packed axis: continuous bitstream, or planar (B.1.6: per 32
// codes, each plane's bits packed with natural slots, low plane first).
std::vector<uint32_t> packAxis(const std::vector<uint8_t>& codes, int bits, bool planar)
{
    if (!planar)
        return wordsOf(bitstream::packStream(codes, bits, 32));
    std::vector<uint32_t> words;
    for (size_t c = 0; c < codes.size(); c += 32) {
        int offset = 0;
        for (int w : gptqPlanes(bits)) {
            std::vector<uint8_t> plane(32);
            for (size_t j = 0; j < 32; ++j)
                plane[j] = uint8_t((codes[c + j] >> offset) & ((1u << w) - 1u));
            const std::vector<uint32_t> pw = wordsOf(bitstream::packSlots(plane, w, 32));
            words.insert(words.end(), pw.begin(), pw.end());
            offset += w;
        }
    }
    return words;
}

} // namespace

PackedOutput packGptq(std::span<const uint8_t> codes, std::span<const int32_t> zeros, std::span<const uint16_t> scales,
                      int bits, uint64_t K, uint64_t N, uint64_t groups, bool v1, bool planar)
{
    checkSize(codes.size(), K * N, "codes");
    checkSize(zeros.size(), groups * N, "zeros");
    checkSize(scales.size(), groups * N, "scales");
    if (planar && (K % 32 || N % 32))
        throw std::invalid_argument("pack: planar GPTQ needs K and N multiples of 32");
    PackedOutput out;
    const uint64_t rows = ceilDiv(K * uint64_t(bits), 32);
    std::vector<uint32_t> qweight(rows * N, 0);
    for (uint64_t n = 0; n < N; ++n) {
        const std::vector<uint8_t> column(codes.begin() + std::ptrdiff_t(n * K),
                                          codes.begin() + std::ptrdiff_t((n + 1) * K));
        const std::vector<uint32_t> words = packAxis(column, bits, planar);
        for (uint64_t r = 0; r < rows; ++r)
            qweight[r * N + n] = words[r];
    }
    out.qweight = rawTensor(qweight.data(), qweight.size() * 4, {rows, N});
    const uint64_t zcols = ceilDiv(N * uint64_t(bits), 32);
    std::vector<uint32_t> qzeros;
    for (uint64_t g = 0; g < groups; ++g) {
        std::vector<uint8_t> fields(N);
        for (uint64_t n = 0; n < N; ++n) {
            const int32_t z = zeros[g * N + n] - (v1 ? 1 : 0);
            if (z < 0 || z >= (1 << bits))
                throw std::invalid_argument("pack: zero " + std::to_string(zeros[g * N + n]) + " at group "
                                            + std::to_string(g) + ", column " + std::to_string(n)
                                            + (v1 ? " cannot be stored as GPTQ v1 (z - 1)" : " does not fit"));
            fields[n] = uint8_t(z);
        }
        const std::vector<uint32_t> words = packAxis(fields, bits, planar);
        qzeros.insert(qzeros.end(), words.begin(), words.begin() + std::ptrdiff_t(zcols));
    }
    out.qzeros = rawTensor(qzeros.data(), qzeros.size() * 4, {groups, zcols});
    out.scales = rawTensor(scales.data(), scales.size() * 2, {groups, N});
    return out;
}

PackedOutput packAwqGemm(std::span<const uint8_t> codes, std::span<const int32_t> zeros,
                         std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize)
{
    static constexpr int awqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    const uint64_t groups = ceilDiv(K, groupSize);
    checkSize(codes.size(), K * N, "codes");
    checkSize(zeros.size(), groups * N, "zeros");
    checkSize(scales.size(), groups * N, "scales");
    if (N % 8)
        throw std::invalid_argument("pack: AWQ needs N a multiple of 8");
    PackedOutput out;
    std::vector<uint8_t> qweight;
    for (uint64_t k = 0; k < K; ++k) {
        std::vector<uint8_t> row(N);
        for (uint64_t n = 0; n < N; ++n)
            row[n] = codes[n * K + k];
        const std::vector<uint8_t> b = bitstream::packSlots(row, 4, 32, awqOrder);
        qweight.insert(qweight.end(), b.begin(), b.end());
    }
    out.qweight = {std::move(qweight), {K, N / 8}};
    std::vector<uint8_t> qzeros;
    for (uint64_t g = 0; g < groups; ++g) {
        std::vector<uint8_t> row(N);
        for (uint64_t n = 0; n < N; ++n)
            row[n] = uint8_t(zeros[g * N + n]);
        const std::vector<uint8_t> b = bitstream::packSlots(row, 4, 32, awqOrder);
        qzeros.insert(qzeros.end(), b.begin(), b.end());
    }
    out.qzeros = {std::move(qzeros), {groups, N / 8}};
    out.scales = rawTensor(scales.data(), scales.size() * 2, {groups, N});
    return out;
}

uint64_t awqGemvZeroWords(uint64_t K, uint64_t groupSize)
{
    const uint64_t groups = ceilDiv(K, groupSize);
    const uint64_t m = groupSize >= 128 ? 1 : groupSize == 64 ? 2 : 4;
    return ceilDiv(ceilDiv(groups, 8), m) * m;
}

PackedOutput packAwqGemv(std::span<const uint8_t> codes, std::span<const int32_t> zeros,
                         std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize)
{
    const uint64_t groups = ceilDiv(K, groupSize);
    const uint64_t zw = awqGemvZeroWords(K, groupSize);
    checkSize(codes.size(), K * N, "codes");
    checkSize(zeros.size(), groups * N, "zeros");
    checkSize(scales.size(), groups * N, "scales");
    PackedOutput out;
    std::vector<uint8_t> qweight, qzeros;
    std::vector<uint16_t> sc(N * zw * 8, 0);
    for (uint64_t n = 0; n < N; ++n) {
        const std::vector<uint8_t> b = bitstream::packSlots(codes.subspan(n * K, K), 4, 32);
        qweight.insert(qweight.end(), b.begin(), b.end());
        std::vector<uint8_t> z(zw * 8, 0);
        for (uint64_t g = 0; g < groups; ++g) {
            z[g] = uint8_t(zeros[g * N + n]);
            sc[n * zw * 8 + g] = scales[g * N + n];
        }
        const std::vector<uint8_t> zb = bitstream::packSlots(z, 4, 32);
        qzeros.insert(qzeros.end(), zb.begin(), zb.end());
    }
    out.qweight = {std::move(qweight), {N, ceilDiv(K, 8)}};
    out.qzeros = {std::move(qzeros), {N, zw}};
    out.scales = rawTensor(sc.data(), sc.size() * 2, {N, zw * 8});
    return out;
}

PackedOutput packAwqGemvFast(std::span<const uint8_t> codes, std::span<const uint16_t> biases,
                             std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize)
{
    const uint64_t groups = ceilDiv(K, groupSize);
    const uint64_t rows = awqGemvZeroWords(K, groupSize) * 8;
    checkSize(codes.size(), K * N, "codes");
    checkSize(biases.size(), groups * N, "biases");
    checkSize(scales.size(), groups * N, "scales");
    if (N % 4 || K % 32)
        throw std::invalid_argument("pack: GEMV_FAST needs N a multiple of 4 and K of 32");
    PackedOutput out;
    std::vector<uint8_t> qweight;
    for (uint64_t n4 = 0; n4 < N / 4; ++n4) {
        // Four rows share each int16: nibble r is row 4*n4 + r, natural slots.
        std::vector<uint8_t> nibbles(K * 4);
        for (uint64_t p = 0; p < K; ++p)
            for (uint64_t r = 0; r < 4; ++r)
                nibbles[p * 4 + r] = codes[(4 * n4 + r) * K + gemvFastChannel(p)];
        const std::vector<uint8_t> b = bitstream::packSlots(nibbles, 4, 8);
        qweight.insert(qweight.end(), b.begin(), b.end());
    }
    out.qweight = {std::move(qweight), {N / 4, K}};
    std::vector<uint16_t> sc(rows * N, 0), bi(rows * N, 0);
    std::copy(scales.begin(), scales.end(), sc.begin());
    std::copy(biases.begin(), biases.end(), bi.begin());
    out.scales = rawTensor(sc.data(), sc.size() * 2, {rows, N});
    out.qzeros = rawTensor(bi.data(), bi.size() * 2, {rows, N});
    return out;
}

PackedOutput packMarlin(std::span<const uint8_t> codes, std::span<const uint16_t> scales, int bits, uint64_t K,
                        uint64_t N, uint64_t groups)
{
    checkSize(codes.size(), K * N, "codes");
    checkSize(scales.size(), groups * N, "scales");
    if ((bits != 4 && bits != 8) || K % 16 || N % 64)
        throw std::invalid_argument("pack: Marlin needs 4 or 8 bits, K % 16 == 0 and N % 64 == 0");
    const int perWord = 32 / bits;
    const uint64_t words = K / 16 * N * uint64_t(bits) / 2;
    // Gather each word's codes slot by slot, then let the oracle pack them (natural slots).
    std::vector<uint8_t> gathered = std::vector<uint8_t>(words * static_cast<uint64_t>(perWord), 0);
    for (uint64_t n = 0; n < N; ++n)
        for (uint64_t k = 0; k < K; ++k) {
            const MarlinPos pos = marlinLocate(k, n, bits, N);
            gathered[pos.word * static_cast<uint64_t>(perWord) + static_cast<uint64_t>(pos.slot)] = codes[n * K + k];
        }
    PackedOutput out;
    out.qweight = {bitstream::packSlots(gathered, bits, 32), {K / 16, N * uint64_t(bits) / 2}};
    std::vector<uint16_t> sc(groups * N);
    for (uint64_t g = 0; g < groups; ++g)
        for (uint64_t n = 0; n < N; ++n)
            sc[marlinScaleIndex(g, n, N, groups)] = scales[g * N + n];
    out.scales = rawTensor(sc.data(), sc.size() * 2, {groups, N});
    return out;
}

} // namespace qs
