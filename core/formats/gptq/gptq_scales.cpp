// The group scales and zeros of GPTQ, AWQ and Marlin weights, as PackedLinear reads them.
#include "formats/gptq/gptq.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales packedGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                              const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const PackedLinear p = withContext(ErrorContext{ckpt.path}, [&] { return describePacked(data); });
    GroupScales s;
    s.rows = p.N;
    s.cols = p.K;
    s.groups = p.groups;
    s.groupSize = p.groupSize;
    s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "scale"));
    const bool bias = p.zeros == ZeroConvention::FloatBias;
    s.zeroMeaning = Message(bias ? QT_TRANSLATE_NOOP("qs::Message", "bias (-scale x zero)")
                                 : QT_TRANSLATE_NOOP("qs::Message", "zero point (code units)"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, p.groups, p.N);
    std::vector<float> scales(cells), zeros(cells);
    for (uint64_t g = 0; g < p.groups; ++g) {
        throwIfCancelled(cancel);
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

} // namespace qs
