// verify's checks of EXL2 weights: the permutation(s), q_groups against q_weight's size and the
// permutation's length, the scale tensors' shapes (exl2State reads them as the loader does), the
// stored q_perm against q_invperm, and q_scale_max finite.
#include "formats/exl2/exl2.h"

#include "base/error.h"
#include "base/half.h"
#include "formats/verify_util.h"

#include <cmath>

namespace qs {

void verifyExl2Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    const WeightData data{ckpt, w};
    Exl2 s;
    try {
        s = exl2State(data);
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    // Both stored: the kernel reads q_perm, so it must undo q_invperm.
    if (data.has("q_perm") && data.has("q_invperm")) {
        const TensorEntry& e = data.entry("q_invperm");
        const auto inv = data.bytes("q_invperm");
        for (uint64_t k = 0; k < s.cols; ++k)
            if (const int64_t v = readInt(inv, e.dtype, k);
                uint64_t(e.dtype == DType::I16 ? int64_t(uint16_t(v)) : v) != s.storedRow[k]) {
                add("input-perm",
                    Message(QT_TRANSLATE_NOOP("qs::Message", "q_perm is not the inverse of q_invperm (first at %1)"),
                            {std::to_string(k)}));
                break;
            }
    }
    const auto max = data.bytes("q_scale_max");
    uint64_t bad = 0;
    for (uint64_t g = 0; g < s.groups.size(); ++g)
        bad += !std::isfinite(halfAt(max.data() + 2 * g));
    countNonFinite(add, bad, s.groups.size(),
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 q_scale_max values are NaN or Inf"));
}

} // namespace qs
