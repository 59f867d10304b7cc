#include "analysis/budget.h"

#include "base/error.h"
#include "base/intmath.h"
#include "formats/layoutsize.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace qs {
namespace {

// Byte counts of one weight's stored tensors, by BudgetPart, each with the name the breakdown
// gives it.
struct Part {
    uint64_t bytes = 0;
    std::string label;
};
struct Parts {
    std::array<Part, 5> part; // indexed by BudgetPart
    uint64_t total = 0;
};

[[noreturn]] void unfit(const BudgetFormat& f, uint64_t n, uint64_t k, const std::string& why)
{
    throw Error("budget: " + f.id + " cannot hold a [" + std::to_string(n) + ", " + std::to_string(k)
                + "] weight: " + why);
}

// The row's tensors at [N, K], as its LayoutSpec lays them out.
Parts storedParts(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    if (n == 0 || k == 0 || n > (uint64_t(1) << 32) || k > (uint64_t(1) << 32))
        unfit(f, n, k, "dimensions must be 1 .. 2^32");
    const LayoutSpec* spec = f.info ? findLayoutSpec(f.info->id) : nullptr;
    if (!spec)
        unfit(f, n, k, "its format has no layout spec");
    const LayoutParams p{k, n, f.bits, f.groupSize};
    if (const std::string why = layoutRefusal(*spec, p); !why.empty())
        unfit(f, n, k, why);
    static constexpr const char* kPartNames[] = {"code", "scale", "zero", "g_idx", "tables"};
    Parts parts;
    for (const BudgetTensor& t : f.tensors) {
        const LayoutTensor* stored = findTensor(*spec, t.role);
        if (!stored || !sizedByParams(*stored))
            unfit(f, n, k, spec->id + " has no tensor " + t.role + " of a known shape");
        Part& part = parts.part[size_t(t.part)];
        const uint64_t bytes = tensorBytes(*spec, *stored, p, t.dtype);
        if (__builtin_add_overflow(parts.total, bytes, &parts.total))
            unfit(f, n, k, "its size overflows 64 bits");
        part.bytes += bytes;
        if (part.label.empty())
            part.label = t.label.empty() ? kPartNames[size_t(t.part)] : t.label;
    }
    return parts;
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
    return storedParts(f, n, k).total;
}

double budgetBitsPerWeight(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    return double(budgetStoredBytes(f, n, k)) * 8.0 / (double(n) * double(k));
}

double asymptoticBitsPerWeight(const BudgetFormat& f)
{
    // At N = K = jL a tensor's bytes are a*(jL)^2 + b*jL + c when L is a multiple of every
    // packing unit (words, blocks, groups, bnb's 256 nested blocks, CT's 10 3-bit codes a word),
    // so the second difference over j = 1, 2, 3 leaves 2*a*L^2 exactly: a per weight is what
    // the format costs as the layer grows, without its per-row and per-layer constants.
    constexpr uint64_t L = (uint64_t(1) << 14) * 105;
    const uint64_t b1 = budgetStoredBytes(f, L, L), b2 = budgetStoredBytes(f, 2 * L, 2 * L),
                   b3 = budgetStoredBytes(f, 3 * L, 3 * L);
    return double((b3 + b1 - 2 * b2) * 8) / double(2 * L * L);
}

std::string budgetBreakdown(const BudgetFormat& f, uint64_t n, uint64_t k)
{
    const Parts parts = storedParts(f, n, k);
    const double w = double(n) * double(k);
    std::string s;
    for (const Part& part : parts.part)
        if (part.bytes)
            s += (s.empty() ? "" : " + ") + fmt(double(part.bytes) * 8.0 / w) + " " + part.label;
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

const BudgetFormat* reportedBudgetFormat(const LayoutSpec& spec, const LayoutParams& p)
{
    if (spec.container == LayoutContainer::Gguf)
        return budgetFormat(spec.id);
    static const std::vector<BudgetFormat> all = budgetFormats();
    const uint64_t group = p.groupSize >= p.K ? 0 : p.groupSize;
    for (const BudgetFormat& f : all)
        if (f.bits == p.bits && f.groupSize == group
            && std::find(f.reportedBy.begin(), f.reportedBy.end(), spec.id) != f.reportedBy.end())
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
