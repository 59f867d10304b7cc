#include "analysis/groupscales.h"

#include "base/error.h"
#include "formats/bnb/bnb.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"
#include "formats/mlx/mlx.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace qs {

namespace {

constexpr std::string_view kPacked[] = {"gptq-v1",  "gptq-v2",  "gptq-planar",   "gptq-marlin",
                                        "awq-gemm", "awq-gemv", "awq-gemv-fast", "awq-marlin"};

bool isPacked(const std::string& f)
{
    return std::find(std::begin(kPacked), std::end(kPacked), f) != std::end(kPacked);
}
bool isGgufScaleFormat(const std::string& f) { return f.rfind("gguf-", 0) == 0; }
bool isCt(const std::string& f) { return f == "compressed-tensors" || f == "compressed-tensors-int"; }
bool isBnb4(const std::string& f) { return f == "bnb-nf4" || f == "bnb-fp4"; }

bool cancelled(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

[[noreturn]] void failWeight(const Checkpoint& ckpt, const LogicalWeight& w, const std::string& what)
{
    throw Error(ckpt.path + ": weight '" + w.name + "': " + what);
}

// The kernels' descriptions name the weight; add the file when they do not.
template <class F>
auto naming(const Checkpoint& ckpt, F&& f) -> decltype(f())
{
    try {
        return f();
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.rfind(ckpt.path, 0) == 0)
            throw;
        throw Error(ckpt.path + ": " + what);
    }
}

uint64_t checkedMul(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t a, uint64_t b)
{
    if (a && b > std::numeric_limits<uint64_t>::max() / a)
        failWeight(ckpt, w, "size overflows");
    return a * b;
}

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
            failWeight(ckpt, w, "no stored 'weight' tensor");
        return nullptr;
    }
    const TensorEntry& t = ckpt.tensors[size_t(m)];
    out.type = t.ggmlType;
    out.info = ggmlTypeTraits(t.ggmlType);
    const uint64_t K = w.inFeatures();
    if (!out.info || out.info->blockWeights <= 1 || K % out.info->blockWeights != 0) {
        if (throwing)
            failWeight(ckpt, w, "type " + t.typeName + " has no scale blocks that divide the row of " + std::to_string(K));
        return nullptr;
    }
    out.blocksPerRow = K / out.info->blockWeights;
    if (!throwing)
        return &out;
    out.bytes = ckpt.bytes(t);
    const uint64_t need = checkedMul(ckpt, w, checkedMul(ckpt, w, w.outFeatures(), out.blocksPerRow), out.info->blockBytes);
    if (out.bytes.size() < need)
        failWeight(ckpt, w, "tensor '" + t.name + "' holds " + std::to_string(out.bytes.size()) + " bytes, " +
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

GroupScales ggufScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
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
        failWeight(ckpt, w, "type " + std::string(info.name) + " has no f16/f32 block scale to show");
    const int mField = blockField(blob.type, GgmlFieldKind::F16Min);
    const bool sub = level == GgufScaleLevel::SubBlock && ggufHasSubBlocks(blob.type);

    GroupScales s;
    s.rows = w.outFeatures();
    s.cols = w.inFeatures();
    const uint32_t subSize = sub ? subBlockSize(blob.type, info.blockWeights) : info.blockWeights;
    if (info.blockWeights % subSize != 0)
        failWeight(ckpt, w, "sub-blocks of " + std::to_string(subSize) + " do not tile a block");
    const uint32_t perBlock = info.blockWeights / subSize;
    s.groupSize = subSize;
    s.groups = checkedMul(ckpt, w, blob.blocksPerRow, perBlock);
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
    const uint64_t cells = checkedMul(ckpt, w, s.groups, s.rows);
    std::vector<float> scales(cells), zeros(mField >= 0 ? cells : 0);

    // Per sub-block: where its scale and min bits live (the first element's location).
    std::vector<GgmlElementLocation> locs;
    for (uint32_t j = 0; sub && j < perBlock; ++j)
        locs.push_back(ggmlLocateElement(blob.type, j * subSize));
    for (uint64_t n = 0; n < s.rows; ++n) {
        if (cancelled(cancel))
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

GroupScales packedScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const PackedLinear p = naming(ckpt, [&] { return describePacked(data); });
    GroupScales s;
    s.rows = p.N;
    s.cols = p.K;
    s.groups = p.groups;
    s.groupSize = p.groupSize;
    s.scaleMeaning = "scale";
    const bool bias = p.zeros == ZeroConvention::FloatBias;
    s.zeroMeaning = bias ? "bias (-scale x zero)" : "zero point (code units)";
    const uint64_t cells = checkedMul(ckpt, w, p.groups, p.N);
    std::vector<float> scales(cells), zeros(cells);
    for (uint64_t g = 0; g < p.groups; ++g) {
        if (cancelled(cancel))
            return s;
        for (uint64_t n = 0; n < p.N; ++n) {
            scales[g * p.N + n] = p.scaleAt(g, n);
            zeros[g * p.N + n] = bias ? p.biasAt(g, n) : float(p.zeroAt(g, n));
        }
    }
    if (!p.gIdx.empty()) {
        s.gIdx.resize(p.K);
        for (uint64_t k = 0; k < p.K; ++k)
            s.gIdx[k] = int32_t(p.groupOf(k));
    }
    s.scales = std::move(scales);
    s.zeros = std::move(zeros);
    return s;
}

GroupScales mlxScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const MlxAffine m = naming(ckpt, [&] { return mlxState(data); });
    GroupScales s;
    s.rows = m.rows;
    s.cols = m.cols;
    s.groups = m.groups;
    s.groupSize = m.groupSize;
    s.scaleMeaning = "scale";
    s.zeroMeaning = "bias";
    const uint64_t cells = checkedMul(ckpt, w, m.groups, m.rows);
    if (m.scales.size() < cells || m.biases.size() < cells)
        failWeight(ckpt, w, "scales or biases hold fewer than rows x groups values");
    std::vector<float> scales(cells), zeros(cells);
    for (uint64_t n = 0; n < m.rows; ++n) {
        if (cancelled(cancel))
            return s;
        for (uint64_t g = 0; g < m.groups; ++g) {
            scales[g * m.rows + n] = m.scales.at(n * m.groups + g);
            zeros[g * m.rows + n] = m.biases.at(n * m.groups + g);
        }
    }
    s.scales = std::move(scales);
    s.zeros = std::move(zeros);
    return s;
}

GroupScales ctScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const CtPacked c = naming(ckpt, [&] { return ctPackedState(data); });
    GroupScales s;
    s.rows = c.rows;
    s.cols = c.cols;
    s.groups = c.tensorScale ? 1 : c.groups;
    s.groupSize = c.gidx.empty() && c.groupSize ? c.groupSize : c.cols;
    s.scaleMeaning = c.tensorScale ? "tensor scale" : "scale";
    const bool zp = c.zpKind != CtPacked::Zp::None;
    if (zp)
        s.zeroMeaning = "zero point (signed code units)";
    const uint64_t cells = checkedMul(ckpt, w, s.groups, c.rows);
    if (!c.tensorScale && c.scale.size() < cells)
        failWeight(ckpt, w, "weight_scale holds fewer than rows x groups values");
    std::vector<float> scales(cells), zeros(zp ? cells : 0);
    for (uint64_t n = 0; n < c.rows; ++n) {
        if (cancelled(cancel))
            return s;
        for (uint64_t g = 0; g < s.groups; ++g) {
            scales[g * c.rows + n] = c.scaleAt(n, g);
            if (zp)
                zeros[g * c.rows + n] = float(c.zeroAt(n, g));
        }
    }
    if (!c.gidx.empty()) {
        s.gIdx.resize(c.cols);
        for (uint64_t k = 0; k < c.cols; ++k)
            s.gIdx[k] = int32_t(c.group(k));
    }
    s.scales = std::move(scales);
    s.zeros = std::move(zeros);
    return s;
}

GroupScales bnbScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Bnb4 b = naming(ckpt, [&] { return bnb4State(data); });
    if (b.blocksize == 0 || b.cols % b.blocksize != 0)
        failWeight(ckpt, w, "blocks of " + std::to_string(b.blocksize) + " do not tile rows of " + std::to_string(b.cols) +
                                " (a block spans two rows)");
    GroupScales s;
    s.rows = b.rows;
    s.cols = b.cols;
    s.groups = b.cols / b.blocksize;
    s.groupSize = b.blocksize;
    s.scaleMeaning = b.nested ? "absmax (nested: double-quantized)" : "absmax";
    const uint64_t cells = checkedMul(ckpt, w, s.groups, b.rows);
    if (cells > b.blocks())
        failWeight(ckpt, w, "absmax holds fewer blocks than the weight needs");
    std::vector<float> scales(cells);
    for (uint64_t n = 0; n < b.rows; ++n) {
        if (cancelled(cancel))
            return s;
        for (uint64_t g = 0; g < s.groups; ++g)
            scales[g * b.rows + n] = b.blockAbsmax(n * s.groups + g);
    }
    s.scales = std::move(scales);
    return s;
}

} // namespace

uint64_t GroupScales::firstColumn(uint64_t g) const
{
    if (gIdx.empty())
        return g < groups && groupSize ? std::min(cols, g * groupSize) : cols;
    for (uint64_t k = 0; k < gIdx.size(); ++k)
        if (gIdx[k] >= 0 && uint64_t(gIdx[k]) == g)
            return k;
    return cols;
}

bool hasGroupScales(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    const std::string& f = weight.format;
    if (isPacked(f) || f == "mlx-affine" || isCt(f) || isBnb4(f))
        return true;
    if (isGgufScaleFormat(f)) {
        GgufBlob blob;
        return ggufBlob(ckpt, weight, blob, false) && ggufBlockScalable(blob.type);
    }
    return false;
}

bool hasGgufSubBlockScales(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    GgufBlob blob;
    return isGgufScaleFormat(weight.format) && ggufBlob(ckpt, weight, blob, false) && ggufHasSubBlocks(blob.type);
}

GroupScales groupScales(const Checkpoint& ckpt, const LogicalWeight& weight, GgufScaleLevel level,
                        const std::atomic<bool>* cancel)
{
    GroupScales s;
    const std::string& f = weight.format;
    if (isPacked(f))
        s = packedScales(ckpt, weight, cancel);
    else if (f == "mlx-affine")
        s = mlxScales(ckpt, weight, cancel);
    else if (isCt(f))
        s = ctScales(ckpt, weight, cancel);
    else if (isBnb4(f))
        s = bnbScales(ckpt, weight, cancel);
    else if (isGgufScaleFormat(f))
        s = ggufScales(ckpt, weight, level, cancel);
    else
        failWeight(ckpt, weight, "format '" + f + "' has no per-group scales");
    s.weight = weight.name;
    s.format = f;
    return s;
}

DecimatedGrid decimateGrid(const std::vector<float>& grid, uint64_t rows, uint64_t cols, uint64_t maxRows,
                           uint64_t maxCols, CellReduce reduce)
{
    DecimatedGrid d;
    if (rows == 0 || cols == 0 || maxRows == 0 || maxCols == 0 || grid.size() / cols < rows)
        return d;
    d.rowStep = (rows + maxRows - 1) / maxRows;
    d.colStep = (cols + maxCols - 1) / maxCols;
    d.rows = (rows + d.rowStep - 1) / d.rowStep;
    d.cols = (cols + d.colStep - 1) / d.colStep;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    d.cells.assign(d.rows * d.cols, nan);
    for (uint64_t r = 0; r < rows; ++r) {
        const float* src = grid.data() + r * cols;
        float* out = d.cells.data() + (r / d.rowStep) * d.cols;
        for (uint64_t c = 0; c < cols; ++c) {
            float v = src[c];
            if (!std::isfinite(v))
                continue;
            if (reduce == CellReduce::MaxAbs)
                v = std::fabs(v);
            float& cell = out[c / d.colStep];
            if (std::isnan(cell) || (reduce == CellReduce::Min ? v < cell : v > cell))
                cell = v;
        }
    }
    bool any = false;
    for (float v : d.cells) {
        if (std::isnan(v))
            continue;
        d.lo = any ? std::min(d.lo, v) : v;
        d.hi = any ? std::max(d.hi, v) : v;
        any = true;
    }
    return d;
}

} // namespace qs
