// MLX affine as a target: quantize's scheme, quantizer and config (mlx-lm's "quantization"),
// repack's packer (bias = -scale * zero in the weight's dtype), and the budget table's rows.
#include "formats/affine/affine_targets.h"
#include "formats/mlx/mlx.h"
#include "formats/codes.h"
#include "formats/target.h"

#include "base/error.h"
#include "base/half.h"

#include <QtGlobal>
#include <QJsonObject>

#include <algorithm>

namespace qs {

namespace {

void mlxQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    affineScheme(r, 64, false, s);
    if (s.groupSize == -1)
        throw Error("quantize: mlx-affine quantizes in groups (32, 64 or 128), not per channel");
    if (s.bits == 7 || s.bits < 2)
        throw Error("quantize: mlx-affine takes 2, 3, 4, 5, 6 or 8 bits");
    if (s.symmetric)
        throw Error("quantize: mlx-affine always stores a bias; --sym does not apply");
}

std::vector<StoredTensor> mlxQuantize(const QuantScheme& s, const float* x, uint64_t rows, uint64_t cols, bool parallel)
{
    return quantizeAffineTensors(s, x, rows, cols, AffineRule::Mlx, AffineTarget::Mlx, s.modelDtype, parallel);
}

void mlxConfig(const QuantScheme& s, QJsonObject& cfg)
{
    // mlx-lm save_config: "quantization", duplicated as "quantization_config" by recent versions.
    const QJsonObject q{
        {QStringLiteral("group_size"), s.groupSize < 0 ? QJsonValue(-1) : QJsonValue(qint64(s.groupSize))},
        {QStringLiteral("bits"), s.bits},
        {QStringLiteral("mode"), QStringLiteral("affine")}};
    cfg.insert(QStringLiteral("quantization"), q);
    cfg.insert(QStringLiteral("quantization_config"), q);
}

bool mlxKeepsGroupIndex(const FormatInfo&)
{
    return false;
}

uint16_t mlxRoundedBits(float v, DType t)
{
    return t == DType::BF16 ? floatToBf16(v) : floatToHalf(v);
}
float mlxFromBits(uint16_t b, DType t)
{
    return t == DType::BF16 ? bf16ToFloat(b) : halfToFloat(b);
}

// MLX affine: w = s * q + bias with bias = -s * z, scales and biases in the weight's dtype.
// s * q and -s * z are exact in float32 and so is their sum (|q - z| < 2^8), so the result is
// the source's s * (q - z) whenever the bias survives the rounding to the stored dtype.
PackedWeight mlxPack(const WeightCodes& m, QuantScheme& s)
{
    static constexpr uint64_t groups[] = {32, 64, 128};
    if (m.bits < 2 || m.bits > 8 || m.bits == 7)
        throw Error("MLX packs 2, 3, 4, 5, 6 or 8-bit codes, not " + std::to_string(m.bits));
    if (std::find(std::begin(groups), std::end(groups), m.groupSize) == std::end(groups) || m.cols % m.groupSize)
        throw Error("mlx.core.quantize takes groups of 32, 64 or 128 that divide K; the source has groups of "
                    + std::to_string(m.groupSize) + " for K = " + std::to_string(m.cols));
    AffineQuantized q = affineFromCodes(m, AffineRule::Mlx);
    const DType st = m.scaleType;
    uint64_t inexact = 0;
    for (size_t i = 0; i < q.zeros.size(); ++i) {
        const float bias = -(m.scales[i] * float(m.zeros[i]));
        q.zeros[i] = bias;
        inexact += st != DType::F32 && mlxFromBits(mlxRoundedBits(bias, st), st) != bias;
    }
    PackedWeight out;
    if (inexact)
        out.note = std::to_string(inexact) + " of " + std::to_string(q.zeros.size())
            + " biases (-scale * zero) round to " + std::string(dtypeName(st))
            + ": the MLX weight is not bit-identical (error below)";
    const std::string sd(dtypeName(st));
    out.inexactNote = "MLX dequantizes in " + sd + " arithmetic (q * scale and + bias each rounded to " + sd
        + "), the source in float32";
    out.tensors = packAffine(q, AffineTarget::Mlx, st);
    s.groupSize = int64_t(m.groupSize); // mlx-lm names the group size even when it is all of K
    return out;
}

void mlxPlaygroundFormats(std::vector<PlaygroundAffineFormat>& out)
{
    out.push_back({findFormat("mlx-affine"), QT_TRANSLATE_NOOP("qs::PlaygroundFormat", "MLX affine"), AffineRule::Mlx,
                   1, affinePlaygroundRun});
}

void mlxBudget(std::vector<BudgetFormat>& out)
{
    const FormatInfo* mlx = findFormat("mlx-affine");
    for (int b : {2, 3, 4, 5, 6, 8})
        for (uint64_t g : {32, 64, 128})
            out.push_back(budgetRow("mlx-" + std::to_string(b) + "-g" + std::to_string(g), mlx, b, g,
                                    {{"weight", BudgetPart::Codes},
                                     {"scales", BudgetPart::Scales},
                                     {"biases", BudgetPart::Zeros, "bias"}}));
    markBudgetPresets(out, {{"mlx-4-g64", BudgetPreset::Headline}, {"mlx-8-g64", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& mlxTargets()
{
    static const FamilyTargets t = [] {
        FamilyTargets t{mlxQuantizeScheme, mlxQuantize, mlxConfig, nullptr, mlxKeepsGroupIndex, mlxPack, mlxBudget};
        t.playgroundAffineFormats = mlxPlaygroundFormats;
        return t;
    }();
    return t;
}

} // namespace qs
