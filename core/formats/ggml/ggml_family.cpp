#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_tally.h"
#include "formats/ggml/quantize_ggml.h"
#include "base/asciicase.h"
#include "container/ggmltype.h"

#include <QtGlobal>

#include <algorithm>

namespace qs {
namespace {

// Every GGUF type, plain ones included, goes through the ggml row kernels; the forks' types it
// only names do not.
DequantRowsFn ggmlDequant(const FormatInfo& format)
{
    return format.storage == StorageKind::None ? nullptr : dequantGgufWeightRows;
}

VerifyFn ggmlVerify(const FormatInfo& format)
{
    return format.storage == StorageKind::GgmlBlock ? verifyGgufWeight : nullptr;
}

// Every GGUF type: the reader says why a plain or scale-less type has none (ggufBlockScalesApply
// tells them apart beforehand).
GroupScalesFn ggmlGroupScales(const FormatInfo&)
{
    return ggufGroupScales;
}

const char* ggmlDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "GGUF");
}

struct GgufTraits {
    std::string_view name;
    int bits;
    std::string_view what;
};

// Nominal code width and a one-line description of each storable ggml type (spec gguf.md 2).
constexpr GgufTraits kGgufTraits[] = {
    {"F32", 32, "IEEE binary32"},
    {"F16", 16, "IEEE binary16"},
    {"Q4_0", 4, "32-weight blocks: f16 scale + 4-bit codes (x = d*(q-8))"},
    {"Q4_1", 4, "32-weight blocks: f16 scale and min + 4-bit codes"},
    {"Q5_0", 5, "32-weight blocks: f16 scale + 5-bit codes (high bits apart)"},
    {"Q5_1", 5, "32-weight blocks: f16 scale and min + 5-bit codes"},
    {"Q8_0", 8, "32-weight blocks: f16 scale + int8 codes"},
    {"Q8_1", 8, "32-weight blocks: f16 scale and sum + int8 codes (dot-product intermediate)"},
    {"Q2_K", 2, "256-weight super-blocks, 16 sub-blocks with 4-bit scales and mins, 2-bit codes"},
    {"Q3_K", 3, "256-weight super-blocks, 16 sub-blocks with 6-bit scales, 3-bit codes"},
    {"Q4_K", 4, "256-weight super-blocks, 8 sub-blocks with 6-bit scales and mins, 4-bit codes"},
    {"Q5_K", 5, "256-weight super-blocks, 8 sub-blocks with 6-bit scales and mins, 5-bit codes"},
    {"Q6_K", 6, "256-weight super-blocks, 16 sub-blocks with int8 scales, 6-bit codes"},
    {"Q8_K", 8, "256-weight blocks: f32 scale + int8 codes (dot-product intermediate)"},
    {"IQ2_XXS", 2, "256-weight blocks, E8-lattice grid codebook, about 2.06 bits"},
    {"IQ2_XS", 2, "256-weight blocks, 512-entry grid codebook, about 2.31 bits"},
    {"IQ3_XXS", 3, "256-weight blocks, 256-entry grid codebook, about 3.06 bits"},
    {"IQ1_S", 1, "256-weight blocks, ternary grid codebook, about 1.56 bits"},
    {"IQ4_NL", 4, "32-weight blocks: f16 scale + 4-bit non-linear codebook"},
    {"IQ3_S", 3, "256-weight blocks, 512-entry grid codebook, about 3.44 bits"},
    {"IQ2_S", 2, "256-weight blocks, 1024-entry grid codebook, about 2.56 bits"},
    {"IQ4_XS", 4, "256-weight blocks, 6-bit sub-block scales, 4-bit non-linear codebook"},
    {"I8", 8, "plain int8"},
    {"I16", 16, "plain int16"},
    {"I32", 32, "plain int32"},
    {"I64", 64, "plain int64"},
    {"F64", 64, "IEEE binary64"},
    {"IQ1_M", 1, "256-weight blocks, ternary grid codebook with per-16 scales, about 1.75 bits"},
    {"BF16", 16, "bfloat16"},
    {"TQ1_0", 2, "256-weight blocks of ternary codes, five per byte (base 3), about 1.69 bits"},
    {"TQ2_0", 2, "256-weight blocks of ternary codes in 2-bit fields"},
    {"MXFP4", 4, "32-weight blocks: E8M0 scale + FP4 E2M1 codes (OCP microscaling)"},
    {"NVFP4", 4, "64-weight blocks: FP8 E4M3 sub-block scales + FP4 E2M1 codes"},
    {"Q1_0", 1, "128-weight blocks: f16 scale + 1-bit signs (x = +-d)"},
    {"Q2_0", 2, "64-weight blocks: f16 scale + 2-bit codes (x = (q-1)*d)"},
};

// GGUF's storable types in ggml id order: block types and the plain ones GGUF stores.
void ggmlFormats(FormatList& out)
{
    for (const auto& t : ggmlTypes()) {
        if (t.removed)
            continue;
        const auto traits = std::find_if(std::begin(kGgufTraits), std::end(kGgufTraits),
                                         [&](const GgufTraits& g) { return g.name == t.name; });
        const bool plain = t.blockWeights == 1;
        FormatInfo f;
        f.id = "gguf-" + asciiLower(t.name);
        f.description = "GGUF " + std::string(t.name);
        if (traits != std::end(kGgufTraits))
            f.description += ": " + std::string(traits->what);
        f.bits = traits != std::end(kGgufTraits) ? traits->bits : 0;
        f.quantized = !plain;
        f.storage = !plain ? StorageKind::GgmlBlock : t.name[0] == 'I' ? StorageKind::Integer : StorageKind::Float;
        f.colour = asciiLower(t.name).rfind("iq", 0) == 0 ? ColourRole::Codebook : ColourRole::Block;
        f.requantize = plain ? RequantizeRule::None : RequantizeRule::Ggml;
        f.quantizeTarget = ggmlQuantizeTarget(t.id);
        f.repackTarget = ggmlRepackTarget(t.id);
        f.alias = asciiLower(t.name);
        out.add(std::move(f));
    }
    // The types of llama.cpp's forks that the GGUF reader names (container/ggmltype.h): listed,
    // never decoded.
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kForkTypes[] = {
        {"gguf-ik", 0, None, Named, false, false, NoRule, false, false, "",
         "GGUF types of ik_llama.cpp (IQ2_K ... IQ6_K, IQ*_KS, IQ*_KT, IQ*_BN, Q6_0, *_R4/_R8 rows): named, "
         "not decoded"},
        {"gguf-i2_s", 2, None, Named, false, false, NoRule, false, false, "",
         "GGUF I2_S of BitNet (id 36, reused): ternary codes four a byte and one f32 scale; named, not decoded"},
    };
    for (const FormatRow& f : kForkTypes)
        out.addNamedOnly(f);
}

} // namespace

const FamilyRow& ggmlFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Gguf, "ggml", ggmlFormats, registerGgufLayouts, ggmlDequant, nullptr};
        // detection
        r.detectCheckpoint = detect::ggufCheckpoint;
        r.targets = &ggmlTargets();
        r.displayName = ggmlDisplayName;
        // verify, group scales, the layout report
        r.verify = ggmlVerify;
        r.groupScales = ggmlGroupScales;
        r.groupScalesApply = ggufBlockScalesApply;
        r.subBlockScales = ggufSubBlockScalesApply;
        r.packProbe = ggmlProbe;
        r.blockValues = ggufBlockValues;
        r.recipe = &ggmlRecipeRules();
        r.weightTally = ggmlWeightTally;
        r.requantize = ggmlRequantize;
        return r;
    }();
    return row;
}

std::string ggufFormatId(std::string_view ggmlTypeName)
{
    const GgmlTypeInfo* t = ggmlTypeByName(ggmlTypeName);
    if (!t || t->removed)
        return {};
    return "gguf-" + asciiLower(t->name);
}

} // namespace qs
