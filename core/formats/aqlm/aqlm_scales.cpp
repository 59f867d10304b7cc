// The scales of AQLM weights: one per output group (out_group rows), over the whole row.
#include "formats/aqlm/aqlm.h"

#include "base/progress.h"
#include "formats/scalegrid_util.h"

namespace qs {

GroupScales aqlmGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                            const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Aqlm a = withContext(ErrorContext{ckpt.path}, [&] { return aqlmState(data); });
    GroupScales s;
    s.rows = a.rows;
    s.cols = a.cols;
    s.groups = 1;
    s.groupSize = a.cols;
    s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "scale"));
    std::vector<float> scales(a.rows);
    for (uint64_t n = 0; n < a.rows; ++n) {
        if (n % 4096 == 0)
            throwIfCancelled(cancel);
        scales[n] = a.scales.at(n / a.outGroup);
    }
    s.scales = std::move(scales);
    return s;
}

} // namespace qs
