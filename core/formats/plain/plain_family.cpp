#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/plain/floats.h"
#include "formats/plain/plain.h"
#include "container/dtype.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn plainDequant(const FormatInfo& format)
{
    // The float element types the float kernel widens; integers and sub-byte floats are
    // listed, not decoded.
    static constexpr std::string_view decoded[] = {"f32",     "f16",         "bf16",        "f64",    "f8_e4m3",
                                                   "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "f8_e8m0"};
    for (std::string_view id : decoded)
        if (format.id == id)
            return dequantFloatRows;
    return nullptr;
}

const char* plainDisplayName(const FormatInfo& format)
{
    return format.storage == StorageKind::Float ? QT_TRANSLATE_NOOP("qs::FamilyName", "float")
                                                : QT_TRANSLATE_NOOP("qs::FamilyName", "integer");
}

struct PlainRow {
    DType dtype;
    std::string_view id;
    std::string_view what;
};

constexpr PlainRow kPlain[] = {
    {DType::F64, "f64", "IEEE binary64"},
    {DType::F32, "f32", "IEEE binary32"},
    {DType::F16, "f16", "IEEE binary16"},
    {DType::BF16, "bf16", "bfloat16 (the top half of a binary32)"},
    {DType::F8_E4M3, "f8_e4m3", "FP8 E4M3 (torch float8_e4m3fn: no infinities, max 448)"},
    {DType::F8_E5M2, "f8_e5m2", "FP8 E5M2 (IEEE-style infinities and NaN)"},
    {DType::F8_E4M3FNUZ, "f8_e4m3fnuz", "FP8 E4M3 AMD variant (no -0, single NaN)"},
    {DType::F8_E5M2FNUZ, "f8_e5m2fnuz", "FP8 E5M2 AMD variant (no -0, single NaN)"},
    {DType::F8_E8M0, "f8_e8m0", "exponent-only 8-bit scale (MX formats)"},
    {DType::F4, "f4", "FP4 E2M1 (safetensors sub-byte dtype)"},
    {DType::F6_E2M3, "f6_e2m3", "FP6 E2M3 (safetensors sub-byte dtype)"},
    {DType::F6_E3M2, "f6_e3m2", "FP6 E3M2 (safetensors sub-byte dtype)"},
    {DType::C64, "c64", "complex64"},
    {DType::I64, "i64", "plain int64"},
    {DType::I32, "i32", "plain int32"},
    {DType::I16, "i16", "plain int16"},
    {DType::I8, "i8", "plain int8"},
    {DType::U64, "u64", "plain uint64"},
    {DType::U32, "u32", "plain uint32"},
    {DType::U16, "u16", "plain uint16"},
    {DType::U8, "u8", "plain uint8"},
    {DType::BOOL, "bool", "booleans, one byte each"},
};

void plainFormats(FormatList& out)
{
    using namespace formatrow;
    // The formats detection only names (plain_detect.cpp): listed, never decoded.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kNamedOnly[] = {
        {"exl3", 0, None, Named, false, false, NoRule, false, false, "",
         "ExLlamaV3 EXL3 (trellis, suh, svh): named, not decoded (upstream decodes on the GPU only)"},
        {"quark", 0, None, Named, false, false, NoRule, false, false, "",
         "AMD Quark (quant_method quark: weight, weight_scale, weight_zero_point): named, not decoded"},
    };

    for (const PlainRow& p : kPlain) {
        FormatInfo f;
        f.id = std::string(p.id);
        f.description = std::string(p.what);
        f.bits = int(dtypeBits(p.dtype));
        f.storage = dtypeIsFloat(p.dtype) ? Float : Integer;
        f.colour = Flt;
        out.add(std::move(f));
    }
    for (const FormatRow& f : kNamedOnly)
        out.addNamedOnly(f);
}

} // namespace

const FamilyRow& plainFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Plain, "plain", plainFormats,   registerPlainLayouts,
                    plainDequant,        nullptr, &plainTargets()};
        // detection: the named-only formats; what no row claims stays a plain weight
        r.detectGroup = detect::namedOnlyGroup;
        r.displayName = plainDisplayName;
        return r;
    }();
    return row;
}

std::string plainFormatId(DType dtype)
{
    for (const auto& p : kPlain)
        if (p.dtype == dtype)
            return std::string(p.id);
    return {};
}

} // namespace qs
