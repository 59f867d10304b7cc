// The block absmax values of bitsandbytes 4-bit weights, as a [blocks per row, rows] grid.
#include "formats/bnb/bnb.h"

#include "formats/scalegrid_util.h"
#include "formats/wordmap.h"

#include <cstring>

namespace qs {

GroupScales bnb4GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                            const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Bnb4 b = namingScalesFile(ckpt, [&] { return bnb4State(data); });
    if (b.blocksize == 0 || b.cols % b.blocksize != 0)
        failScales(ckpt, w, "blocks of " + std::to_string(b.blocksize) + " do not tile rows of " + std::to_string(b.cols) +
                                " (a block spans two rows)");
    GroupScales s;
    s.rows = b.rows;
    s.cols = b.cols;
    s.groups = b.cols / b.blocksize;
    s.groupSize = b.blocksize;
    s.scaleMeaning = Message(b.nested ? QT_TRANSLATE_NOOP("qs::Message", "absmax (nested: double-quantized)") : QT_TRANSLATE_NOOP("qs::Message", "absmax"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, b.rows);
    if (cells > b.blocks())
        failScales(ckpt, w, "absmax holds fewer blocks than the weight needs");
    std::vector<float> scales(cells);
    for (uint64_t n = 0; n < b.rows; ++n) {
        if (scalesCancelled(cancel))
            return s;
        for (uint64_t g = 0; g < s.groups; ++g)
            scales[g * b.rows + n] = b.blockAbsmax(n * s.groups + g);
    }
    s.scales = std::move(scales);
    return s;
}

BlockValues bnb4BlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col, bool)
{
    const WeightData data{ckpt, w};
    const Bnb4 b = namingScalesFile(ckpt, [&] { return bnb4State(data); });
    BlockValues out;
    out.hasBlock = true;
    const uint64_t e = row * b.cols + col;
    out.block = e / b.blocksize;
    out.firstRow = out.block * b.blocksize / b.cols;
    out.firstCol = out.block * b.blocksize % b.cols;
    if (out.block >= (b.nested ? uint64_t(b.absmaxCodes.size()) : b.absmax.size()))
        failScales(ckpt, w, "absmax holds fewer blocks than the weight needs");
    BlockValue v;
    v.kind = BlockValueKind::Absmax;
    v.field = "absmax";
    v.rawBits = uint8_t(b.nested ? 8 : dtypeBits(b.absmax.dtype()));
    std::memcpy(&v.raw, b.nested ? b.absmaxCodes.data() + out.block : b.absmax.data() + out.block * v.rawBits / 8,
                v.rawBits / 8);
    v.value = b.blockAbsmax(out.block);
    out.values.push_back(v);
    return out;
}

} // namespace qs
