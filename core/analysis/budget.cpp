#include "analysis/budget.h"

#include "base/error.h"
#include "base/intmath.h"
#include "container/ggmltype.h"
#include "formats/family.h"

#include <cstdio>

namespace qs {
namespace {

// Byte counts of one weight's stored tensors, by role.
struct Parts {
    uint64_t codes = 0, scales = 0, zeros = 0, index = 0, tables = 0;
    uint64_t total() const { return codes + scales + zeros + index + tables; }
};

uint64_t groupsOf(const BudgetFormat& f, uint64_t k)
{
    return f.groupSize ? ceilDiv(k, f.groupSize) : 1;
}

[[noreturn]] void unfit(const BudgetFormat& f, uint64_t n, uint64_t k, const std::string& why)
{
    throw Error("budget: " + f.id + " cannot hold a [" + std::to_string(n) + ", " + std::to_string(k)
                + "] weight: " + why);
}

Parts budgetParts(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    if (n == 0 || k == 0 || n > (uint64_t(1) << 32) || k > (uint64_t(1) << 32))
        unfit(f, n, k, "dimensions must be 1 .. 2^32");
    Parts p;
    const uint64_t b = uint64_t(f.bits);
    const uint64_t g = groupsOf(f, k);
    switch (f.kind) {
    case BudgetKind::Float: p.codes = n * k * b / 8; break;
    case BudgetKind::Gguf: {
        const GgmlTypeInfo* t = ggmlType(f.ggmlType);
        if (!t || !t->hasSize())
            unfit(f, n, k, "unknown ggml type");
        if (k % t->blockWeights != 0)
            unfit(f, n, k, "K is not a multiple of the block size " + std::to_string(t->blockWeights));
        // Scales and mins live inside each block; the block is the unit of storage.
        p.codes = n * t->rowBytes(k);
        break;
    }
    case BudgetKind::Gptq:
        // qweight [ceil(K*b/32), N] and qzeros [G, ceil(N*b/32)] as int32, scales [G, N],
        // g_idx [K] int32 (AutoGPTQ and GPTQModel write it even when it is trivial).
        p.codes = ceilDiv(k * b, 32) * n * 4;
        p.zeros = g * ceilDiv(n * b, 32) * 4;
        p.scales = g * n * uint64_t(f.scaleBytes);
        p.index = k * 4;
        break;
    case BudgetKind::Awq:
        if (f.groupSize && k % f.groupSize != 0)
            unfit(f, n, k, "the group size must divide K");
        // qweight [K, N*b/32] and qzeros [G, N*b/32] as int32, scales [G, N].
        p.codes = k * ceilDiv(n * b, 32) * 4;
        p.zeros = g * ceilDiv(n * b, 32) * 4;
        p.scales = g * n * uint64_t(f.scaleBytes);
        break;
    case BudgetKind::CompressedTensors: {
        // floor(32/b) codes per int32 (no straddling), weight_shape int64 [2], zero points
        // packed along N when asymmetric, g_idx with act-order.
        const uint64_t pf = 32 / b;
        p.codes = n * ceilDiv(k, pf) * 4;
        p.scales = n * g * uint64_t(f.scaleBytes);
        p.zeros = f.symmetric ? 0 : ceilDiv(n, pf) * g * 4;
        p.index = (f.gIdx ? k * 4 : 0) + 16;
        break;
    }
    case BudgetKind::Mlx:
        if (f.groupSize == 0 || k % f.groupSize != 0)
            unfit(f, n, k, "the group size must divide K");
        if (k * b % 32 != 0)
            unfit(f, n, k, "K * bits must be a multiple of 32");
        p.codes = n * (k * b / 32) * 4;
        p.scales = n * (k / f.groupSize) * uint64_t(f.scaleBytes);
        p.zeros = p.scales; // biases
        break;
    case BudgetKind::Bnb4: {
        // weight ceil(N*K/2) bytes; absmax f32 per block, or u8 per block + f32 per 256
        // blocks + the 256-entry f32 nested map; quant_map f32 [16]. The quant_state JSON
        // (about 80 to 170 bytes per weight) is not counted.
        const uint64_t blocks = ceilDiv(n * k, f.groupSize ? f.groupSize : 64);
        p.codes = ceilDiv(n * k, 2);
        if (f.nested) {
            p.scales = blocks + ceilDiv(blocks, 256) * 4;
            p.tables = 16 * 4 + 256 * 4;
        } else {
            p.scales = blocks * 4;
            p.tables = 16 * 4;
        }
        break;
    }
    case BudgetKind::BnbInt8:
        // weight int8 [N, K], SCB f32 [N], weight_format u8 [].
        p.codes = n * k;
        p.scales = n * 4;
        p.tables = 1;
        break;
    }
    return p;
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

uint64_t budgetStoredBytes(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    return budgetParts(f, n, k).total();
}

double budgetBitsPerWeight(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    return double(budgetStoredBytes(f, n, k)) * 8.0 / (double(n) * double(k));
}

double budgetAsymptoticBits(const BudgetFormat& f)
{
    const double b = f.bits, s = 8.0 * f.scaleBytes;
    const double g = double(f.groupSize);
    switch (f.kind) {
    case BudgetKind::Float: return b;
    case BudgetKind::Gguf: {
        const GgmlTypeInfo* t = ggmlType(f.ggmlType);
        return t && t->hasSize() ? t->blockBytes * 8.0 / t->blockWeights : 0.0;
    }
    case BudgetKind::Gptq:
    case BudgetKind::Awq: return f.groupSize ? b + (b + s) / g : b;
    case BudgetKind::CompressedTensors: {
        const double codeBits = 32.0 / double(32 / f.bits);
        const double perGroup = s + (f.symmetric ? 0.0 : codeBits);
        return f.groupSize ? codeBits + perGroup / g : codeBits;
    }
    case BudgetKind::Mlx: return b + 2 * s / g;
    case BudgetKind::Bnb4: {
        const double block = f.groupSize ? g : 64.0;
        return f.nested ? 4.0 + 8.0 / block + 32.0 / (block * 256.0) : 4.0 + 32.0 / block;
    }
    case BudgetKind::BnbInt8: return 8.0;
    }
    return 0.0;
}

std::string budgetBreakdown(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    const Parts p = budgetParts(f, n, k);
    const double w = double(n) * double(k);
    auto bits = [&](uint64_t bytes) { return fmt(double(bytes) * 8.0 / w); };
    if (f.kind == BudgetKind::Gguf)
        return bits(p.total()) + " (blocks of weights and their scales)";
    std::string s = bits(p.codes) + " code";
    if (p.scales)
        s += " + " + bits(p.scales) + (f.kind == BudgetKind::Bnb4 ? " absmax" : " scale");
    if (p.zeros)
        s += " + " + bits(p.zeros) + (f.kind == BudgetKind::Mlx ? " bias" : " zero");
    if (p.index)
        s += " + " + bits(p.index) + (f.kind == BudgetKind::Gptq ? " g_idx" : " shape/g_idx");
    if (p.tables)
        s += " + " + bits(p.tables) + " tables";
    return s;
}

std::vector<BudgetFormat> budgetFormats()
{
    return familyBudgetRows();
}

const BudgetFormat* budgetFormat(const std::string& id)
{
    static const std::vector<BudgetFormat> all = budgetFormats();
    for (const BudgetFormat& f : all)
        if (f.id == id)
            return &f;
    return nullptr;
}

std::vector<uint64_t> budgetDefaultParamCounts()
{
    return {1000000000ull, 7000000000ull, 13000000000ull, 70000000000ull, 405000000000ull};
}

std::vector<BudgetRow> budgetTable(uint64_t params, std::optional<double> memoryGiB, uint64_t layerN, uint64_t layerK)
{
    std::vector<BudgetRow> rows;
    for (const BudgetFormat& f : budgetFormats()) {
        BudgetRow r;
        r.format = f;
        // A shape the format cannot hold (e.g. a GGUF block wider than K) leaves the format out.
        try {
            r.bitsPerWeight = budgetBitsPerWeight(f, layerN, layerK);
        } catch (const Error&) {
            continue;
        }
        r.bytes = double(params) * r.bitsPerWeight / 8.0;
        r.gb = r.bytes / kBytesPerGB;
        r.gib = r.bytes / kBytesPerGiB;
        if (memoryGiB)
            r.fits = r.gib <= *memoryGiB;
        rows.push_back(r);
    }
    return rows;
}

} // namespace qs
