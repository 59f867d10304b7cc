// The report's seed probes for GGUF block types: the ggml block map reads every code the spec's
// locate() placed, and the scalar and fast row dequantizers agree.
#include "formats/ggml/ggml.h"

#include "formats/ggml/ggml_blocks.h"

#include <algorithm>

namespace qs {

std::vector<ProbeCheck> ggmlProbe(const ProbeInput& in)
{
    const GgmlTypeInfo* ggml = in.spec.container == LayoutContainer::Gguf && in.spec.id.rfind("gguf-", 0) == 0
        ? ggmlTypeByName(std::string_view(in.spec.id).substr(5))
        : nullptr;
    if (!ggml || !ggml->hasSize())
        return {};
    const LayoutParams& p = in.params;
    const std::vector<uint8_t>& codes = in.codes;
    std::vector<ProbeCheck> out;
    std::string bad;
    for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e) {
        const uint64_t r = e / p.K, c = e % p.K;
        const GgmlElementLocation gl = ggmlLocateElement(ggml->id, uint32_t(c % ggml->blockWeights));
        if (gl.count == 0) {
            bad = probeCell(r, c) + ": no block-map entry";
            break;
        }
        GgmlPieceRole role = gl.pieces[0].role;
        for (GgmlPieceRole want :
             {GgmlPieceRole::Value, GgmlPieceRole::Code, GgmlPieceRole::GridIndex, GgmlPieceRole::TritByte})
            if (std::any_of(gl.view().begin(), gl.view().end(),
                            [&](const GgmlBitPiece& x) { return x.role == want; })) {
                role = want;
                break;
            }
        const uint64_t block = r * (p.K / ggml->blockWeights) + c / ggml->blockWeights;
        const uint64_t got = ggmlExtractBits(in.placed.data() + block * ggml->blockBytes, gl, role);
        if ((got & ((uint64_t(1) << in.codeBits) - 1)) != codes[e])
            bad = probeCell(r, c) + ": block map reads " + std::to_string(got) + ", placed " + std::to_string(codes[e]);
    }
    out.push_back({"the ggml block map reads every code", bad.empty(), bad});
    std::vector<float> ref(p.N * p.K), fst(p.N * p.K);
    dequantizeGgmlRowsRef(ggml->id, in.placed.data(), p.N, p.K, ref.data());
    dequantizeGgmlRows(ggml->id, in.placed.data(), p.N, p.K, fst.data(), in.fast);
    out.push_back(probeBitExact(ref, fst, in.fast));
    return out;
}

} // namespace qs
