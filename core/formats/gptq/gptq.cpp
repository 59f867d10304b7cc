#include "formats/gptq/gptq.h"
#include "base/intmath.h"

#include "base/error.h"
#include "base/bitstream.h"
#include "base/half.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace qs {

namespace {

uint32_t loadU32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

uint16_t loadU16(const uint8_t* p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

// a * b * c with overflow checks (shapes come from files).
uint64_t checkedMul(const PackedLinear& p, std::initializer_list<uint64_t> factors)
{
    return withContext(ErrorContext{p.file}, [&] {
        uint64_t r = 1;
        for (uint64_t f : factors)
            r = qs::checkedMul(r, f, p.name);
        return r;
    });
}

unsigned scaleBytes(ScaleType t)
{
    return t == ScaleType::F32 ? 4u : 2u;
}

// Exact sum of two halves (fits a double: at most 40 bits of exponent spread plus 11)
// rounded once to half, nearest even: the fp16 addition of the GEMV_FAST reference.
uint16_t addHalves(uint16_t a, uint16_t b)
{
    const double d = double(halfToFloat(a)) + double(halfToFloat(b));
    if (!std::isfinite(d))
        return floatToHalf(float(d));
    const double mag = std::fabs(d);
    if (mag >= 65520.0) // at or past the midpoint between 65504 and 2^16
        return std::signbit(d) ? 0xFC00 : 0x7C00;
    // The half grid step at this magnitude; nearbyint rounds half to even (default mode).
    const int e = mag < 0x1p-14 ? -24 : std::ilogb(mag) - 10;
    const double rounded = std::ldexp(std::nearbyint(std::ldexp(d, -e)), e);
    return floatToHalf(float(rounded)); // exact: `rounded` is a half value
}

} // namespace

std::vector<int> gptqPlanes(int bits)
{
    switch (bits) {
    case 3: return {2, 1};
    case 5: return {4, 1};
    case 6: return {4, 2};
    case 7: return {4, 2, 1};
    default: return {bits};
    }
}

uint64_t gemvFastChannel(uint64_t p)
{
    return 32 * (p / 32) + 8 * (p % 4) + (p % 32) / 4;
}

uint64_t gemvFastPosition(uint64_t k)
{
    const uint64_t r = k % 32;
    return 32 * (k / 32) + 4 * (r % 8) + r / 8;
}

MarlinPos marlinLocate(uint64_t k, uint64_t n, int bits, uint64_t N)
{
    // Inverse of the closed form of B.4.
    const uint64_t kt = k / 16, kr = k % 16, nt = n / 16, nr = n % 16;
    const uint64_t i = 4 * (nr & 7) + ((kr >> 1) & 3);
    const uint64_t block = nr >> 3;
    const uint64_t r = (kr & 1) | ((kr >> 3) << 1);
    const uint64_t c = nt >> 2, j = nt & 3;
    const uint64_t wordsPerRow = N * uint64_t(bits) / 2;
    if (bits == 4) {
        const uint64_t w = 128 * c + 4 * i + j;
        return {kt * wordsPerRow + w, kMarlinSlotOf4[4 * block + r]};
    }
    const uint64_t w = 256 * c + 8 * i + 2 * j + block;
    return {kt * wordsPerRow + w, kMarlinSlotOf8[r]};
}

uint64_t marlinScaleIndex(uint64_t grp, uint64_t n, uint64_t N, uint64_t groups)
{
    const uint64_t f = grp * N + n;
    if (groups > 1) {
        const uint64_t o = f % 64;
        return f - o + 8 * (o % 8) + o / 8;
    }
    const uint64_t o = f % 32;
    const uint64_t m = 2 * (o >> 3) + (o & 1), i = (o >> 1) & 3;
    return f - o + 8 * i + m;
}

void PackedLinear::validate() const
{
    auto bad = [&](const std::string& what) { throw Error(ErrorContext{file}, name + ": " + what); };
    if (K == 0 || N == 0)
        bad("empty shape");
    if (groupSize == 0 || groups == 0)
        bad("group size or group count is 0");
    const uint64_t sb = scaleBytes(scaleType);
    auto need = [&](std::span<const uint8_t> s, uint64_t bytes, const char* role) {
        if (s.size() != bytes)
            bad(std::string(role) + " holds " + std::to_string(s.size()) + " bytes, the layout needs "
                + std::to_string(bytes));
    };
    switch (kind) {
    case PackedKind::Gptq:
    case PackedKind::GptqPlanar: {
        if (kind == PackedKind::Gptq && bits != 2 && bits != 3 && bits != 4 && bits != 8)
            bad("GPTQ bits must be 2, 3, 4 or 8, not " + std::to_string(bits));
        if (kind == PackedKind::GptqPlanar && (bits < 2 || bits > 8 || K % 32 || N % 32))
            bad("planar GPTQ needs bits 2..8 and K, N multiples of 32");
        need(qweight, checkedMul(*this, {ceilDiv(checkedMul(*this, {K, uint64_t(bits)}), 32), N, 4}), "qweight");
        need(qzeros, checkedMul(*this, {groups, ceilDiv(checkedMul(*this, {N, uint64_t(bits)}), 32), 4}), "qzeros");
        need(scales, checkedMul(*this, {groups, N, sb}), "scales");
        if (gIdx.empty()) {
            if (ceilDiv(K, groupSize) != groups)
                bad("scales have " + std::to_string(groups) + " groups, K " + std::to_string(K) + " with group size "
                    + std::to_string(groupSize) + " needs " + std::to_string(ceilDiv(K, groupSize)));
        } else {
            need(gIdx, checkedMul(*this, {K, 4}), "g_idx");
            for (uint64_t k = 0; k < K; ++k) {
                const int32_t g = int32_t(loadU32(gIdx.data() + 4 * k));
                if (g < 0 || uint64_t(g) >= groups)
                    bad("g_idx[" + std::to_string(k) + "] = " + std::to_string(g) + " is outside 0.."
                        + std::to_string(groups - 1));
            }
        }
        break;
    }
    case PackedKind::AwqGemm:
        if (bits != 4 || N % 8)
            bad("AWQ GEMM needs 4 bits and N a multiple of 8");
        if (ceilDiv(K, groupSize) != groups)
            bad("AWQ group count does not match K / group size");
        need(qweight, checkedMul(*this, {K, N / 8, 4}), "qweight");
        need(qzeros, checkedMul(*this, {groups, N / 8, 4}), "qzeros");
        need(scales, checkedMul(*this, {groups, N, sb}), "scales");
        break;
    case PackedKind::AwqGemv:
        if (bits != 4)
            bad("AWQ GEMV needs 4 bits");
        if (ceilDiv(K, groupSize) != groups || zeroWords * 8 < groups || scaleRows < groups)
            bad("AWQ GEMV zero/scale padding is smaller than the group count");
        need(qweight, checkedMul(*this, {N, ceilDiv(K, 8), 4}), "qweight");
        need(qzeros, checkedMul(*this, {N, zeroWords, 4}), "qzeros");
        need(scales, checkedMul(*this, {N, scaleRows, sb}), "scales");
        break;
    case PackedKind::AwqGemvFast:
        if (bits != 4 || N % 4 || K % 32 || scaleType != ScaleType::F16)
            bad("AWQ GEMV_FAST needs 4 bits, F16 scales, N a multiple of 4 and K of 32");
        if (ceilDiv(K, groupSize) != groups || scaleRows < groups)
            bad("AWQ GEMV_FAST scale padding is smaller than the group count");
        need(qweight, checkedMul(*this, {N / 4, K, 2}), "qweight");
        need(qzeros, checkedMul(*this, {scaleRows, N, 2}), "qzeros");
        need(scales, checkedMul(*this, {scaleRows, N, 2}), "scales");
        break;
    case PackedKind::Marlin:
        if ((bits != 4 && bits != 8) || K % 16 || N % 64)
            bad("Marlin needs 4 or 8 bits, K a multiple of 16 and N of 64");
        if (ceilDiv(K, groupSize) != groups)
            bad("Marlin group count does not match K / group size");
        need(qweight, checkedMul(*this, {K / 16, N * uint64_t(bits) / 2, 4}), "qweight");
        need(scales, checkedMul(*this, {groups, N, sb}), "scales");
        break;
    }
}

uint64_t PackedLinear::groupOf(uint64_t k) const
{
    if (!gIdx.empty())
        return uint64_t(int32_t(loadU32(gIdx.data() + 4 * k)));
    return k / groupSize;
}

std::vector<PackedLinear::GroupRun> PackedLinear::groupRuns() const
{
    std::vector<GroupRun> r;
    for (uint64_t k = 0; k < K; ++k) {
        const uint64_t g = groupOf(k);
        if (!r.empty() && r.back().group == g) {
            r.back().k1 = k + 1;
            continue;
        }
        if (!r.empty() && g < r.back().group)
            return {};
        r.push_back({k, k + 1, g});
    }
    return r;
}

void PackedLinear::indexGroupRuns()
{
    runs = groupRuns();
    runsIndexed = true;
}

uint32_t PackedLinear::codeAt(uint64_t n, uint64_t k) const
{
    const uint32_t mask = (1u << bits) - 1u;
    switch (kind) {
    case PackedKind::Gptq: {
        // Column n of qweight is the LSB-first bitstream of the K codes of row n.
        const uint64_t bit = k * uint64_t(bits);
        const uint64_t r = bit / 32;
        const unsigned sh = unsigned(bit % 32);
        uint64_t v = loadU32(qweight.data() + 4 * (r * N + n)) >> sh;
        if (sh + unsigned(bits) > 32)
            v |= uint64_t(loadU32(qweight.data() + 4 * ((r + 1) * N + n))) << (32 - sh);
        return uint32_t(v) & mask;
    }
    case PackedKind::GptqPlanar: {
        const uint64_t chunk = k / 32, j = k % 32;
        uint64_t wordRow = chunk * uint64_t(bits);
        uint32_t code = 0;
        int offset = 0;
        for (int w : gptqPlanes(bits)) {
            const uint64_t perWord = uint64_t(32 / w);
            const uint32_t word = loadU32(qweight.data() + 4 * ((wordRow + j / perWord) * N + n));
            code |= ((word >> (uint64_t(w) * (j % perWord))) & ((1u << w) - 1u)) << offset;
            offset += w;
            wordRow += uint64_t(w);
        }
        return code;
    }
    case PackedKind::AwqGemm:
        return (loadU32(qweight.data() + 4 * (k * (N / 8) + n / 8)) >> (4 * kAwqSlotOf[n % 8])) & 0xF;
    case PackedKind::AwqGemv: return (loadU32(qweight.data() + 4 * (n * ceilDiv(K, 8) + k / 8)) >> (4 * (k % 8))) & 0xF;
    case PackedKind::AwqGemvFast:
        return (loadU16(qweight.data() + 2 * ((n / 4) * K + gemvFastPosition(k))) >> (4 * (n % 4))) & 0xF;
    case PackedKind::Marlin: {
        const MarlinPos pos = marlinLocate(k, n, bits, N);
        return (loadU32(qweight.data() + 4 * pos.word) >> (bits * pos.slot)) & mask;
    }
    }
    return 0;
}

int32_t PackedLinear::zeroAt(uint64_t grp, uint64_t n) const
{
    const uint32_t mask = (1u << bits) - 1u;
    uint32_t field = 0;
    switch (kind) {
    case PackedKind::Gptq: field = bitstream::readField(qzeros.data(), zeroFieldBit(grp, n), bits); break;
    case PackedKind::GptqPlanar: {
        const uint64_t rowWords = N * uint64_t(bits) / 32;
        const uint8_t* row = qzeros.data() + 4 * grp * rowWords;
        uint64_t word0 = (n / 32) * uint64_t(bits);
        const uint64_t j = n % 32;
        int offset = 0;
        for (int w : gptqPlanes(bits)) {
            const uint64_t perWord = uint64_t(32 / w);
            const uint32_t word = loadU32(row + 4 * (word0 + j / perWord));
            field |= ((word >> (uint64_t(w) * (j % perWord))) & ((1u << w) - 1u)) << offset;
            offset += w;
            word0 += uint64_t(w);
        }
        break;
    }
    case PackedKind::AwqGemm:
        field = (loadU32(qzeros.data() + 4 * (grp * (N / 8) + n / 8)) >> (4 * kAwqSlotOf[n % 8])) & 0xF;
        break;
    case PackedKind::AwqGemv:
        field = (loadU32(qzeros.data() + 4 * (n * zeroWords + grp / 8)) >> (4 * (grp % 8))) & 0xF;
        break;
    case PackedKind::AwqGemvFast: return 0;
    case PackedKind::Marlin: return int32_t(1u << (bits - 1));
    }
    if (zeros != ZeroConvention::StoredMinusOne)
        return int32_t(field);
    return int32_t(v1ZeroWraps() ? ((field + 1) & mask) : field + 1);
}

uint64_t PackedLinear::zeroFieldBit(uint64_t grp, uint64_t n) const
{
    return 32 * ceilDiv(N * uint64_t(bits), 32) * grp + n * uint64_t(bits);
}

bool PackedLinear::v1ZeroWraps() const
{
    return v1Rule == V1ZeroRule::Wrap || (v1Rule == V1ZeroRule::Reference && bits != 3);
}

float PackedLinear::scaleAt(uint64_t grp, uint64_t n) const
{
    uint64_t index;
    switch (kind) {
    case PackedKind::AwqGemv: index = n * scaleRows + grp; break;
    case PackedKind::Marlin: index = marlinScaleIndex(grp, n, N, groups); break;
    default: index = grp * N + n; break; // [G, N], GEMV_FAST's [8*Zw, N] too
    }
    switch (scaleType) {
    case ScaleType::F16: return halfToFloat(loadU16(scales.data() + 2 * index));
    case ScaleType::BF16: return bf16ToFloat(loadU16(scales.data() + 2 * index));
    case ScaleType::F32: return std::bit_cast<float>(loadU32(scales.data() + 4 * index));
    }
    return 0.f;
}

float PackedLinear::biasAt(uint64_t grp, uint64_t n) const
{
    return halfToFloat(loadU16(qzeros.data() + 2 * (grp * N + n)));
}

float PackedLinear::valueAt(uint64_t n, uint64_t k) const
{
    const uint64_t grp = groupOf(k);
    const uint32_t q = codeAt(n, k);
    if (kind == PackedKind::AwqGemvFast) {
        // fp16 q*s (exact product, one rounding), then fp16 + bias (one rounding).
        const uint16_t prod = floatToHalf(float(q) * scaleAt(grp, n));
        return halfToFloat(addHalves(prod, loadU16(qzeros.data() + 2 * (grp * N + n))));
    }
    return scaleAt(grp, n) * float(int32_t(q) - zeroAt(grp, n));
}

void dequantPackedRowsRef(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    for (uint64_t n = n0; n < n1; ++n)
        for (uint64_t k = 0; k < p.K; ++k)
            out[(n - n0) * p.K + k] = p.valueAt(n, k);
}

void dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out, SimdPath path)
{
#if QS_ARCH_X86
    if (path == SimdPath::Avx512 && avx512::dequantPackedRows(p, n0, n1, out))
        return;
    if (hasAvx2(path))
        return avx2::dequantPackedRows(p, n0, n1, out);
#else
    (void)path; // no GPTQ kernel for this architecture's tier yet
#endif
    dequantPackedRowsRef(p, n0, n1, out);
}

} // namespace qs
