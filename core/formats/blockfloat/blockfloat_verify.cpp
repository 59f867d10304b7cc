// verify's checks of the block-scaled floats: the members' shapes (through the kernels' state),
// scale bytes that decode to NaN or Inf (MXFP4's 0xFF, NaN in the OCP MX spec; an FP8 block scale's
// NaN codes), negative or zero scales a ModelOpt export never writes, and MXFP4 blocks whose scale
// 254 overflows their large codes to +-inf.
#include "formats/blockfloat/blockfloat.h"

#include "base/error.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/verify_util.h"

#include <cmath>

namespace qs {

namespace {

// ModelOpt's global and per-tensor scales are finite and positive, as amax / (6 * 448) and amax / 448 are.
void checkPositive(const FindingSink& add, const char* role, const FloatView& v)
{
    uint64_t bad = 0;
    for (uint64_t i = 0; i < v.size(); ++i)
        bad += !std::isfinite(v.at(i)) || !(v.at(i) > 0.0f);
    if (bad)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 %3 values are not finite and positive"),
                    {std::to_string(bad), std::to_string(v.size()), role}));
}

} // namespace

void verifyMxfp4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    Fp4Blocks s;
    try {
        s = mxfp4State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    uint64_t nan = 0, overflow = 0;
    for (uint64_t n = 0; n < s.rows; ++n)
        for (uint64_t b = 0; b < s.blocksPerRow; ++b) {
            const uint8_t e = s.scales[n * s.blocksPerRow + b];
            nan += e == 0xFF;
            if (e == 0xFE)
                for (uint64_t k = b * 32; k < b * 32 + 32; ++k)
                    if ((s.code(n, k) & 7) >= 4) { // |E2M1| >= 2: times 2^127 overflows
                        ++overflow;
                        break;
                    }
        }
    countNonFinite(add, nan, s.rows * s.blocksPerRow,
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block scales are 0xFF, NaN in the OCP MX spec"));
    if (overflow)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 blocks with scale 254 hold codes that overflow to +-inf"),
                    {std::to_string(overflow)}),
            true);
}

void verifyNvfp4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    Fp4Blocks s;
    try {
        s = nvfp4State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const TensorEntry& g = WeightData{ckpt, w}.entry("weight_scale_2");
    checkPositive(add, "weight_scale_2", FloatView(ckpt.bytes(g), g.dtype, std::string(g.name)));
    uint64_t nan = 0, negative = 0;
    for (const uint8_t v : s.scales) {
        nan += (v & 0x7F) == 0x7F;
        negative += (v & 0x80) && (v & 0x7F) != 0x7F;
    }
    countNonFinite(add, nan, s.scales.size(),
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 FP8 block scales are NaN or Inf"));
    if (negative)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 FP8 block scales are negative"),
                    {std::to_string(negative), std::to_string(s.scales.size())}));
}

void verifyModeloptFp8Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    CtPacked s;
    try {
        s = ctPackedState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    checkSpecShapes(add, ckpt, w, s.cols, s.rows, 8, 0, {"weight"});
    checkPositive(add, "weight_scale", s.scale);
}

} // namespace qs
