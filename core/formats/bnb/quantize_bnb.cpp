#include "formats/bnb/quantize_bnb.h"

#include "base/error.h"
#include "base/half.h"
#include "base/intmath.h"
#include "base/parallel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace qs {
namespace {

// Float32 bit patterns of create_dynamic_map(signed=True, max_exponent_bits=7, total_bits=8),
// as bitsandbytes stores it in nested_quant_map.
constexpr uint32_t kDynamicMapBits[256] = {
    0xBF7E3333u, 0xBF7A9999u, 0xBF770000u, 0xBF736666u, 0xBF6FCCCCu, 0xBF6C3333u, 0xBF68999Au, 0xBF650000u, 0xBF616666u,
    0xBF5DCCCCu, 0xBF5A3333u, 0xBF569999u, 0xBF530000u, 0xBF4F6666u, 0xBF4BCCCCu, 0xBF483333u, 0xBF44999Au, 0xBF410000u,
    0xBF3D6667u, 0xBF39CCCDu, 0xBF363334u, 0xBF32999Au, 0xBF2F0000u, 0xBF2B6667u, 0xBF27CCCDu, 0xBF243333u, 0xBF20999Au,
    0xBF1D0000u, 0xBF196666u, 0xBF15CCCDu, 0xBF123334u, 0xBF0E999Au, 0xBF0B0000u, 0xBF076666u, 0xBF03CCCDu, 0xBF003333u,
    0xBEF93334u, 0xBEF20000u, 0xBEEACCCCu, 0xBEE3999Au, 0xBEDC6666u, 0xBED53332u, 0xBECE0000u, 0xBEC6CCCCu, 0xBEBF999Au,
    0xBEB86666u, 0xBEB13332u, 0xBEAA0000u, 0xBEA2CCCCu, 0xBE9B999Au, 0xBE946666u, 0xBE8D3334u, 0xBE860000u, 0xBE7D999Au,
    0xBE6F3334u, 0xBE60CCCDu, 0xBE526666u, 0xBE440000u, 0xBE359999u, 0xBE273333u, 0xBE18CCCDu, 0xBE0A6666u, 0xBDF80000u,
    0xBDDB3334u, 0xBDC9EB85u, 0xBDC428F5u, 0xBDBE6667u, 0xBDB8A3D7u, 0xBDB2E148u, 0xBDAD1EB8u, 0xBDA75C28u, 0xBDA1999Au,
    0xBD9BD70Au, 0xBD96147Bu, 0xBD9051EBu, 0xBD8A8F5Du, 0xBD84CCCDu, 0xBD7E147Au, 0xBD728F5Du, 0xBD670A3Du, 0xBD5B851Fu,
    0xBD500000u, 0xBD447AE1u, 0xBD38F5C3u, 0xBD2D70A3u, 0xBD21EB85u, 0xBD166667u, 0xBD0AE147u, 0xBCFEB852u, 0xBCE7AE13u,
    0xBCD0A3D7u, 0xBCB9999Au, 0xBCA28F5Cu, 0xBC8B851Fu, 0xBC68F5C3u, 0xBC3AE148u, 0xBC1F3B64u, 0xBC160418u, 0xBC0CCCCDu,
    0xBC039581u, 0xBBF4BC6Au, 0xBBE24DD3u, 0xBBCFDF3Bu, 0xBBBD70A4u, 0xBBAB020Du, 0xBB989374u, 0xBB8624DDu, 0xBB676C8Au,
    0xBB428F5Cu, 0xBB1DB22Du, 0xBAF1A9FCu, 0xBAA7EF9Du, 0xBA7765FFu, 0xBA59E83Eu, 0xBA3C6A80u, 0xBA1EECC1u, 0xBA016F01u,
    0xB9C7E283u, 0xB98CE705u, 0xB923D70Bu, 0xB8BA1F4Bu, 0xB88AEFB3u, 0xB8378034u, 0xB7B24206u, 0xB70205FFu, 0xB65A1A94u,
    0xB513A3B7u, 0x00000000u, 0x3513A3B7u, 0x365A1A94u, 0x370205FFu, 0x37B24206u, 0x38378034u, 0x388AEFB3u, 0x38BA1F4Bu,
    0x3923D70Bu, 0x398CE705u, 0x39C7E283u, 0x3A016F01u, 0x3A1EECC1u, 0x3A3C6A80u, 0x3A59E83Eu, 0x3A7765FFu, 0x3AA7EF9Du,
    0x3AF1A9FCu, 0x3B1DB22Du, 0x3B428F5Cu, 0x3B676C8Au, 0x3B8624DDu, 0x3B989374u, 0x3BAB020Du, 0x3BBD70A4u, 0x3BCFDF3Bu,
    0x3BE24DD3u, 0x3BF4BC6Au, 0x3C039581u, 0x3C0CCCCDu, 0x3C160418u, 0x3C1F3B64u, 0x3C3AE148u, 0x3C68F5C3u, 0x3C8B851Fu,
    0x3CA28F5Cu, 0x3CB9999Au, 0x3CD0A3D7u, 0x3CE7AE13u, 0x3CFEB852u, 0x3D0AE147u, 0x3D166667u, 0x3D21EB85u, 0x3D2D70A3u,
    0x3D38F5C3u, 0x3D447AE1u, 0x3D500000u, 0x3D5B851Fu, 0x3D670A3Du, 0x3D728F5Du, 0x3D7E147Au, 0x3D84CCCDu, 0x3D8A8F5Du,
    0x3D9051EBu, 0x3D96147Bu, 0x3D9BD70Au, 0x3DA1999Au, 0x3DA75C28u, 0x3DAD1EB8u, 0x3DB2E148u, 0x3DB8A3D7u, 0x3DBE6667u,
    0x3DC428F5u, 0x3DC9EB85u, 0x3DDB3334u, 0x3DF80000u, 0x3E0A6666u, 0x3E18CCCDu, 0x3E273333u, 0x3E359999u, 0x3E440000u,
    0x3E526666u, 0x3E60CCCDu, 0x3E6F3334u, 0x3E7D999Au, 0x3E860000u, 0x3E8D3334u, 0x3E946666u, 0x3E9B999Au, 0x3EA2CCCCu,
    0x3EAA0000u, 0x3EB13332u, 0x3EB86666u, 0x3EBF999Au, 0x3EC6CCCCu, 0x3ECE0000u, 0x3ED53332u, 0x3EDC6666u, 0x3EE3999Au,
    0x3EEACCCCu, 0x3EF20000u, 0x3EF93334u, 0x3F003333u, 0x3F03CCCDu, 0x3F076666u, 0x3F0B0000u, 0x3F0E999Au, 0x3F123334u,
    0x3F15CCCDu, 0x3F196666u, 0x3F1D0000u, 0x3F20999Au, 0x3F243333u, 0x3F27CCCDu, 0x3F2B6667u, 0x3F2F0000u, 0x3F32999Au,
    0x3F363334u, 0x3F39CCCDu, 0x3F3D6667u, 0x3F410000u, 0x3F44999Au, 0x3F483333u, 0x3F4BCCCCu, 0x3F4F6666u, 0x3F530000u,
    0x3F569999u, 0x3F5A3333u, 0x3F5DCCCCu, 0x3F616666u, 0x3F650000u, 0x3F68999Au, 0x3F6C3333u, 0x3F6FCCCCu, 0x3F736666u,
    0x3F770000u, 0x3F7A9999u, 0x3F7E3333u, 0x3F800000u,
};

// First index of the smallest |s - code[i]| in float32, as torch.argmin returns it
// (quantize_blockwise, the nested absmax step).
inline uint8_t argminCode(float s, const std::array<float, 256>& code)
{
    if (std::isnan(s))
        return 0;
    size_t best = 0;
    float bestDiff = std::fabs(s - code[0]);
    for (size_t i = 1; i < 256; ++i) {
        const float d = std::fabs(s - code[i]);
        if (d < bestDiff) {
            bestDiff = d;
            best = i;
        }
    }
    return uint8_t(best);
}

// The 4-bit step searches the value-sorted table by its float32 midpoints (a value equal to
// a midpoint takes the lower entry). Equal entries keep table order, so FP4's two zeros
// split by sign: a small negative value gets code 0, a small positive one code 8. This is
// what reproduces bitsandbytes' bytes; a plain first-argmin gives code 0 to both.
struct MidpointSearch {
    std::array<uint8_t, 16> order{};
    std::array<float, 15> mid{};

    explicit MidpointSearch(const std::array<float, 16>& table)
    {
        for (size_t i = 0; i < 16; ++i)
            order[i] = uint8_t(i);
        std::stable_sort(order.begin(), order.end(), [&](uint8_t a, uint8_t b) { return table[a] < table[b]; });
        for (size_t i = 0; i < 15; ++i)
            mid[i] = (table[order[i]] + table[order[i + 1]]) / 2;
    }
    // Lower-bound search written as torch's is (!(m >= s)), so NaN lands on the last entry.
    uint8_t code(float s) const
    {
        size_t lo = 0, hi = 15;
        while (lo < hi) {
            const size_t m = lo + (hi - lo) / 2;
            if (!(mid[m] >= s))
                lo = m + 1;
            else
                hi = m;
        }
        return order[lo];
    }
};

const MidpointSearch& search4(Bnb4Type t)
{
    static const MidpointSearch nf4(bnb4CodeTable(Bnb4Type::Nf4));
    static const MidpointSearch fp4(bnb4CodeTable(Bnb4Type::Fp4));
    return t == Bnb4Type::Nf4 ? nf4 : fp4;
}

inline float scaleToUnit(float x, float inv)
{
    const float s = x * inv;
    return std::isnan(s) ? s : std::fmin(1.0f, std::fmax(-1.0f, s));
}

float blockAbsmax(const float* x, uint64_t n)
{
    float m = 0;
    for (uint64_t i = 0; i < n; ++i)
        m = std::fmax(m, std::fabs(x[i]));
    return m;
}

} // namespace

const std::array<float, 16>& bnb4CodeTable(Bnb4Type t)
{
    static const std::array<float, 16> nf4 = [] {
        constexpr uint32_t bits[16] = {0xBF800000u, 0xBF3239B1u, 0xBF066B30u, 0xBECA32A0u, 0xBE91A24Du, 0xBE3D353Fu,
                                       0xBDBA7871u, 0x00000000u, 0x3DA2FAFFu, 0x3E24CAE3u, 0x3E7C04DDu, 0x3EAD033Au,
                                       0x3EE1A4B8u, 0x3F1007ABu, 0x3F3913B3u, 0x3F800000u};
        std::array<float, 16> a{};
        for (size_t i = 0; i < 16; ++i)
            a[i] = std::bit_cast<float>(bits[i]);
        return a;
    }();
    // bnb's own E2M1 variant: bit 3 = sign, magnitudes [0, 1/192, 2/3, 1, 1/3, 1/2, 1/6, 1/4].
    static const std::array<float, 16> fp4 = [] {
        constexpr uint32_t mag[8] = {0x00000000u, 0x3BAAAAABu, 0x3F2AAAABu, 0x3F800000u,
                                     0x3EAAAAABu, 0x3F000000u, 0x3E2AAAABu, 0x3E800000u};
        std::array<float, 16> a{};
        for (size_t i = 0; i < 8; ++i) {
            a[i] = std::bit_cast<float>(mag[i]);
            a[i + 8] = i == 0 ? 0.0f : -a[i];
        }
        return a;
    }();
    return t == Bnb4Type::Nf4 ? nf4 : fp4;
}

const std::array<float, 256>& bnbDynamicMap()
{
    static const std::array<float, 256> map = [] {
        std::array<float, 256> a{};
        for (size_t i = 0; i < 256; ++i)
            a[i] = std::bit_cast<float>(kDynamicMapBits[i]);
        return a;
    }();
    return map;
}

void quantizeBnbBlockwise(const float* src, uint64_t n, const std::array<float, 256>& code, uint32_t blocksize,
                          uint8_t* codes, float* absmax)
{
    if (blocksize == 0)
        throw Error("quantize: bitsandbytes block size must be positive");
    const uint64_t nblocks = ceilDiv(n, blocksize);
    for (uint64_t b = 0; b < nblocks; ++b) {
        const uint64_t begin = b * blocksize;
        const uint64_t len = std::min<uint64_t>(blocksize, n - begin);
        absmax[b] = blockAbsmax(src + begin, len);
        const float inv = 1.0f / absmax[b];
        for (uint64_t i = 0; i < len; ++i)
            codes[begin + i] = argminCode(scaleToUnit(src[begin + i], inv), code);
    }
}

Bnb4Quantized quantizeBnb4(const float* src, uint64_t n, Bnb4Type type, uint32_t blocksize, bool nested,
                           std::optional<float> offset, bool parallel)
{
    if (blocksize < 2 || (blocksize & (blocksize - 1)) != 0)
        throw Error("quantize: bitsandbytes block size must be a power of two >= 2, got " + std::to_string(blocksize));
    if (n > (uint64_t(1) << 62))
        throw Error("quantize: tensor too large for bitsandbytes 4-bit");
    Bnb4Quantized q;
    q.elements = n;
    q.blocksize = blocksize;
    q.nested = nested;
    const uint64_t nblocks = ceilDiv(n, blocksize);
    q.absmax.resize(nblocks);
    q.packed.assign(ceilDiv(n, 2), 0);
    const MidpointSearch& search = search4(type);
    // Blocks have an even size, so each byte belongs to exactly one block.
    parallelFor(nblocks, parallel && nblocks > 64, [&](uint64_t b) {
        const uint64_t begin = b * blocksize;
        const uint64_t len = std::min<uint64_t>(blocksize, n - begin);
        const float amax = blockAbsmax(src + begin, len);
        q.absmax[b] = amax;
        const float inv = 1.0f / amax;
        for (uint64_t i = 0; i < len; ++i) {
            const uint8_t c = search.code(scaleToUnit(src[begin + i], inv));
            const uint64_t e = begin + i;
            q.packed[e / 2] = uint8_t(q.packed[e / 2] | ((e & 1) ? c : uint8_t(c << 4)));
        }
        // An odd element count pads the last low nibble with the code of 0.0 (bnb pads the
        // scaled values with zeros before the table search).
        if (len & 1)
            q.packed[(begin + len) / 2] = uint8_t(q.packed[(begin + len) / 2] | search.code(0.0f));
    });
    if (!nested)
        return q;

    if (offset) {
        q.nestedOffset = *offset;
    } else {
        double sum = 0;
        for (float a : q.absmax)
            sum += double(a);
        q.nestedOffset = float(float(sum) / float(nblocks));
    }
    std::vector<float> centred(nblocks);
    for (uint64_t i = 0; i < nblocks; ++i)
        centred[i] = q.absmax[i] - q.nestedOffset;
    q.absmaxCodes.resize(nblocks);
    q.nestedAbsmax.resize(ceilDiv(nblocks, 256));
    const std::array<float, 256>& map = bnbDynamicMap();
    quantizeBnbBlockwise(centred.data(), nblocks, map, 256, q.absmaxCodes.data(), q.nestedAbsmax.data());
    for (uint64_t i = 0; i < nblocks; ++i)
        q.absmax[i] = map[q.absmaxCodes[i]] * q.nestedAbsmax[i / 256] + q.nestedOffset;
    return q;
}

std::vector<float> dequantizeBnb4(const Bnb4Quantized& q, Bnb4Type type)
{
    const std::array<float, 16>& table = bnb4CodeTable(type);
    std::vector<float> out(q.elements);
    for (uint64_t e = 0; e < q.elements; ++e) {
        const uint8_t byte = q.packed[e / 2];
        const uint8_t c = (e & 1) ? (byte & 0xF) : (byte >> 4);
        out[e] = table[c] * q.absmax[e / q.blocksize];
    }
    return out;
}

void roundToModelHalf(const float* in, float* out, uint64_t n)
{
    for (uint64_t i = 0; i < n; ++i)
        out[i] = halfToFloat(floatToHalf(in[i]));
}

} // namespace qs
