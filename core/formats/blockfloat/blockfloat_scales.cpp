// The block scales of the FP4 formats, as the kernels multiply by them: MXFP4's 2^(e - 127) per
// 32, NVFP4's fp8 * weight_scale_2 per 16.
#include "formats/blockfloat/blockfloat.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales fp4GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                           const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Fp4Blocks b = withContext(ErrorContext{ckpt.path},
                                    [&] { return w.format == "hf-mxfp4" ? mxfp4State(data) : nvfp4State(data); });
    GroupScales s;
    s.rows = b.rows;
    s.cols = b.cols;
    s.groups = b.blocksPerRow;
    s.groupSize = b.blockSize;
    s.blocks = true;
    s.scaleMeaning = b.scaleKind == Fp4Blocks::Scale::E8M0
        ? Message(QT_TRANSLATE_NOOP("qs::Message", "block scale 2^(e - 127)"))
        : Message(QT_TRANSLATE_NOOP("qs::Message", "block scale fp8 * weight_scale_2"));
    std::vector<float> scales(scalesCheckedMul(ckpt, w, b.blocksPerRow, b.rows)), row(b.blocksPerRow);
    for (uint64_t n = 0; n < b.rows; ++n) {
        throwIfCancelled(cancel);
        b.rowScales(n, row.data());
        for (uint64_t g = 0; g < b.blocksPerRow; ++g)
            scales[g * b.rows + n] = row[g];
    }
    s.scales = std::move(scales);
    return s;
}

} // namespace qs
