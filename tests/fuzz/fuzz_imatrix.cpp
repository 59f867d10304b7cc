// libFuzzer target: an importance matrix, GGUF or legacy .dat (the reader picks by the magic),
// read, summarized and matched against a small fixed set of weights (a plain matrix, a wider
// one and an expert stack), as `recipe --imatrix` and `stats --imatrix` use it.
#include "analysis/imatrix.h"
#include "base/error.h"

#include <cstddef>
#include <cstdint>

namespace {

qs::Checkpoint makeWeights()
{
    qs::Checkpoint c;
    c.container = qs::Container::Gguf;
    c.path = "weights.gguf";
    const std::pair<const char*, std::vector<uint64_t>> shapes[] = {
        {"blk.0.attn_q.weight", {8, 8}}, {"blk.0.ffn_down.weight", {8, 32}}, {"blk.0.ffn_up_exps.weight", {2, 8, 8}}};
    for (const auto& [name, shape] : shapes) {
        qs::LogicalWeight w;
        w.name = name;
        w.shape = shape;
        c.weights.push_back(w);
    }
    return c;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const qs::Checkpoint weights = makeWeights();
    try {
        const qs::Imatrix im = qs::readImatrixMemory("input.imatrix", {data, size});
        for (const qs::ImatrixEntry& e : im.entries) {
            const uint64_t counts = im.format == qs::ImatrixFormat::Gguf ? e.matrices : 1;
            if (e.importance.size() != e.matrices * e.columns || e.counts.size() != counts)
                abort();
            (void)qs::summarizeImportance(e);
        }
        const qs::ImatrixMatch m = qs::matchImatrix(im, weights);
        for (const qs::ImatrixWeightMatch& w : m.weights) {
            const uint64_t experts = w.weight->shape.size() >= 3 ? w.weight->shape[0] : 1;
            if (w.fits() && w.entry->importance.size() != w.weight->inFeatures() * experts)
                abort();
        }
    } catch (const qs::Error&) {
    }
    return 0;
}
