// The GGUF block types as targets: quantize's scheme and quantizer (ggml's reference
// quantizers), repack's Q4_1 / Q5_1 / Q8_0 block writer, how a target goes into a GGUF file
// (its file type, the float fallback), and the budget table's GGUF rows.
#include "formats/ggml/quantize_ggml.h"
#include "formats/codes.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/target.h"

#include "base/error.h"
#include "base/half.h"
#include "container/ggmltype.h"

#include <QtGlobal>

#include <algorithm>
#include <cstring>

namespace qs {

int ggufFormatType(const FormatInfo& format)
{
    if (format.family != FormatFamily::Gguf)
        return -1;
    for (const GgmlTypeInfo& t : ggmlTypes())
        if (!t.removed && ggufFormatId(t.name) == format.id)
            return t.id;
    return -1;
}

int ggufPlainType(DType t)
{
    switch (t) {
    case DType::F32: return GgmlF32;
    case DType::F16: return GgmlF16;
    case DType::BF16: return GgmlBF16;
    case DType::I8: return GgmlI8;
    case DType::I16: return GgmlI16;
    case DType::I32: return GgmlI32;
    case DType::I64: return GgmlI64;
    case DType::F64: return GgmlF64;
    default: return -1;
    }
}

int llamaFileType(int t)
{
    switch (t) {
    case GgmlF32: return 0;
    case GgmlF16: return 1;
    case GgmlQ4_0: return 2;
    case GgmlQ4_1: return 3;
    case GgmlQ8_0: return 7;
    case GgmlQ5_0: return 8;
    case GgmlQ5_1: return 9;
    case GgmlQ2_K: return 10;
    case GgmlQ3_K: return 11; // Q3_K_S: every tensor Q3_K
    case GgmlQ4_K: return 14; // Q4_K_S
    case GgmlQ5_K: return 16; // Q5_K_S
    case GgmlQ6_K: return 18;
    case GgmlBF16: return 32;
    default: return -1;
    }
}

namespace {

void ggmlQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    s.bits = fixedCodeBits(r, *s.format);
    if (r.groupSize || r.symmetric >= 0 || r.clipRatio != 1.0f)
        throw Error("quantize: " + s.format->id
                    + " has fixed blocks: --group-size, --sym/--asym and --clip do not apply");
    s.groupSize = 0;
}

std::vector<StoredTensor> ggmlQuantize(const QuantScheme& s, const float* x, uint64_t rows, uint64_t cols,
                                       bool parallel)
{
    return {StoredTensor{
        "weight", DType::Ggml, {rows, cols}, quantizeGgml(ggufFormatType(*s.format), x, rows, cols, parallel)}};
}

bool ggmlKeepsGroupIndex(const FormatInfo&)
{
    return false;
}

// GGUF Q4_1 / Q5_1 / Q8_0 blocks of 32 along K: Q8_0 holds q = code - zero with d = s (exact
// when s is an f16); Q4_1 / Q5_1 hold the code with d = s and m = -s * zero rounded to f16.
PackedWeight ggmlPack(const WeightCodes& m, QuantScheme& s)
{
    const int type = ggufFormatType(*s.format);
    const int maxBits = type == GgmlQ4_1 ? 4 : type == GgmlQ5_1 ? 5 : 8;
    if (m.bits > maxBits)
        throw Error(std::to_string(m.bits) + "-bit codes do not fit " + std::string(ggmlTypeName(type)));
    if (m.cols % 32 || m.groupSize % 32)
        throw Error("GGUF blocks are 32 weights along K: K = " + std::to_string(m.cols) + " and the group size "
                    + std::to_string(m.groupSize) + " must be multiples of 32");
    const uint64_t N = m.rows, K = m.cols, blocksPerRow = K / 32;
    const size_t bb = type == GgmlQ4_1 ? 20 : type == GgmlQ5_1 ? 24 : 34;
    std::vector<uint8_t> out(N * blocksPerRow * bb, 0);
    for (uint64_t n = 0; n < N; ++n)
        for (uint64_t j = 0; j < blocksPerRow; ++j) {
            uint8_t* blk = out.data() + (n * blocksPerRow + j) * bb;
            const uint64_t gi = uint64_t(m.gIdx[j * 32]) * N + n;
            const float sc = m.scales[gi];
            const int32_t z = m.zeros[gi];
            const uint8_t* c = m.codes.data() + n * K + j * 32;
            const uint16_t d = floatToHalf(sc);
            std::memcpy(blk, &d, 2);
            if (type == GgmlQ8_0) {
                for (int i = 0; i < 32; ++i)
                    blk[2 + i] = uint8_t(int8_t(std::clamp(int32_t(c[i]) - z, -128, 127)));
                continue;
            }
            const uint16_t mn = floatToHalf(-(sc * float(z)));
            std::memcpy(blk + 2, &mn, 2);
            uint8_t* qs = blk + (type == GgmlQ4_1 ? 4 : 8);
            uint32_t qh = 0;
            for (int i = 0; i < 16; ++i) {
                qs[i] = uint8_t((c[i] & 0x0F) | ((c[i + 16] & 0x0F) << 4));
                qh |= uint32_t((c[i] >> 4) & 1) << i;
                qh |= uint32_t((c[i + 16] >> 4) & 1) << (i + 16);
            }
            if (type == GgmlQ5_1)
                std::memcpy(blk + 4, &qh, 4);
        }
    PackedWeight p;
    p.tensors.push_back(StoredTensor{"weight", DType::Ggml, {N, K}, std::move(out)});
    return p;
}

void ggmlBudget(std::vector<BudgetFormat>& out)
{
    for (const GgmlTypeInfo& t : ggmlTypes()) {
        if (t.removed || !t.storage || t.blockWeights <= 1)
            continue;
        const std::string id = ggufFormatId(t.name);
        // Scales and mins live inside each block; the block is the unit of storage.
        out.push_back(budgetRow(id, findFormat(id), int(t.blockBytes * 8 / t.blockWeights), 0,
                                {{"weight", BudgetPart::Codes, "(blocks of weights and their scales)"}}));
    }
    markBudgetPresets(out,
                      {{"gguf-q8_0", BudgetPreset::Headline},
                       {"gguf-q6_k", BudgetPreset::Headline},
                       {"gguf-q5_k", BudgetPreset::Common},
                       {"gguf-q4_k", BudgetPreset::Default},
                       {"gguf-q4_0", BudgetPreset::Headline},
                       {"gguf-q3_k", BudgetPreset::Headline},
                       {"gguf-q2_k", BudgetPreset::Common},
                       {"gguf-iq4_xs", BudgetPreset::Common},
                       {"gguf-iq2_xxs", BudgetPreset::Common}});
}

void ggmlRequantizePresets(std::vector<RequantizePreset>& out)
{
    for (const auto& [label, id] : {std::pair{QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q8_0"), "gguf-q8_0"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q6_K"), "gguf-q6_k"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q5_K"), "gguf-q5_k"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q4_K"), "gguf-q4_k"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q4_0"), "gguf-q4_0"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q3_K"), "gguf-q3_k"},
                                    {QT_TRANSLATE_NOOP("qs::RequantizePreset", "GGUF Q2_K"), "gguf-q2_k"}})
        out.push_back({label, {id}});
}

void ggmlPlaygroundFormats(std::vector<PlaygroundBlockFormat>& out)
{
    // The block types whose every element is a plain code (no grid index or sign bits) that
    // ggml's reference quantizer writes: the legacy types and every k-quant.
    for (const char* id : {"gguf-q4_0", "gguf-q4_1", "gguf-q5_0", "gguf-q5_1", "gguf-q8_0", "gguf-q2_k", "gguf-q3_k",
                           "gguf-q4_k", "gguf-q5_k", "gguf-q6_k"}) {
        const FormatInfo* f = findFormat(id);
        const int type = f ? ggufFormatType(*f) : -1;
        if (type >= 0 && ggmlQuantizeTarget(type))
            out.push_back({f, ggmlQuantBlockWeights(type), {}, nullptr});
    }
}

// The pieces of an element's sub-block scale: equal for the elements of one sub-block.
std::vector<std::pair<uint16_t, uint8_t>> ggmlSubScaleBits(int type, uint32_t e)
{
    std::vector<std::pair<uint16_t, uint8_t>> out;
    const auto element = ggmlLocateElement(type, e); // view() points into it: keep it alive
    for (const GgmlBitPiece& p : element.view())
        if (p.role == GgmlPieceRole::SubScale)
            out.emplace_back(p.byteOffset, p.bitOffset);
    return out;
}

// Elements per level table: a k-quant's sub-block (the elements sharing a sub-block scale), else
// the block.
uint32_t ggmlLevelGroup(int type)
{
    const uint32_t bw = ggmlQuantBlockWeights(type);
    const auto first = ggmlSubScaleBits(type, 0);
    uint32_t n = 1;
    while (n < bw && ggmlSubScaleBits(type, n) == first)
        ++n;
    return first.empty() ? bw : n;
}

int ggmlCodeBits(int type)
{
    int bits = 0;
    const auto element = ggmlLocateElement(type, 0); // view() points into it: keep it alive
    for (const GgmlBitPiece& p : element.view())
        if (p.role == GgmlPieceRole::Code)
            bits += p.width;
    return bits;
}

const char* ggmlPlaygroundFormula(int type)
{
    switch (type) {
    case GgmlQ4_0: return "w = d * (q - 8)";
    case GgmlQ5_0: return "w = d * (q - 16)";
    case GgmlQ4_1:
    case GgmlQ5_1: return "w = d * q + m";
    case GgmlQ8_0: return "w = d * q, q a signed byte";
    case GgmlQ3_K: return "w = d * (sc[j] - 32) * (q - 4), sub-block j";
    case GgmlQ6_K: return "w = d * sc[j] * (q - 32), sub-block j";
    default: return "w = d * sc[j] * q - dmin * m[j], sub-block j";
    }
}

// One ggml block tensor as the Playground shows it: the reference dequantizer's values, each
// element's code bits (ggmlLocateElement) and the decoded block fields. The value each code
// stands for in each level group is the reference dequantizer's too: the code written into the
// group's first element of a copy of the block, every group at once (an element's value depends
// only on its code and its group's fields).
PlaygroundBlocks ggmlPlaygroundDecode(const FormatInfo& format, const std::vector<StoredTensor>& tensors, uint64_t rows,
                                      uint64_t cols)
{
    const int type = ggufFormatType(format);
    const uint32_t bw = ggmlQuantBlockWeights(type), bb = ggmlQuantBlockBytes(type);
    if (type < 0 || bw <= 1 || cols % bw != 0 || tensors.size() != 1
        || tensors[0].bytes.size() != ggmlQuantizedBytes(type, rows, cols))
        throw Error("playground: not a " + format.id + " tensor of " + std::to_string(rows) + " x "
                    + std::to_string(cols));
    const int codeBits = ggmlCodeBits(type);
    if (codeBits < 1 || codeBits > 8)
        throw Error("playground: " + format.id + " has no plain codes");
    const uint8_t* bytes = tensors[0].bytes.data();
    const uint64_t blocks = rows * cols / bw;
    PlaygroundBlocks out;
    out.dequantized.resize(size_t(rows * cols));
    dequantizeGgmlRowsRef(type, bytes, rows, cols, out.dequantized.data());
    out.blockWeights = bw;
    out.groupSize = ggmlLevelGroup(type);
    out.codeCount = 1u << codeBits;
    const uint32_t groupsPerBlock = bw / out.groupSize;
    out.levels.resize(size_t(blocks * groupsPerBlock * out.codeCount));
    out.codes.resize(size_t(rows * cols));
    std::vector<GgmlElementLocation> where(bw);
    for (uint32_t e = 0; e < bw; ++e)
        where[e] = ggmlLocateElement(type, e);
    std::vector<uint8_t> copy(bb);
    std::vector<float> values(bw);
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint8_t* block = bytes + b * bb;
        float* levels = out.levels.data() + b * groupsPerBlock * out.codeCount;
        for (uint32_t c = 0; c < out.codeCount; ++c) {
            std::memcpy(copy.data(), block, bb);
            for (uint32_t g = 0; g < groupsPerBlock; ++g)
                ggmlDepositBits(copy.data(), where[g * out.groupSize], GgmlPieceRole::Code, c);
            dequantizeGgmlRowsRef(type, copy.data(), 1, bw, values.data());
            for (uint32_t g = 0; g < groupsPerBlock; ++g)
                levels[g * out.codeCount + c] = values[g * out.groupSize];
        }
        for (uint32_t e = 0; e < bw; ++e)
            out.codes[size_t(b * bw + e)] = uint8_t(ggmlExtractBits(block, where[e], GgmlPieceRole::Code));
        BlockValues v;
        v.hasBlock = true;
        v.block = b;
        v.firstRow = b * bw / cols;
        v.firstCol = b * bw % cols;
        v.values = ggufBlockValuesOf(type, block, 0, true);
        out.blocks.push_back(std::move(v));
    }
    out.formula = ggmlPlaygroundFormula(type);
    return out;
}

int ggmlWeightType(int type, uint64_t k)
{
    return k % ggmlQuantBlockWeights(type) == 0 ? type : GgmlF32;
}

GgufOutput ggmlGgufOutput(const FormatInfo& target)
{
    const int type = ggufFormatType(target);
    return type < 0 ? GgufOutput{}
                    : GgufOutput{type, ggmlQuantBlockWeights(type), llamaFileType(type), ggufPlainType, ggmlWeightType};
}

} // namespace

const FamilyTargets& ggmlTargets()
{
    static const FamilyTargets t{ggmlQuantizeScheme,
                                 ggmlQuantize,
                                 nullptr,
                                 nullptr,
                                 ggmlKeepsGroupIndex,
                                 ggmlPack,
                                 ggmlBudget,
                                 ggmlRequantizePresets,
                                 ggmlPlaygroundFormats,
                                 ggmlPlaygroundDecode,
                                 ggmlGgufOutput};
    return t;
}

} // namespace qs
