// The group scales of EXL2 weights: per group and output column the f16 scale the kernel
// multiplies by; groups are rows of the stored order, so each input channel's group is given.
#include "formats/exl2/exl2.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales exl2GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                            const std::atomic<bool>* cancel)
{
    const Exl2 e = withContext(ErrorContext{ckpt.path}, [&] { return exl2State(WeightData{ckpt, w}); });
    GroupScales s;
    s.rows = e.rows;
    s.cols = e.cols;
    s.groups = e.groups.size();
    s.groupSize = e.groups.front().rows;
    s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "scale"));
    std::vector<float> scales(scalesCheckedMul(ckpt, w, s.groups, s.rows));
    for (uint64_t g = 0; g < s.groups; ++g) {
        throwIfCancelled(cancel);
        for (uint64_t n = 0; n < s.rows; ++n)
            scales[g * s.rows + n] = e.scale(g, n);
    }
    s.scales = std::move(scales);
    s.gIdx.resize(e.cols);
    for (uint64_t k = 0; k < e.cols; ++k)
        s.gIdx[k] = int32_t(e.column[k].group);
    return s;
}

} // namespace qs
