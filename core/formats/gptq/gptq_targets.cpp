// GPTQ (v1, v2) and AWQ GEMM as targets: quantize's scheme, quantizer and configs
// (AutoGPTQ's quantize_config.json, AutoAWQ's quant_config.json), repack's packers, and the
// budget table's GPTQ and AWQ rows.
#include "formats/affine/affine_targets.h"
#include "formats/codes.h"
#include "formats/gptq/gptq.h"
#include "formats/target.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/half.h"
#include "base/parallel.h"

#include <QJsonObject>
#include <QRegularExpression>
#include <QtGlobal>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qs {

namespace {

bool awqTarget(const FormatInfo& f)
{
    return f.id == "awq-gemm";
}
bool gptqV1Target(const FormatInfo& f)
{
    return f.id == "gptq-v1";
}

void gptqQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    affineScheme(r, 128, false, s);
    if (awqTarget(*s.format)) {
        if (s.bits != 4 || s.symmetric)
            throw Error(
                "quantize: awq-gemm is 4-bit with zero points (AutoAWQ GEMM): no --bits other than 4, no --sym");
    } else if (s.bits < 2 || s.bits > 8 || s.bits == 5 || s.bits == 6 || s.bits == 7) {
        throw Error("quantize: GPTQ packs 2, 3, 4 or 8 bits (5-7 need GPTQModel's planar layout)");
    }
}

std::vector<StoredTensor> gptqQuantize(const QuantScheme& s, const float* x, uint64_t rows, uint64_t cols,
                                       bool parallel)
{
    const bool awq = awqTarget(*s.format);
    const uint64_t group = affineGroupSize(s, cols);
    if (awq && cols % group != 0)
        throw Error("the group size " + std::to_string(group) + " does not divide K = " + std::to_string(cols));
    // GPTQ and AWQ keep F16 scales for an F32 model (their kernels take half scales).
    const DType st = s.modelDtype == DType::F32 ? DType::F16 : s.modelDtype;
    const AffineTarget target = awq ? AffineTarget::AwqGemm
        : gptqV1Target(*s.format)   ? AffineTarget::GptqV1
                                    : AffineTarget::GptqV2;
    return quantizeAffineTensors(s, x, rows, cols, awq ? AffineRule::Awq : AffineRule::Gptq, target, st, parallel);
}

QJsonValue gptqConfigGroup(const QuantScheme& s)
{
    return s.groupSize < 0 ? QJsonValue(-1) : QJsonValue(qint64(s.groupSize));
}

std::string gptqSideConfig(const QuantScheme& s, QJsonObject& side)
{
    if (awqTarget(*s.format)) {
        side = QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("awq")},
                           {QStringLiteral("zero_point"), true},
                           {QStringLiteral("q_group_size"), gptqConfigGroup(s)},
                           {QStringLiteral("w_bit"), s.bits},
                           {QStringLiteral("version"), QStringLiteral("gemm")}};
        return "quant_config.json";
    }
    // AutoGPTQ BaseQuantizeConfig.to_dict(), as config.json and quantize_config.json hold it.
    side = QJsonObject{{QStringLiteral("bits"), s.bits},
                       {QStringLiteral("group_size"), gptqConfigGroup(s)},
                       {QStringLiteral("damp_percent"), 0.01},
                       {QStringLiteral("desc_act"), s.actOrder},
                       {QStringLiteral("static_groups"), false},
                       {QStringLiteral("sym"), s.symmetric},
                       {QStringLiteral("true_sequential"), true},
                       {QStringLiteral("model_name_or_path"), QJsonValue::Null},
                       {QStringLiteral("model_file_base_name"), QStringLiteral("model")},
                       {QStringLiteral("quant_method"), QStringLiteral("gptq")},
                       {QStringLiteral("checkpoint_format"),
                        gptqV1Target(*s.format) ? QStringLiteral("gptq") : QStringLiteral("gptq_v2")}};
    // AutoGPTQ's config has no key for modules left in float; GPTQModel and vLLM read them from
    // `dynamic` as negative matches ("-:" + a regex matched at the start of the module name).
    if (!s.skipped.empty()) {
        QJsonObject dynamic;
        for (const std::string& m : s.skipped)
            dynamic.insert(QStringLiteral("-:") + QRegularExpression::escape(QString::fromStdString(m))
                               + QLatin1Char('$'),
                           QJsonObject{});
        side.insert(QStringLiteral("dynamic"), dynamic);
    }
    return "quantize_config.json";
}

void gptqConfig(const QuantScheme& s, QJsonObject& cfg)
{
    if (!awqTarget(*s.format)) {
        QJsonObject side;
        gptqSideConfig(s, side);
        cfg.insert(QStringLiteral("quantization_config"), side);
        return;
    }
    cfg.insert(QStringLiteral("quantization_config"),
               QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("awq")},
                           {QStringLiteral("bits"), s.bits},
                           {QStringLiteral("group_size"), gptqConfigGroup(s)},
                           {QStringLiteral("zero_point"), true},
                           {QStringLiteral("version"), QStringLiteral("gemm")},
                           {QStringLiteral("modules_to_not_convert"), skippedModulesJson(s)}});
}

bool gptqKeepsGroupIndex(const FormatInfo& target)
{
    return !awqTarget(target);
}

std::vector<uint16_t> gptqScaleBits(const WeightCodes& m, DType t)
{
    std::vector<uint16_t> s(m.scales.size());
    for (size_t i = 0; i < s.size(); ++i)
        s[i] = t == DType::BF16 ? floatToBf16(m.scales[i]) : floatToHalf(m.scales[i]);
    return s;
}

// GPTQ v1 qzeros as AutoGPTQ's pack() writes them: each field is z - 1 converted to uint32 and
// OR-ed in after shifting, so a zero of 0 (-1) sets every higher bit of its word (a field that
// straddles into the next word contributes only its own bits there). Decoding that word with
// the reference v1 rule gives back the zeros it came from, so v1 -> v2 -> v1 keeps the bytes.
std::vector<uint32_t> gptqV1Zeros(const WeightCodes& m)
{
    const int b = m.bits;
    const uint64_t N = m.rows, cols = ceilDiv(N * uint64_t(b), 32);
    std::vector<uint32_t> out(m.groups * cols, 0);
    for (uint64_t g = 0; g < m.groups; ++g) {
        uint32_t* row = out.data() + g * cols;
        for (uint64_t n = 0; n < N; ++n) {
            const int32_t f = m.zeros[g * N + n] - 1;
            if (f >= (1 << b) || f < -1)
                throw Error("zero " + std::to_string(f + 1) + " (group " + std::to_string(g) + ", column "
                            + std::to_string(n) + ") does not fit a " + std::to_string(b) + "-bit GPTQ v1 field");
            const uint64_t bit = n * uint64_t(b);
            const unsigned shift = unsigned(bit % 32);
            const uint64_t word = bit / 32;
            row[word] |= uint32_t(f) << shift; // f = -1 spills ones into the higher fields, as upstream
            if (shift + unsigned(b) > 32)
                row[word + 1] |= (uint32_t(f) >> (32 - shift)) & ((1u << (shift + unsigned(b) - 32)) - 1u);
        }
    }
    return out;
}

std::vector<StoredTensor> gptqPackGptq(const WeightCodes& m, bool v1, DType st)
{
    std::vector<int32_t> z = m.zeros;
    if (v1)
        std::fill(z.begin(), z.end(), 1); // qzeros replaced below; packGptq(v1) refuses z = 0
    PackedOutput p = packGptq(m.codes, z, gptqScaleBits(m, st), m.bits, m.cols, m.rows, m.groups, v1, false);
    if (v1) {
        const std::vector<uint32_t> zw = gptqV1Zeros(m);
        std::memcpy(p.qzeros.bytes.data(), zw.data(), p.qzeros.bytes.size());
    }
    std::vector<StoredTensor> out;
    out.push_back({"qweight", DType::I32, p.qweight.shape, std::move(p.qweight.bytes)});
    out.push_back({"qzeros", DType::I32, p.qzeros.shape, std::move(p.qzeros.bytes)});
    out.push_back({"scales", st, p.scales.shape, std::move(p.scales.bytes)});
    out.push_back(storedTensor("g_idx", DType::I32, {m.cols}, m.gIdx));
    return out;
}

std::vector<StoredTensor> gptqPackAwq(const WeightCodes& m, DType st)
{
    if (m.bits > 4)
        throw Error(std::to_string(m.bits) + "-bit codes do not fit AWQ GEMM's 4-bit fields");
    // AutoAWQ's WQLinear_GEMM asserts both: a padded weight would not load as the model's layer.
    if (m.rows % 8)
        throw Error("AWQ GEMM packs 8 output features per int32 (AutoAWQ asserts out_features % 8 == 0): N = "
                    + std::to_string(m.rows) + " cannot be stored");
    if (m.cols % m.groupSize)
        throw Error("AWQ needs whole groups (AutoAWQ asserts in_features % group_size == 0): group size "
                    + std::to_string(m.groupSize) + " does not divide K = " + std::to_string(m.cols));
    // The packer (the bitstream oracle) on blocks of 64 rows in parallel: it gathers each
    // k's codes across the rows, which within a block stay in cache. A block's words
    // are columns [n0 / 8, n1 / 8) of qweight and qzeros.
    const uint64_t N = m.rows, K = m.cols;
    const std::vector<uint16_t> sb = gptqScaleBits(m, st);
    const uint64_t words = N / 8, groups = m.groups;
    std::vector<uint8_t> qweight(K * words * 4), qzeros(groups * words * 4);
    runChunks(ceilDiv(N, 64), 0, nullptr, [&](uint64_t b, NoChunkState&) {
        const uint64_t n0 = b * 64, nb = std::min<uint64_t>(64, N - n0);
        std::vector<int32_t> z(groups * nb);
        std::vector<uint16_t> sc(groups * nb);
        for (uint64_t g = 0; g < groups; ++g)
            for (uint64_t j = 0; j < nb; ++j) {
                z[g * nb + j] = m.zeros[g * N + n0 + j];
                sc[g * nb + j] = sb[g * N + n0 + j];
            }
        const PackedOutput p =
            packAwqGemm(std::span<const uint8_t>(m.codes).subspan(n0 * K, nb * K), z, sc, K, nb, m.groupSize);
        const uint64_t bw = nb / 8 * 4; // bytes of the block per row of words
        for (uint64_t k = 0; k < K; ++k)
            std::memcpy(qweight.data() + (k * words + n0 / 8) * 4, p.qweight.bytes.data() + k * bw, bw);
        for (uint64_t g = 0; g < groups; ++g)
            std::memcpy(qzeros.data() + (g * words + n0 / 8) * 4, p.qzeros.bytes.data() + g * bw, bw);
    });
    std::vector<StoredTensor> out;
    out.push_back({"qweight", DType::I32, {K, words}, std::move(qweight)});
    out.push_back({"qzeros", DType::I32, {groups, words}, std::move(qzeros)});
    out.push_back(storedTensor("scales", st, {groups, N}, sb));
    return out;
}

PackedWeight gptqPack(const WeightCodes& m, QuantScheme& s)
{
    const DType st = m.scaleType == DType::BF16 ? DType::BF16 : DType::F16; // GPTQ/AWQ: half scales
    PackedWeight out;
    try {
        if (awqTarget(*s.format)) {
            out.tensors = gptqPackAwq(m, st);
            s.bits = 4; // narrower codes sit in AWQ's 4-bit fields
        } else {
            out.tensors = gptqPackGptq(m, gptqV1Target(*s.format), st);
        }
    } catch (const std::invalid_argument& e) {
        throw Error(e.what());
    }
    return out;
}

void gptqBudget(std::vector<BudgetFormat>& out)
{
    const FormatInfo* gptq = findFormat("gptq-v1");
    const FormatInfo* awq = findFormat("awq-gemm");
    // AutoGPTQ and GPTQModel write g_idx even when it is trivial; AWQ stores none.
    const std::vector<BudgetTensor> gptqTensors = {{"qweight", BudgetPart::Codes},
                                                   {"scales", BudgetPart::Scales},
                                                   {"qzeros", BudgetPart::Zeros},
                                                   {"g_idx", BudgetPart::Index}};
    for (int b : {2, 3, 4, 8})
        for (uint64_t g : {32, 64, 128, 0}) {
            out.push_back(budgetRow("gptq-" + std::to_string(b) + (g ? "-g" + std::to_string(g) : "-channel"), gptq, b,
                                    g, gptqTensors));
            out.back().reportedBy = {"gptq-v1", "gptq-v2"};
        }
    for (uint64_t g : {32, 64, 128}) {
        out.push_back(
            budgetRow("awq-4-g" + std::to_string(g), awq, 4, g,
                      {{"qweight", BudgetPart::Codes}, {"scales", BudgetPart::Scales}, {"qzeros", BudgetPart::Zeros}}));
        out.back().reportedBy = {"awq-gemm"};
    }
    markBudgetPresets(out,
                      {{"gptq-8-g128", BudgetPreset::Common},
                       {"gptq-4-g128", BudgetPreset::Headline},
                       {"gptq-4-g32", BudgetPreset::Common},
                       {"gptq-3-g128", BudgetPreset::Headline},
                       {"gptq-2-g64", BudgetPreset::Common},
                       {"awq-4-g128", BudgetPreset::Headline}});
}

void gptqPlaygroundFormats(std::vector<PlaygroundAffineFormat>& out)
{
    out.push_back({findFormat("gptq-v1"), QT_TRANSLATE_NOOP("qs::PlaygroundFormat", "GPTQ v1"), AffineRule::Gptq, 1,
                   affinePlaygroundRun});
    out.push_back({findFormat("gptq-v2"), QT_TRANSLATE_NOOP("qs::PlaygroundFormat", "GPTQ v2"), AffineRule::Gptq, 1,
                   affinePlaygroundRun});
    // One word holds column k of 8 output rows.
    out.push_back({findFormat("awq-gemm"), QT_TRANSLATE_NOOP("qs::PlaygroundFormat", "AWQ GEMM"), AffineRule::Awq, 8,
                   affinePlaygroundRun});
}

void gptqRequantizePresets(std::vector<RequantizePreset>& out)
{
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "GPTQ 8-bit g128 sym"), {"gptq", 8, 128, true}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "GPTQ 4-bit g128 sym"), {"gptq", 4, 128, true}, true});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "GPTQ 4-bit g32 sym"), {"gptq", 4, 32, true}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "GPTQ 3-bit g128 sym"), {"gptq", 3, 128, true}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "GPTQ 2-bit g64 asym"), {"gptq", 2, 64, false}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "AWQ 4-bit g128"), {"awq", 4, 128, false}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "AWQ 4-bit g64"), {"awq", 4, 64, false}});
}

} // namespace

const FamilyTargets& gptqTargets()
{
    static const FamilyTargets t = [] {
        FamilyTargets t{gptqQuantizeScheme,  gptqQuantize, gptqConfig, gptqSideConfig,
                        gptqKeepsGroupIndex, gptqPack,     gptqBudget, gptqRequantizePresets};
        t.playgroundAffineFormats = gptqPlaygroundFormats;
        return t;
    }();
    return t;
}

} // namespace qs
