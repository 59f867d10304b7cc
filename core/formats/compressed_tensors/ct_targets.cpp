// compressed-tensors pack-quantized as a target: quantize's scheme, quantizer and config
// (llm-compressor's quantization_config), repack's packer, and the budget table's rows.
#include "formats/affine/affine_targets.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/codes.h"
#include "formats/target.h"

#include "base/error.h"

#include <QtGlobal>
#include <QJsonArray>
#include <QJsonObject>

#include <stdexcept>

namespace qs {

namespace {

void ctQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    affineScheme(r, 128, true, s); // symmetric unless --asym
}

std::vector<StoredTensor> ctQuantize(const QuantScheme& s, const float* x, uint64_t rows, uint64_t cols, bool parallel)
{
    return quantizeAffineTensors(s, x, rows, cols, AffineRule::CompressedTensors, AffineTarget::CompressedTensors,
                                 s.modelDtype, parallel);
}

void ctConfig(const QuantScheme& s, QJsonObject& cfg)
{
    const bool channel = s.groupSize < 0;
    const QJsonObject weights{
        {QStringLiteral("num_bits"), s.bits},
        {QStringLiteral("type"), QStringLiteral("int")},
        {QStringLiteral("symmetric"), s.symmetric},
        {QStringLiteral("group_size"), channel ? QJsonValue(QJsonValue::Null) : QJsonValue(qint64(s.groupSize))},
        {QStringLiteral("strategy"), channel ? QStringLiteral("channel") : QStringLiteral("group")},
        {QStringLiteral("block_structure"), QJsonValue::Null},
        {QStringLiteral("dynamic"), false},
        {QStringLiteral("actorder"), s.actOrder ? QJsonValue(QStringLiteral("group")) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("observer"), QStringLiteral("minmax")},
        {QStringLiteral("observer_kwargs"), QJsonObject{}}};
    const QJsonObject group0{{QStringLiteral("targets"), QJsonArray{QStringLiteral("Linear")}},
                             {QStringLiteral("weights"), weights},
                             {QStringLiteral("input_activations"), QJsonValue::Null},
                             {QStringLiteral("output_activations"), QJsonValue::Null},
                             {QStringLiteral("format"), QStringLiteral("pack-quantized")}};
    QJsonArray ignore;
    for (const std::string& m : s.skipped)
        ignore.append(QString::fromStdString(m));
    cfg.insert(QStringLiteral("quantization_config"),
               QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("compressed-tensors")},
                           {QStringLiteral("format"), QStringLiteral("pack-quantized")},
                           {QStringLiteral("quantization_status"), QStringLiteral("compressed")},
                           {QStringLiteral("config_groups"), QJsonObject{{QStringLiteral("group_0"), group0}}},
                           {QStringLiteral("ignore"), ignore},
                           {QStringLiteral("kv_cache_scheme"), QJsonValue::Null},
                           {QStringLiteral("global_compression_ratio"), QJsonValue::Null},
                           {QStringLiteral("sparsity_config"), QJsonObject{}}});
}

bool ctKeepsGroupIndex(const FormatInfo&)
{
    return true; // weight_g_idx with actorder "group"
}

PackedWeight ctPack(const WeightCodes& m, QuantScheme&)
{
    // compressed-tensors keeps the source's scale dtype and stores g_idx itself (actorder "group").
    PackedWeight out;
    try {
        const AffineQuantized q = affineFromCodes(m, AffineRule::CompressedTensors);
        if (m.bits < 2)
            throw Error("compressed-tensors packs 2..8-bit codes");
        out.tensors = packAffine(q, AffineTarget::CompressedTensors, m.scaleType);
        if (m.actOrder())
            out.tensors.push_back(storedTensor("weight_g_idx", DType::I32, {m.cols}, m.gIdx));
    } catch (const std::invalid_argument& e) {
        throw Error(e.what());
    }
    return out;
}

void ctPlaygroundFormats(std::vector<PlaygroundAffineFormat>& out)
{
    out.push_back({findFormat("compressed-tensors"), QT_TRANSLATE_NOOP("qs::PlaygroundFormat", "compressed-tensors"),
                   AffineRule::CompressedTensors, 1, affinePlaygroundRun});
}

void ctBudget(std::vector<BudgetFormat>& out)
{
    const FormatInfo* ct = findFormat("compressed-tensors");
    // Zero points only when asymmetric; weight_shape always, no g_idx (no actorder).
    const auto row = [&](std::string id, int bits, uint64_t group, bool symmetric) {
        std::vector<BudgetTensor> tensors = {{"weight_packed", BudgetPart::Codes},
                                             {"weight_scale", BudgetPart::Scales},
                                             {"weight_shape", BudgetPart::Index, "shape/g_idx"}};
        if (!symmetric)
            tensors.push_back({"weight_zero_point", BudgetPart::Zeros});
        out.push_back(budgetRow(std::move(id), ct, bits, group, std::move(tensors)));
    };
    row("ct-w4-g128-sym", 4, 128, true);
    row("ct-w4-g128-asym", 4, 128, false);
    row("ct-w4-g32-asym", 4, 32, false);
    row("ct-w4-channel-sym", 4, 0, true);
    row("ct-w8-channel-sym", 8, 0, true);
    markBudgetPresets(out, {{"ct-w4-g128-sym", BudgetPreset::Common}, {"ct-w8-channel-sym", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& compressedTensorsTargets()
{
    static const FamilyTargets t = [] {
        FamilyTargets t{ctQuantizeScheme, ctQuantize, ctConfig, nullptr, ctKeepsGroupIndex, ctPack, ctBudget};
        t.playgroundAffineFormats = ctPlaygroundFormats;
        return t;
    }();
    return t;
}

} // namespace qs
