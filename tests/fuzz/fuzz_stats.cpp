// libFuzzer target: what `stats` and the GUI's Error view compute, on weights the product's
// guard decodes (qsfuzz::decodable, capped at kMaxAnalysedElements): the value, code and scale
// histograms (the second weight with a range of its own, so values fall outside it), the error
// of the weight requantized with the default activations (`stats --requantize`), and the error
// against the same checkpoint as its float reference (`stats --ref`). The first byte's low 3 bits
// pick the layout (qsfuzz::filesFromInput); its high 5 bits the requantization: one of
// requantizePresets() (every family's), or the weight's own format as the Error view offers it.
// Two weights an execution, from the one the input's last byte picks on (`stats CKPT WEIGHT`
// analyses one): the exact histograms cost a 1.5 MiB key table a weight whatever its size
// (valuescan.h), which made every weight of a seed ~80 executions a second under ASan.
#include "analysis/stats.h"
#include "fuzzcommon.h"
#include "formats/formatid.h"
#include "formats/target.h"

namespace {

// The Error view's "its own format": a quantized weight's own requantization, else nullopt.
std::optional<qs::RequantizeSpec> ownSpec(const qs::LogicalWeight& w)
{
    const qs::FormatInfo* info = qs::findFormat(w.format);
    if (!info || !info->quantized)
        return std::nullopt;
    const uint64_t group = w.groupSize > 0 ? uint64_t(w.groupSize) : w.inFeatures();
    return qs::ownRequantizeSpec(*info, w.bits, group, w.symmetric);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    static const std::vector<qs::RequantizePreset> presets = qs::requantizePresets();
    const size_t choice = (data[0] >> 3) % (presets.size() + 1);
    try {
        const std::shared_ptr<const qs::Checkpoint> ckpt = qsfuzz::openDetected(qsfuzz::filesFromInput(data, size));
        std::vector<const qs::LogicalWeight*> todo;
        for (const qs::LogicalWeight& w : ckpt->weights)
            if (qsfuzz::decodable(w, qsfuzz::kMaxAnalysedElements))
                todo.push_back(&w);
        for (size_t i = 0; i < std::min<size_t>(todo.size(), 2); ++i) {
            const qs::LogicalWeight& w = *todo[(data[size - 1] + i) % todo.size()];
            qs::StatsOptions opt;
            opt.threads = 1;
            opt.path = qs::bestSimdPath();
            if (i == 1) {
                opt.bins = 7;
                opt.rangeLo = -0.5;
                opt.rangeHi = 0.25;
            }
            try {
                (void)qs::weightHistograms(*ckpt, w, opt);
            } catch (const qs::Error&) {
            }
            // As `stats --requantize` takes them: matrices only.
            if (w.shape.size() >= 2) {
                const std::optional<qs::RequantizeSpec> spec =
                    choice < presets.size() ? presets[choice].spec : ownSpec(w);
                if (spec)
                    try {
                        (void)qs::compareRequantized(*ckpt, w, *spec, opt);
                    } catch (const qs::Error&) {
                    }
            }
            try {
                const qs::ReferenceMatch match = qs::findReference(*ckpt, w, *ckpt);
                if (match.found() && qsfuzz::decodable(*match.reference, qsfuzz::kMaxAnalysedElements))
                    (void)qs::compareWeight(*ckpt, w, *ckpt, match, opt);
            } catch (const qs::Error&) {
            }
        }
    } catch (const qs::Error&) {
    }
    return 0;
}
