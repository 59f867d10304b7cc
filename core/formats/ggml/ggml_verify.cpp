// verify's checks of GGUF block weights: the block geometry against the tensor's size, finite
// block scales and mins, and Q8_0 codes of -128 (which ggml never writes).
#include "formats/ggml/ggml.h"

#include "base/half.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/verify_util.h"

#include <cmath>
#include <cstring>

namespace qs {

void verifyGgufWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    const TensorEntry& t = ckpt.tensors[size_t(w.members.at(0).second)];
    const GgmlTypeInfo* info = ggmlTypeTraits(t.ggmlType);
    if (!info || !info->hasSize()) {
        add("shape",
            Message(QT_TRANSLATE_NOOP("qs::Message", "ggml type %1 has no block geometry"), {std::string(t.typeName)}));
        return;
    }
    const uint64_t K = w.inFeatures(), N = w.outFeatures();
    if (K % info->blockWeights != 0) {
        add("shape",
            Message(QT_TRANSLATE_NOOP("qs::Message", "ne0 = %1 is not a multiple of the %2 block (%3)"),
                    {std::to_string(K), std::string(t.typeName), std::to_string(info->blockWeights)}));
        return;
    }
    const uint64_t blocks = N * (K / info->blockWeights);
    if (t.nbytes != blocks * info->blockBytes) {
        add("shape",
            Message(QT_TRANSLATE_NOOP("qs::Message", "the tensor holds %1 bytes, %2 blocks of %3 need %4"),
                    {std::to_string(t.nbytes), std::to_string(blocks), std::string(t.typeName),
                     std::to_string(blocks * info->blockBytes)}));
        return;
    }
    // Every bit of a ggml block is a field (the block maps cover them all), so re-encoding the
    // decoded fields gives the same bytes by construction; what can be wrong is a scale. The
    // health scan (analysis/healthscan.h) reads the block scale and min of the types it applies
    // to, with their places; the others' scale fields are counted here.
    const auto fields = ggmlBlockFields(t.ggmlType);
    const uint8_t* data = ckpt.bytes(t).data();
    uint64_t bad = 0, scales = 0;
    for (const GgmlBlockField& f : ggufBlockScalesApply(ckpt, w) ? std::span<const GgmlBlockField>() : fields) {
        const bool f16 = f.kind == GgmlFieldKind::F16Scale || f.kind == GgmlFieldKind::F16Min;
        if (!f16 && f.kind != GgmlFieldKind::F32Scale)
            continue;
        const uint32_t width = f16 ? 2 : 4;
        for (uint64_t b = 0; b < blocks; ++b)
            for (uint32_t o = 0; o + width <= f.size; o += width) {
                const uint8_t* p = data + b * info->blockBytes + f.offset + o;
                float v;
                if (f16) {
                    uint16_t h;
                    std::memcpy(&h, p, 2);
                    v = halfToFloat(h);
                } else {
                    std::memcpy(&v, p, 4);
                }
                bad += !std::isfinite(v);
                ++scales;
            }
    }
    countNonFinite(add, bad, scales, QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block scales and mins are NaN or Inf"));
    if (t.ggmlType == GgmlQ8_0) {
        // quantize_row_q8_0 rounds x * 127 / amax: -128 never comes out of ggml.
        uint64_t minCodes = 0;
        for (uint64_t b = 0; b < blocks; ++b)
            for (uint32_t i = 0; i < 32; ++i)
                minCodes += data[b * info->blockBytes + 2 + i] == 0x80;
        if (minCodes)
            add("codes",
                Message(QT_TRANSLATE_NOOP("qs::Message", "%1 Q8_0 codes are -128 (ggml writes -127..127)"),
                        {std::to_string(minCodes)}),
                true);
    }
}

} // namespace qs
