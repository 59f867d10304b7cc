// verify's checks of MLX affine weights: shapes, finite scale/bias pairs, the words against
// their repacking, and zero scales with a nonzero bias.
#include "formats/mlx/mlx.h"

#include "base/bitstream.h"
#include "base/error.h"
#include "formats/verify_util.h"

#include <cmath>

namespace qs {

void verifyMlxWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    MlxAffine s;
    try {
        s = mlxState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    if (w.shape.size() == 2)
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, s.bits, s.groupSize, {"weight", "scales", "biases"});
    // Non-finite scales and biases are the health scan's (analysis/healthscan.h), with their places.
    std::vector<uint8_t> repacked, row(s.cols);
    repacked.reserve(s.packed.size());
    for (uint64_t n = 0; n < s.rows; ++n) {
        for (uint64_t k = 0; k < s.cols; ++k)
            row[k] = uint8_t(s.code(n, k));
        std::vector<uint8_t> words = bitstream::packStream(row, s.bits, 32);
        words.resize(4 * s.wordsPerRow, 0);
        repacked.insert(repacked.end(), words.begin(), words.end());
    }
    checkRoundTrip(
        add, "qweight-roundtrip", s.packed, repacked,
        QT_TRANSLATE_NOOP(
            "qs::Message",
            "stored weight words differ from their repacking (nonzero padding or sign-extended fields?): %1"));
    // MLX's quantizer makes the larger-magnitude group edge exact: bias is that edge, and the
    // other edge is bias + scale * (2^b - 1). A bias of 0 with a nonzero scale is a zero-edge group.
    uint64_t zeroScale = 0;
    for (uint64_t i = 0; i < s.scales.size(); ++i)
        zeroScale += s.scales.at(i) == 0.0f && s.biases.at(i) != 0.0f;
    if (zeroScale)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message",
                                      "%1 groups have a zero scale but a nonzero bias (MLX clamps |scale| to 1e-7)"),
                    {std::to_string(zeroScale)}),
            true);
}

} // namespace qs
