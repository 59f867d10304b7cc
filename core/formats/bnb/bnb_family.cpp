#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/wordmap.h"
#include "formats/bnb/bnb.h"
#include "formats/bnb/bnb_requantize.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn bnbDequant(const FormatInfo& format)
{
    if (format.id == "bnb-nf4" || format.id == "bnb-fp4")
        return dequantBnb4Rows;
    if (format.id == "bnb-int8")
        return dequantBnbInt8Rows;
    return nullptr;
}

bool bnbCodes(const WeightData& data, WeightCodes& c, CodeParts)
{
    if (data.weight.format == "bnb-int8") {
        const BnbInt8 s = bnbInt8State(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.bits = 8;
        c.scaleType = s.scb.dtype();
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = uint8_t(s.q[e] ^ 0x80);
        rowGroups(c, s.cols, [&](uint64_t n) { return s.scb.at(n); });
        c.zeros.assign(s.rows, 128);
        return true;
    }
    const Bnb4 s = bnb4State(data);
    c.rows = s.rows;
    c.cols = s.cols;
    c.bits = 4;
    c.scaleType = s.nested ? DType::F32 : s.absmax.dtype(); // nested: absmax decoded to float32
    c.codes.resize(s.rows * s.cols);
    for (uint64_t e = 0; e < c.codes.size(); ++e)
        c.codes[e] = (e & 1) ? (s.packed[e / 2] & 0x0F) : (s.packed[e / 2] >> 4);
    rowGroups(c, s.blocksize, [&](uint64_t b) { return s.blockAbsmax(b); });
    return true;
}

VerifyFn bnbVerify(const FormatInfo& format)
{
    if (format.id == "bnb-nf4" || format.id == "bnb-fp4")
        return verifyBnb4Weight;
    if (format.id == "bnb-int8")
        return verifyBnbInt8Weight;
    return nullptr;
}

// LLM.int8's one absmax per row is no group grid.
GroupScalesFn bnbGroupScales(const FormatInfo& format)
{
    return format.id == "bnb-nf4" || format.id == "bnb-fp4" ? bnb4GroupScales : nullptr;
}

BlockValues bnbBlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col, bool wholeBlock)
{
    // LLM.int8's row absmax is the element's scale already (elementValues).
    if (w.format == "bnb-nf4" || w.format == "bnb-fp4")
        return bnb4BlockValues(ckpt, w, row, col, wholeBlock);
    return {};
}

const char* bnbDisplayName(const FormatInfo& format)
{
    return format.id == "bnb-int8" ? QT_TRANSLATE_NOOP("qs::FamilyName", "bitsandbytes int8")
                                   : QT_TRANSLATE_NOOP("qs::FamilyName", "bitsandbytes 4-bit");
}

// bitsandbytes' member names with a dot of their own, and those noted as stray.
constexpr std::string_view kBnbDottedMembers[] = {
    "weight.quant_state.bitsandbytes__nf4",
    "weight.quant_state.bitsandbytes__fp4",
    "weight.nested_quant_map",
    "weight.nested_absmax",
    "weight.quant_map",
    "weight.absmax",
};
constexpr std::string_view kBnbMembers[] = {"SCB", "weight.absmax", "weight.quant_map"};

void bnbFormats(FormatList& out)
{
    using namespace formatrow;
    // Part B of ../shared/spec/safetensors-quant.md.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"bnb-nf4", 4, Codebook, Book, true, false, RequantizeRule::Bnb4, true, false, "nf4",
         "bitsandbytes 4-bit NormalFloat, blockwise absmax (optionally nested)"},
        {"bnb-fp4", 4, Codebook, Book, true, false, RequantizeRule::Bnb4, true, false, "fp4",
         "bitsandbytes 4-bit float (its own E2M1 variant), blockwise absmax"},
        {"bnb-int8", 8, RowInt8, Int, true, false, NoRule, false, false, "",
         "bitsandbytes LLM.int8: int8 rows with per-row absmax (SCB)"},
    };

    for (const FormatRow& f : kFormats)
        out.add(f);
}

} // namespace

const FamilyRow& bnbFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Bitsandbytes, "bnb", bnbFormats, registerBnbLayouts, bnbDequant, bnbCodes};
        // detection
        r.detectGroup = detect::bnbGroup;
        r.dottedMembers = kBnbDottedMembers;
        r.memberNames = kBnbMembers;
        r.targets = &bnbTargets();
        r.displayName = bnbDisplayName;
        // verify and group scales
        r.verify = bnbVerify;
        r.groupScales = bnbGroupScales;
        r.blockValues = bnbBlockValues;
        r.recipe = &recipeFromConfig();
        r.requantize = bnbRequantize;
        return r;
    }();
    return row;
}

} // namespace qs
