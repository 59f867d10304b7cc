// The group scales and zero points of compressed-tensors integer weights (packed or int8).
#include "formats/compressed_tensors/ct.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales ctGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                          const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const CtPacked c = withContext(ErrorContext{ckpt.path}, [&] { return ctPackedState(data); });
    GroupScales s;
    s.rows = c.rows;
    s.cols = c.cols;
    s.groups = c.tensorScale ? 1 : c.groups;
    s.groupSize = c.gidx.empty() && c.groupSize ? c.groupSize : c.cols;
    s.scaleMeaning = Message(c.tensorScale ? QT_TRANSLATE_NOOP("qs::Message", "tensor scale")
                                           : QT_TRANSLATE_NOOP("qs::Message", "scale"));
    const bool zp = c.zpKind != CtPacked::Zp::None;
    if (zp)
        s.zeroMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "zero point (signed code units)"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, c.rows);
    if (!c.tensorScale && c.scale.size() < cells)
        failScales(ckpt, w, "weight_scale holds fewer than rows x groups values");
    std::vector<float> scales(cells), zeros(zp ? cells : 0);
    for (uint64_t n = 0; n < c.rows; ++n) {
        throwIfCancelled(cancel);
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

} // namespace qs
