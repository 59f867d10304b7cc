#include "formats/family.h"

#include "formats/layoutspec.h"
#include "formats/torchao/torchao.h"
#include "formats/wordmap.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn torchaoDequant(const FormatInfo& format)
{
    return format.id == "torchao-float8" || format.id == "torchao-int8" ? dequantTorchaoRows : nullptr;
}

// The element's own scale (a block may span rows, which locate() does not model).
void torchaoElementValues(const WeightData& data, uint64_t row, uint64_t col, ElementValues& v)
{
    const Torchao s = torchaoState(data);
    v.code = s.qdata[row * s.cols + col];
    v.group = s.scaleIndex(row, col);
    v.hasScale = true;
    v.scale = s.scale.at(v.group);
}

const char* torchaoDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "torchao");
}

void torchaoFormats(FormatList& out)
{
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kDecoded[] = {
        {"torchao-float8", 8, ScaledFloat, Flt, false, false, NoRule, false, false, "",
         "torchao Float8Tensor in safetensors (qdata float8, scale per tensor, row or block)"},
        {"torchao-int8", 8, GroupAffine, Int, false, false, NoRule, false, false, "",
         "torchao Int8Tensor in safetensors (qdata int8, symmetric scale per tensor, row or block)"},
    };
    static constexpr FormatRow kNamed = {
        "torchao",
        0,
        None,
        Named,
        false,
        false,
        NoRule,
        false,
        false,
        "",
        "torchao tensor subclasses in safetensors that keep packed codes (int4, MX, NVFP4 ...): named, not decoded"};
    for (const FormatRow& f : kDecoded)
        out.add(f);
    out.addNamedOnly(kNamed);
}

} // namespace

const FamilyRow& torchaoFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Torchao, "torchao", torchaoFormats, registerTorchaoLayouts, torchaoDequant, nullptr};
        // detection
        r.readConfig = detect::torchaoReadConfig;
        r.detectGroup = detect::torchaoGroup;
        r.displayName = torchaoDisplayName;
        r.elementValues = torchaoElementValues;
        return r;
    }();
    return row;
}

} // namespace qs
