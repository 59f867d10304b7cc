// The group scales and biases of MLX affine weights.
#include "formats/mlx/mlx.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales mlxGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                           const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const MlxAffine m = withContext(ErrorContext{ckpt.path}, [&] { return mlxState(data); });
    GroupScales s;
    s.rows = m.rows;
    s.cols = m.cols;
    s.groups = m.groups;
    s.groupSize = m.groupSize;
    s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "scale"));
    s.zeroMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "bias"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, m.groups, m.rows);
    if (m.scales.size() < cells || m.biases.size() < cells)
        failScales(ckpt, w, "scales or biases hold fewer than rows x groups values");
    std::vector<float> scales(cells), zeros(cells);
    for (uint64_t n = 0; n < m.rows; ++n) {
        throwIfCancelled(cancel);
        for (uint64_t g = 0; g < m.groups; ++g) {
            scales[g * m.rows + n] = m.scales.at(n * m.groups + g);
            zeros[g * m.rows + n] = m.biases.at(n * m.groups + g);
        }
    }
    s.scales = std::move(scales);
    s.zeros = std::move(zeros);
    return s;
}

} // namespace qs
