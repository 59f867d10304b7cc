#include "formats/affine/affine_targets.h"

#include "base/error.h"
#include "formats/codes.h"

#include <optional>

namespace qs {

void affineScheme(const QuantizeRequest& request, int64_t defaultGroup, bool defaultSymmetric, QuantScheme& s)
{
    s.bits = request.bits ? request.bits : 4;
    s.groupSize = request.groupSize ? request.groupSize : defaultGroup;
    if (s.groupSize < -1 || s.groupSize == 0)
        throw Error("quantize: --group-size must be positive or -1 (per channel)");
    s.symmetric = request.symmetric >= 0 ? request.symmetric == 1 : defaultSymmetric;
}

uint64_t affineGroupSize(const QuantScheme& s, uint64_t cols)
{
    return s.groupSize < 0 ? cols : uint64_t(s.groupSize);
}

std::vector<StoredTensor> quantizeAffineTensors(const QuantScheme& s, const float* weight, uint64_t rows, uint64_t cols,
                                                AffineRule rule, AffineTarget target, DType scaleType, bool parallel)
{
    AffineOptions ao;
    ao.bits = s.bits;
    ao.rule = rule;
    ao.symmetric = s.symmetric;
    ao.clipRatio = s.clipRatio;
    ao.granularity = s.groupSize < 0 ? AffineGranularity::Channel : AffineGranularity::Group;
    ao.groupSize = affineGroupSize(s, cols);
    return packAffine(quantizeAffine(weight, rows, cols, ao, parallel), target, scaleType);
}

PlaygroundAffineRun affinePlaygroundRun(const FormatInfo& format, const float* values, uint64_t rows, uint64_t cols,
                                        const AffineOptions& options, DType scaleType)
{
    // The target whose registry record is the format's.
    std::optional<AffineTarget> target;
    for (AffineTarget t : {AffineTarget::GptqV1, AffineTarget::GptqV2, AffineTarget::AwqGemm,
                           AffineTarget::CompressedTensors, AffineTarget::Mlx})
        if (findFormat(affineTargetName(t)) == &format)
            target = t;
    if (!target)
        throw Error("playground: " + format.id + " is not an affine target");
    PlaygroundAffineRun r;
    r.quantized = quantizeAffine(values, rows, cols, options, false);
    r.dequantized = dequantizeAffine(r.quantized);
    try {
        r.stored = packAffine(r.quantized, *target, scaleType);
    } catch (const Error& e) {
        r.packError = e.what();
    }
    return r;
}

AffineQuantized affineFromCodes(const WeightCodes& m, AffineRule rule)
{
    AffineQuantized q;
    q.rows = m.rows;
    q.cols = m.cols;
    q.bits = m.bits;
    q.groupSize = m.groupSize;
    q.groups = m.groups;
    q.rule = rule;
    q.symmetric = m.symmetric();
    q.codes = m.codes;
    q.scales = m.scales;
    q.zeros.assign(m.zeros.begin(), m.zeros.end());
    return q;
}

} // namespace qs
