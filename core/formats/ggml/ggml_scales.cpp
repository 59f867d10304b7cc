// The scales of GGUF block weights: the block's d (and dmin) read from the block struct, or for
// k-quants the integer sub-block scales (and mins) times d, read through the element locator.
#include "formats/ggml/ggml.h"

#include "base/half.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/scalegrid_util.h"

#include <cstring>
#include <tuple>
#include <vector>

namespace qs {

namespace {

// The GGUF blob of a weight with its block geometry checked.
struct GgufBlob {
    int type = -1;
    const GgmlTypeInfo* info = nullptr;
    std::span<const uint8_t> bytes;
    uint64_t blocksPerRow = 0;
};

const GgufBlob* ggufBlob(const Checkpoint& ckpt, const LogicalWeight& w, GgufBlob& out, bool throwing)
{
    const int m = w.member("weight");
    if (m < 0 || size_t(m) >= ckpt.tensors.size()) {
        if (throwing)
            failScales(ckpt, w, "no stored 'weight' tensor");
        return nullptr;
    }
    const TensorEntry& t = ckpt.tensors[size_t(m)];
    out.type = t.ggmlType;
    out.info = ggmlTypeTraits(t.ggmlType);
    const uint64_t K = w.inFeatures();
    if (!out.info || out.info->blockWeights <= 1 || K % out.info->blockWeights != 0) {
        if (throwing)
            failScales(ckpt, w, "type " + t.typeName + " has no scale blocks that divide the row of " + std::to_string(K));
        return nullptr;
    }
    out.blocksPerRow = K / out.info->blockWeights;
    if (!throwing)
        return &out;
    out.bytes = ckpt.bytes(t);
    const uint64_t need =
        scalesCheckedMul(ckpt, w, scalesCheckedMul(ckpt, w, w.outFeatures(), out.blocksPerRow), out.info->blockBytes);
    if (out.bytes.size() < need)
        failScales(ckpt, w, "tensor '" + t.name + "' holds " + std::to_string(out.bytes.size()) + " bytes, " +
                                std::to_string(need) + " needed");
    return &out;
}

// The f16/f32 field of `kind` in a block, or -1.
int blockField(int type, GgmlFieldKind kind)
{
    const auto fields = ggmlBlockFields(type);
    for (size_t i = 0; i < fields.size(); ++i)
        if (fields[i].kind == kind)
            return int(i);
    return -1;
}

float readScaleField(const uint8_t* block, const GgmlBlockField& f)
{
    if (f.size == 4) {
        float v;
        std::memcpy(&v, block + f.offset, 4);
        return v;
    }
    uint16_t h;
    std::memcpy(&h, block + f.offset, 2);
    return halfToFloat(h);
}

bool ggufBlockScalable(int type)
{
    const int d = blockField(type, GgmlFieldKind::F16Scale);
    return d >= 0 || blockField(type, GgmlFieldKind::F32Scale) >= 0;
}

bool ggufHasSubBlocks(int type)
{
    return type == GgmlQ2_K || type == GgmlQ3_K || type == GgmlQ4_K || type == GgmlQ5_K || type == GgmlQ6_K;
}

// Elements per sub-block: the run of elements that share the first element's sub-scale bits.
uint32_t subBlockSize(int type, uint32_t blockWeights)
{
    auto key = [&](uint32_t e) {
        std::vector<std::tuple<uint16_t, uint8_t, uint8_t>> k;
        const GgmlElementLocation loc = ggmlLocateElement(type, e);
        for (const GgmlBitPiece& p : loc.view())
            if (p.role == GgmlPieceRole::SubScale)
                k.emplace_back(p.byteOffset, p.bitOffset, p.width);
        return k;
    };
    const auto first = key(0);
    uint32_t size = 1;
    while (size < blockWeights && key(size) == first)
        ++size;
    return size;
}

} // namespace

bool ggufBlockScalesApply(const Checkpoint& ckpt, const LogicalWeight& w)
{
    GgufBlob blob;
    return ggufBlob(ckpt, w, blob, false) && ggufBlockScalable(blob.type);
}

bool ggufSubBlockScalesApply(const Checkpoint& ckpt, const LogicalWeight& w)
{
    GgufBlob blob;
    return ggufBlob(ckpt, w, blob, false) && ggufHasSubBlocks(blob.type);
}

GroupScales ggufGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                            const std::atomic<bool>* cancel)
{
    GgufBlob blob;
    ggufBlob(ckpt, w, blob, true);
    const GgmlTypeInfo& info = *blob.info;
    const auto fields = ggmlBlockFields(blob.type);
    int dField = blockField(blob.type, GgmlFieldKind::F16Scale);
    if (dField < 0)
        dField = blockField(blob.type, GgmlFieldKind::F32Scale);
    if (dField < 0)
        failScales(ckpt, w, "type " + std::string(info.name) + " has no f16/f32 block scale to show");
    const int mField = blockField(blob.type, GgmlFieldKind::F16Min);
    const bool sub = level == GgufScaleLevel::SubBlock && ggufHasSubBlocks(blob.type);

    GroupScales s;
    s.rows = w.outFeatures();
    s.cols = w.inFeatures();
    const uint32_t subSize = sub ? subBlockSize(blob.type, info.blockWeights) : info.blockWeights;
    if (info.blockWeights % subSize != 0)
        failScales(ckpt, w, "sub-blocks of " + std::to_string(subSize) + " do not tile a block");
    const uint32_t perBlock = info.blockWeights / subSize;
    s.groupSize = subSize;
    s.groups = scalesCheckedMul(ckpt, w, blob.blocksPerRow, perBlock);
    const std::string type(info.name);
    if (sub) {
        s.scaleMeaning = type + " sub-block scale (d x sc" + std::string(blob.type == GgmlQ3_K ? " - 32" : "") + ")";
        if (mField >= 0)
            s.zeroMeaning = type + " sub-block minimum (dmin x m)";
    } else {
        s.scaleMeaning = type + " block scale " + std::string(fields[size_t(dField)].name);
        if (mField >= 0)
            s.zeroMeaning = type + " block minimum " + std::string(fields[size_t(mField)].name);
    }
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, s.rows);
    std::vector<float> scales(cells), zeros(mField >= 0 ? cells : 0);

    // Per sub-block: where its scale and min bits live (the first element's location).
    std::vector<GgmlElementLocation> locs;
    for (uint32_t j = 0; sub && j < perBlock; ++j)
        locs.push_back(ggmlLocateElement(blob.type, j * subSize));
    for (uint64_t n = 0; n < s.rows; ++n) {
        if (scalesCancelled(cancel))
            return s;
        for (uint64_t b = 0; b < blob.blocksPerRow; ++b) {
            const uint8_t* block = blob.bytes.data() + (n * blob.blocksPerRow + b) * info.blockBytes;
            const float d = readScaleField(block, fields[size_t(dField)]);
            const float m = mField >= 0 ? readScaleField(block, fields[size_t(mField)]) : 0.0f;
            for (uint32_t j = 0; j < perBlock; ++j) {
                const uint64_t g = b * perBlock + j;
                float sc = d, mn = m;
                if (sub) {
                    const uint64_t raw = ggmlExtractBits(block, locs[j], GgmlPieceRole::SubScale);
                    float f = float(raw);
                    if (blob.type == GgmlQ3_K)
                        f = float(int(raw) - 32);
                    else if (blob.type == GgmlQ6_K)
                        f = float(int8_t(uint8_t(raw)));
                    sc = d * f;
                    if (mField >= 0)
                        mn = m * float(ggmlExtractBits(block, locs[j], GgmlPieceRole::SubMin));
                }
                scales[g * s.rows + n] = sc;
                if (mField >= 0)
                    zeros[g * s.rows + n] = mn;
            }
        }
    }
    s.scales = std::move(scales);
    s.zeros = std::move(zeros);
    return s;
}

} // namespace qs
