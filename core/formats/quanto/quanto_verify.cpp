// verify's checks of optimum-quanto weights (shapes against the layout, the packing's padding
// fields, non-finite scales and shifts) and their group scales grid.
#include "formats/quanto/quanto.h"

#include "base/error.h"
#include "base/progress.h"
#include "formats/scalegrid_util.h"
#include "formats/verify_util.h"

#include <algorithm>
#include <cmath>

namespace qs {

void verifyQuantoWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    Quanto s;
    try {
        s = quantoState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const bool grouped = s.viewCols < s.cols;
    if (w.shape.size() == 2 && (s.kind == Quanto::Kind::QBits || s.viewRows == s.rows))
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, s.bits, grouped ? s.viewCols : 0,
                        {"weight._data._data", "weight._data", "weight._scale", "weight._shift"});
    if (s.kind == Quanto::Kind::QBits && s.viewRows % s.parts) {
        // PackedTensor.pack leaves the fields past the last view row zero.
        uint64_t nonzero = 0;
        for (uint64_t part = 0; part < s.parts; ++part)
            for (uint64_t i = std::min(s.packedRows, s.viewRows - std::min(s.viewRows, part * s.packedRows));
                 i < s.packedRows; ++i)
                for (uint64_t c = 0; c < s.viewCols; ++c)
                    nonzero += (s.data[i * s.viewCols + c] >> (unsigned(s.bits) * part)) & ((1u << s.bits) - 1) ? 1 : 0;
        if (nonzero)
            add("padding",
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "%1 packed fields past the last of the %2 rows are nonzero "
                                          "(optimum-quanto leaves them zero)"),
                        {std::to_string(nonzero), std::to_string(s.viewRows)}));
    }
    uint64_t badScale = 0, badShift = 0;
    for (uint64_t r = 0; r < s.viewRows; ++r) {
        badScale += !std::isfinite(s.scale.at(r));
        badShift += s.shift.size() && !std::isfinite(s.shift.at(r));
    }
    countNonFinite(add, badScale, s.viewRows,
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 weight._scale values are NaN or Inf"));
    countNonFinite(add, badShift, s.viewRows,
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 weight._shift values are NaN or Inf"));
}

GroupScales quantoGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                              const std::atomic<bool>* cancel)
{
    const WeightData data{ckpt, w};
    const Quanto q = withContext(ErrorContext{ckpt.path}, [&] { return quantoState(data); });
    GroupScales s;
    s.rows = q.rows;
    s.cols = q.cols;
    // View rows tile the logical rows (groups along K), or one view row spans whole rows (a
    // per-tensor scale, a convolution's [O, I, kh, kw] folded to rows of kw).
    if (q.cols % q.viewCols == 0) {
        s.groups = q.cols / q.viewCols;
        s.groupSize = q.viewCols;
    } else if (q.viewCols % q.cols == 0) {
        s.groups = 1;
        s.groupSize = q.cols;
    } else {
        failScales(ckpt, w, "the scale rows straddle the weight's rows");
    }
    s.scaleMeaning = Message(QT_TRANSLATE_NOOP("qs::Message", "scale"));
    const uint64_t cells = scalesCheckedMul(ckpt, w, s.groups, s.rows);
    s.scales.resize(cells);
    if (q.kind == Quanto::Kind::QBits) {
        s.zeroMeaning = q.intShift.empty()
            ? Message(QT_TRANSLATE_NOOP("qs::Message", "shift (subtracted after scaling)"))
            : Message(QT_TRANSLATE_NOOP("qs::Message", "zero point (code units)"));
        s.zeros.resize(cells);
    }
    for (uint64_t n = 0; n < s.rows; ++n) {
        throwIfCancelled(cancel);
        for (uint64_t g = 0; g < s.groups; ++g) {
            const uint64_t r = (n * s.cols + g * s.groupSize) / q.viewCols;
            s.scales[g * s.rows + n] = q.scale.at(r);
            if (!s.zeros.empty())
                s.zeros[g * s.rows + n] = q.intShift.empty() ? q.shift.at(r) : float(q.shiftInt(r));
        }
    }
    return s;
}

} // namespace qs
