// From a detected logical weight (its stored tensors and config parameters) to the
// PackedLinear description the GPTQ / AWQ / Marlin kernels read.
#include "formats/gptq/gptq.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "formats/statecache.h"

#include "container/checkpoint.h"
#include "base/error.h"
#include "base/intmath.h"

#include <algorithm>

namespace qs {

namespace {

const TensorEntry& member(const WeightData& w, std::initializer_list<std::string_view> roles)
{
    for (std::string_view r : roles)
        if (w.has(r))
            return w.entry(r);
    return w.entry(*roles.begin()); // throws naming the weight and the first role
}

void expectDtype(const WeightData& w, const TensorEntry& t, std::initializer_list<DType> ok)
{
    for (DType d : ok)
        if (t.dtype == d)
            return;
    throw Error(w.weight.name + ": tensor '" + std::string(t.name) + "' has dtype " + std::string(dtypeName(t.dtype))
                + ", not what " + w.weight.format + " stores there");
}

void expectRank(const WeightData& w, const TensorEntry& t, size_t rank)
{
    if (t.shape.size() != rank)
        throw Error(w.weight.name + ": tensor '" + std::string(t.name) + "' has " + std::to_string(t.shape.size())
                    + " dimensions, expected " + std::to_string(rank));
}

} // namespace

std::optional<PackedLayout> packedLayoutOf(const LayoutSpec& spec)
{
    std::optional<PackedKind> kind;
    const bool natural = spec.slotOrder.empty();
    switch (spec.packAxis) {
    case PackAxis::In: // codes of consecutive input channels share a word
        if (spec.wordBits == 32 && natural)
            kind = spec.planar ? PackedKind::GptqPlanar : spec.transposed ? PackedKind::Gptq : PackedKind::AwqGemv;
        break;
    case PackAxis::Out: // codes of consecutive output rows share a word
        if (spec.wordBits == 32 && spec.transposed && !spec.planar
            && std::equal(spec.slotOrder.begin(), spec.slotOrder.end(), kAwqPackOrder.begin(), kAwqPackOrder.end()))
            kind = PackedKind::AwqGemm;
        else if (spec.wordBits == 16 && !spec.transposed && !spec.planar && natural)
            kind = PackedKind::AwqGemvFast; // four rows per int16, channels interleaved (gemvFastPosition)
        break;
    case PackAxis::Tile:
        if (spec.wordBits == 32)
            kind = PackedKind::Marlin;
        break;
    default: break;
    }
    if (!kind)
        return std::nullopt;
    switch (spec.zeroPoint) {
    case ZeroPointKind::StoredMinusOne: return PackedLayout{*kind, ZeroConvention::StoredMinusOne};
    case ZeroPointKind::Stored: return PackedLayout{*kind, ZeroConvention::Stored};
    case ZeroPointKind::FloatBias: return PackedLayout{*kind, ZeroConvention::FloatBias};
    case ZeroPointKind::Implicit: return PackedLayout{*kind, ZeroConvention::Implicit};
    default: return std::nullopt;
    }
}

PackedLinear describePacked(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string& f = lw.format;
    PackedLinear p;
    p.file = w.ckpt.files.empty() ? w.ckpt.path : w.ckpt.files.front();
    p.name = lw.name;
    const auto param = [&](const char* key) {
        const auto it = lw.params.find(key);
        return it == lw.params.end() ? std::string() : it->second;
    };
    const FormatInfo* info = findFormat(f);
    const LayoutSpec* spec = info && info->storage == StorageKind::PackedLinear ? findLayoutSpec(f) : nullptr;
    const std::optional<PackedLayout> layout = spec ? packedLayoutOf(*spec) : std::nullopt;
    if (!layout)
        throw Error(ErrorContext{p.file}, p.name + ": format '" + f + "' is not a GPTQ/AWQ/Marlin layout");
    p.kind = layout->kind;
    p.zeros = layout->zeros;
    const std::string rule = param("v1_zero_rule");
    p.v1Rule = rule == "no-wrap" ? V1ZeroRule::NoWrap : rule == "wrap" ? V1ZeroRule::Wrap : V1ZeroRule::Reference;

    const TensorEntry& qw = member(w, {"qweight", "B"});
    const TensorEntry& sc = member(w, {"scales", "s"});
    expectRank(w, qw, 2);
    expectRank(w, sc, 2);
    expectDtype(w, sc, {DType::F16, DType::BF16, DType::F32});
    p.scaleType = sc.dtype == DType::F16 ? ScaleType::F16 : sc.dtype == DType::BF16 ? ScaleType::BF16 : ScaleType::F32;
    p.qweight = w.ckpt.bytes(qw);
    p.scales = w.ckpt.bytes(sc);
    if (p.kind != PackedKind::Marlin) {
        const TensorEntry& qz = member(w, {"qzeros"});
        expectRank(w, qz, 2);
        expectDtype(w, qz,
                    p.kind == PackedKind::AwqGemvFast ? std::initializer_list<DType>{DType::F16}
                                                      : std::initializer_list<DType>{DType::I32, DType::U32});
        p.qzeros = w.ckpt.bytes(qz);
    }
    expectDtype(w, qw,
                p.kind == PackedKind::AwqGemvFast ? std::initializer_list<DType>{DType::I16, DType::U16}
                                                  : std::initializer_list<DType>{DType::I32, DType::U32});

    // Logical shape: the detector's, else what the stored shapes imply.
    p.bits = lw.bits > 0 ? lw.bits : 4;
    if (lw.shape.size() == 2) {
        p.N = lw.shape[0];
        p.K = lw.shape[1];
    } else {
        switch (p.kind) {
        case PackedKind::Gptq:
        case PackedKind::GptqPlanar:
            p.N = qw.shape[1];
            p.K = qw.shape[0] * 32 / uint64_t(p.bits);
            break;
        case PackedKind::AwqGemm:
            p.K = qw.shape[0];
            p.N = qw.shape[1] * 8;
            break;
        case PackedKind::AwqGemv:
            p.N = qw.shape[0];
            p.K = qw.shape[1] * 8;
            break;
        case PackedKind::AwqGemvFast:
            p.N = qw.shape[0] * 4;
            p.K = qw.shape[1];
            break;
        case PackedKind::Marlin:
            p.K = qw.shape[0] * 16;
            p.N = sc.shape[1];
            break;
        }
    }
    switch (p.kind) {
    case PackedKind::AwqGemv:
        p.zeroWords = member(w, {"qzeros"}).shape[1];
        p.scaleRows = sc.shape[1];
        break;
    case PackedKind::AwqGemvFast: p.scaleRows = sc.shape[0]; break;
    default: p.groups = sc.shape[0]; break;
    }
    if (lw.groupSize > 0 && uint64_t(lw.groupSize) < p.K) {
        p.groupSize = uint64_t(lw.groupSize);
    } else if (lw.groupSize > 0 || p.groups <= 1) {
        p.groupSize = p.K;
    } else {
        p.groupSize = p.K / p.groups; // no config: infer from the scales (must divide, checked by validate)
    }
    if (p.groups == 0 || p.kind == PackedKind::AwqGemv || p.kind == PackedKind::AwqGemvFast)
        p.groups = p.groupSize ? ceilDiv(p.K, p.groupSize) : 0;
    if ((p.kind == PackedKind::Gptq || p.kind == PackedKind::GptqPlanar) && w.has("g_idx")) {
        const TensorEntry& gi = w.entry("g_idx");
        expectDtype(w, gi, {DType::I32});
        p.gIdx = w.ckpt.bytes(gi);
    }
    p.validate();
    // A trivial g_idx (k / group size everywhere) is dropped, so kernels take the contiguous path.
    if (!p.gIdx.empty()) {
        bool trivial = true;
        for (uint64_t k = 0; k < p.K && trivial; ++k)
            trivial = p.groupOf(k) == k / p.groupSize;
        if (trivial)
            p.gIdx = {};
    }
    p.indexGroupRuns();
    return p;
}

void dequantPackedWeightRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    const PackedLinear& p = cachedState<PackedLinear>(w, describePacked);
    if (rowBegin > rowEnd || rowEnd > p.N)
        throw Error(ErrorContext{p.file},
                    p.name + ": rows " + std::to_string(rowBegin) + ".." + std::to_string(rowEnd) + " outside 0.."
                        + std::to_string(p.N));
    dequantPackedRows(p, rowBegin, rowEnd, out, path);
}

} // namespace qs
