// The scales of GGUF block weights: the block's d (and dmin) read from the block struct, or for
// k-quants the integer sub-block scales (and mins) times d, read through the element locator.
#include "formats/ggml/ggml.h"

#include "base/half.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/ggml/ggml_tables.h"
#include "formats/wordmap.h"
#include "base/progress.h"
#include "formats/scalegrid_util.h"

#include <cmath>
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
            failScales(ckpt, w,
                       "type " + std::string(t.typeName) + " has no scale blocks that divide the row of "
                           + std::to_string(K));
        return nullptr;
    }
    out.blocksPerRow = K / out.info->blockWeights;
    if (!throwing)
        return &out;
    out.bytes = ckpt.bytes(t);
    const uint64_t need =
        scalesCheckedMul(ckpt, w, scalesCheckedMul(ckpt, w, w.outFeatures(), out.blocksPerRow), out.info->blockBytes);
    if (out.bytes.size() < need)
        failScales(ckpt, w,
                   "tensor '" + std::string(t.name) + "' holds " + std::to_string(out.bytes.size()) + " bytes, "
                       + std::to_string(need) + " needed");
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
    s.blocks = !sub;
    s.groups = scalesCheckedMul(ckpt, w, blob.blocksPerRow, perBlock);
    const std::string type(info.name);
    if (sub) {
        s.scaleMeaning =
            Message(blob.type == GgmlQ3_K ? QT_TRANSLATE_NOOP("qs::Message", "%1 sub-block scale (d x (sc - 32))")
                                          : QT_TRANSLATE_NOOP("qs::Message", "%1 sub-block scale (d x sc)"),
                    {type});
        if (mField >= 0)
            s.zeroMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "%1 sub-block minimum (dmin x m)"), {type});
    } else {
        s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "%1 block scale %2"),
                                 {type, std::string(fields[size_t(dField)].name)});
        if (mField >= 0)
            s.zeroMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "%1 block minimum %2"),
                                    {type, std::string(fields[size_t(mField)].name)});
    }
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, s.rows);
    std::vector<float> scales(cells), zeros(mField >= 0 ? cells : 0);

    // Per sub-block: where its scale and min bits live (the first element's location).
    std::vector<GgmlElementLocation> locs;
    for (uint32_t j = 0; sub && j < perBlock; ++j)
        locs.push_back(ggmlLocateElement(blob.type, j * subSize));
    for (uint64_t n = 0; n < s.rows; ++n) {
        throwIfCancelled(cancel);
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

namespace {

// Where the bits of `role` start in a location: the block field of its first piece, and
// their total width; width 0 when the location has none.
std::pair<int, int> roleBits(const GgmlElementLocation& loc, GgmlPieceRole role)
{
    int field = -1, width = 0;
    for (const GgmlBitPiece& p : loc.view())
        if (p.role == role) {
            if (field < 0)
                field = p.field;
            width += p.width;
        }
    return {field, width};
}

// d and dmin as the kernels read them: f16, f32 or an e8m0 exponent byte (2^(e - 127)).
double superValue(uint64_t raw, int width)
{
    if (width == 16)
        return halfToFloat(uint16_t(raw));
    if (width == 32) {
        float f;
        const uint32_t u = uint32_t(raw);
        std::memcpy(&f, &u, 4);
        return f;
    }
    return raw == 0xff ? std::nan("") : std::ldexp(1.0, int(raw) - 127);
}

} // namespace

std::vector<BlockValue> ggufBlockValuesOf(int type, const uint8_t* block, uint32_t e, bool wholeBlock)
{
    const GgmlTypeInfo* info = ggmlTypeTraits(type);
    if (!info || info->blockWeights <= 1)
        return {};
    const auto fields = ggmlBlockFields(type);
    std::vector<BlockValue> out;
    const GgmlElementLocation here = ggmlLocateElement(type, e);
    auto fieldName = [&](int f) {
        return f >= 0 && size_t(f) < fields.size() ? std::string(fields[size_t(f)].name) : std::string();
    };
    auto add = [&](BlockValueKind kind, const GgmlElementLocation& loc, GgmlPieceRole role, int index,
                   int lane) -> BlockValue* {
        const auto [field, width] = roleBits(loc, role);
        if (width == 0)
            return nullptr;
        BlockValue v;
        v.kind = kind;
        v.field = fieldName(field);
        v.index = index;
        v.lane = lane;
        v.raw = ggmlExtractBits(block, loc, role);
        v.rawBits = uint8_t(width);
        v.value = double(v.raw);
        out.push_back(v);
        return &out.back();
    };

    double d = 0, dmin = 0;
    if (BlockValue* v = add(BlockValueKind::Scale, here, GgmlPieceRole::SuperScale, -1, -1))
        d = v->value = superValue(v->raw, v->rawBits);
    if (BlockValue* v = add(BlockValueKind::Min, here, GgmlPieceRole::SuperMin, -1, -1))
        dmin = v->value = superValue(v->raw, v->rawBits);
    for (size_t f = 0; f < fields.size(); ++f)
        if (fields[f].kind == GgmlFieldKind::F16Sum) {
            uint16_t h;
            std::memcpy(&h, block + fields[f].offset, 2);
            out.push_back({BlockValueKind::Sum, std::string(fields[f].name), -1, -1, h, 16, halfToFloat(h)});
        }

    // Sub-blocks: runs of elements sharing their scale bits, numbered in element order.
    const bool kQuant = ggufHasSubBlocks(type);
    std::vector<std::vector<std::tuple<uint16_t, uint8_t, uint8_t>>> keys;
    for (uint32_t i = 0; i < info->blockWeights; ++i) {
        const GgmlElementLocation loc = ggmlLocateElement(type, i);
        std::vector<std::tuple<uint16_t, uint8_t, uint8_t>> key;
        for (const GgmlBitPiece& p : loc.view())
            if (p.role == GgmlPieceRole::SubScale)
                key.emplace_back(p.byteOffset, p.bitOffset, p.width);
        if (key.empty())
            break;
        const auto known = std::find(keys.begin(), keys.end(), key);
        const int sub = int(known - keys.begin());
        const bool first = known == keys.end();
        if (first)
            keys.push_back(key);
        if (wholeBlock ? !first : i != e)
            continue;
        if (BlockValue* v = add(BlockValueKind::SubScale, loc, GgmlPieceRole::SubScale, sub, -1)) {
            if (type == GgmlQ3_K)
                v->value = double(int(v->raw) - 32);
            else if (type == GgmlQ6_K)
                v->value = double(int8_t(uint8_t(v->raw)));
            if (kQuant) {
                v->hasEffective = true;
                v->effective = float(d) * float(v->value); // the kernels' d * sc in f32
            }
        }
        if (BlockValue* v = add(BlockValueKind::SubMin, loc, GgmlPieceRole::SubMin, sub, -1); v && kQuant) {
            v->hasEffective = true;
            v->effective = float(dmin) * float(v->value);
        }
        if (!wholeBlock)
            break;
    }
    if (wholeBlock)
        return out;
    add(BlockValueKind::GridIndex, here, GgmlPieceRole::GridIndex, -1, here.lane);
    // One sign index serves a group of 8 elements, bit e % 8 each (IQ3_XXS's grid lane is e % 4).
    if (BlockValue* v = add(BlockValueKind::SignIndex, here, GgmlPieceRole::SignIndex, -1, int(e % 8)))
        v->value = ggml::kKsignsIq2xs[v->raw & 0x7f];
    add(BlockValueKind::Sign, here, GgmlPieceRole::Sign, -1, -1);
    add(BlockValueKind::Delta, here, GgmlPieceRole::Delta, -1, -1);
    return out;
}

BlockValues ggufBlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col, bool wholeBlock)
{
    GgufBlob blob;
    if (!ggufBlob(ckpt, w, blob, false))
        return {}; // a plain type (one element per block) or blocks that do not tile the row
    ggufBlob(ckpt, w, blob, true);
    const GgmlTypeInfo& info = *blob.info;
    BlockValues out;
    out.hasBlock = true;
    out.block = row * blob.blocksPerRow + col / info.blockWeights;
    out.firstRow = row;
    out.firstCol = col / info.blockWeights * info.blockWeights;
    out.values = ggufBlockValuesOf(blob.type, blob.bytes.data() + out.block * info.blockBytes,
                                   uint32_t(col % info.blockWeights), wholeBlock);
    return out;
}

} // namespace qs
