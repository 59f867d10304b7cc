// The block absmax values of bitsandbytes 4-bit weights, as a [blocks per row, rows] grid, and
// one block's decoded absmax fields.
#include "formats/bnb/bnb.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"
#include "formats/wordmap.h"

#include <bit>
#include <cstring>

namespace qs {

GroupScales bnb4GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                            const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Bnb4 b = withContext(ErrorContext{ckpt.path}, [&] { return bnb4State(data); });
    if (b.blocksize == 0 || b.cols % b.blocksize != 0)
        failScales(ckpt, w,
                   "blocks of " + std::to_string(b.blocksize) + " do not tile rows of " + std::to_string(b.cols)
                       + " (a block spans two rows)");
    GroupScales s;
    s.rows = b.rows;
    s.cols = b.cols;
    s.groups = b.cols / b.blocksize;
    s.groupSize = b.blocksize;
    s.blocks = true;
    s.absmax = true;
    s.scaleMeaning = Message(b.nested ? QT_TRANSLATE_NOOP("qs::Message", "absmax (nested: double-quantized)")
                                      : QT_TRANSLATE_NOOP("qs::Message", "absmax"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, b.rows);
    if (cells > b.blocks())
        failScales(ckpt, w, "absmax holds fewer blocks than the weight needs");
    std::vector<float> scales(cells);
    for (uint64_t n = 0; n < b.rows; ++n) {
        throwIfCancelled(cancel);
        for (uint64_t g = 0; g < s.groups; ++g)
            scales[g * b.rows + n] = b.blockAbsmax(n * s.groups + g);
    }
    s.scales = std::move(scales);
    return s;
}

BlockValues bnb4BlockFields(const Bnb4& b, uint64_t block)
{
    BlockValues out;
    out.hasBlock = true;
    out.block = block;
    out.firstRow = block * b.blocksize / b.cols;
    out.firstCol = block * b.blocksize % b.cols;
    BlockValue v;
    v.kind = BlockValueKind::Absmax;
    v.field = "absmax";
    v.rawBits = uint8_t(b.nested ? 8 : dtypeBits(b.absmax.dtype()));
    std::memcpy(&v.raw, b.nested ? b.absmaxCodes.data() + block : b.absmax.data() + block * v.rawBits / 8,
                v.rawBits / 8);
    v.value = b.blockAbsmax(block);
    out.values.push_back(v);
    if (!b.nested)
        return out;
    const uint8_t code = b.absmaxCodes[block];
    out.values.push_back({BlockValueKind::AbsmaxCode, "absmax", -1, -1, code, 8, double(b.nestedMap.at(code))});
    const uint64_t second = block / b.nestedBlocksize;
    const float scale = b.nestedAbsmax.at(second);
    out.values.push_back({BlockValueKind::AbsmaxScale, "nested_absmax", int(second), -1, std::bit_cast<uint32_t>(scale),
                          32, double(scale)});
    out.values.push_back({BlockValueKind::AbsmaxOffset, "nested_offset", -1, -1,
                          std::bit_cast<uint32_t>(b.nestedOffset), 32, double(b.nestedOffset)});
    return out;
}

BlockValues bnb4BlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col, bool)
{
    const WeightData data{ckpt, w};
    const Bnb4 b = withContext(ErrorContext{ckpt.path}, [&] { return bnb4State(data); });
    const uint64_t block = (row * b.cols + col) / b.blocksize;
    if (block >= (b.nested ? uint64_t(b.absmaxCodes.size()) : b.absmax.size()))
        failScales(ckpt, w, "absmax holds fewer blocks than the weight needs");
    return bnb4BlockFields(b, block);
}

} // namespace qs
