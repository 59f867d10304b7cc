// Detection of two formats the plain row only names: EXL3 (exllamav3's trellis codes) by its
// member names, AMD Quark by its quantization_config.
#include "formats/plain/plain.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detect.h"
#include "formats/detectutil.h"

#include <QJsonObject>

namespace qs::detect {

// exllamav3 (modules/quant/exl3.py, LinearEXL3): trellis is I16 [K/16, N/16, 16*bits] (256
// weights a 16x16 tile, 16*bits words of 16 bits; 16*bits + 8 for the half-integer rates), suh
// and svh the F16 sign vectors [K] and [N] of the input and output Hadamard rotations (su, sv:
// the same packed in I16 bits, older files), mcg / mul1 a one-element multiplier selecting
// another codebook than the default.
bool exl3Group(Context& cx, const Group& g)
{
    const int it = g.find("trellis");
    if (it < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "exl3";
    for (const char* role : {"trellis", "suh", "svh", "su", "sv", "mcg", "mul1"})
        cx.add(w, role, g.find(role));
    const TensorEntry& t = cx.tensor(it);
    const auto length = [&](const char* role) -> uint64_t {
        const int i = g.find(role);
        return i >= 0 && cx.tensor(i).shape.size() == 1 ? cx.tensor(i).shape[0] : 0;
    };
    std::string bits;
    if (t.shape.size() == 3 && t.dtype == DType::I16) {
        const uint64_t words = t.shape[2];
        bits = words % 16 == 0 ? std::to_string(words / 16) : words % 16 == 8 ? std::to_string(words / 16) + ".5" : "";
        const auto in = mulChecked(t.shape[0], 16), out = mulChecked(t.shape[1], 16);
        const uint64_t suh = length("suh"), svh = length("svh");
        if (in && out && ((suh && suh != *in) || (svh && svh != *out))) {
            w.shape = {*out, *in};
            refuseShape(w,
                        {QT_TRANSLATE_NOOP("qs::Message", "trellis %1 holds [%2, %3] weights, suh and svh say %4 x %5"),
                         {shapeText(t.shape), std::to_string(*out), std::to_string(*in), std::to_string(svh),
                          std::to_string(suh)}});
        } else if (in && out) {
            w.shape = {*out, *in};
        }
    }
    if (bits.empty()) {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "'%1' is %2 %3, not the I16 [K/16, N/16, 16*bits] of EXL3"),
                           {std::string(t.name), std::string(dtypeName(t.dtype)), shapeText(t.shape)}});
    } else {
        w.bits = bits.find('.') == std::string::npos ? std::stoi(bits) : 0;
        w.params[QT_TRANSLATE_NOOP("qs::Message", "bits")] = bits;
    }
    const std::string codebook = g.find("mcg") >= 0 ? "mcg" : g.find("mul1") >= 0 ? "mul1" : "3inst";
    w.params[QT_TRANSLATE_NOOP("qs::Message", "codebook")] = codebook;
    w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "member names %1 uses"), {"exl3"}});
    w.notes.push_back(
        {QT_TRANSLATE_NOOP("qs::Message",
                           "EXL3 trellis codes (%1 bits a weight, %2 codebook) in 16x16 tiles of a basis rotated by "
                           "Hadamard transforms and the sign vectors suh and svh: named, not decoded; exllamav3 "
                           "decodes them on the GPU only (CUDA and Triton kernels), so there is no CPU reference "
                           "to check a decoder against"),
         {bits.empty() ? "?" : bits, codebook}});
    if (w.shape.empty() && !refusedShape(w))
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
    cx.finish(std::move(w));
    return true;
}

// AMD Quark's export (quark.torch.export, read by vLLM's QuarkConfig): quantization_config
// {"quant_method": "quark", "global_quant_config": {"weight": {"dtype", "qscheme", "group_size",
// ...}}, "layer_quant_config", "exclude", "export": {"pack_method", ...}}; a quantized Linear
// keeps its codes in `weight` (FP8 or int8 as is, int4 / FP4 / FP6 packed) beside weight_scale
// (and weight_zero_point, input_scale, output_scale).
bool quarkGroup(Context& cx, const Group& g)
{
    if (cx.config().method() != "quark")
        return false;
    const int iw = g.find("weight"), is = g.find("weight_scale");
    if (iw < 0 || is < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "quark";
    for (const char* role : {"weight", "weight_scale", "weight_zero_point", "input_scale", "input_zero_point",
                             "output_scale", "output_zero_point"})
        cx.add(w, role, g.find(role));
    std::string dtype = "?", qscheme = "?";
    if (const auto qc = cx.config().get({"global_quant_config"}); qc && qc->value.isObject()) {
        const QJsonObject spec = qc->value.toObject().value(QStringLiteral("weight")).toObject();
        const auto text = [&](const char* key) {
            const QJsonValue v = spec.value(QLatin1String(key));
            return v.isUndefined() || v.isNull() ? std::string() : jsonValueString(v);
        };
        static const char* const keys[] = {
            QT_TRANSLATE_NOOP("qs::Message", "dtype"), QT_TRANSLATE_NOOP("qs::Message", "qscheme"),
            QT_TRANSLATE_NOOP("qs::Message", "group_size"), QT_TRANSLATE_NOOP("qs::Message", "scale_format"),
            QT_TRANSLATE_NOOP("qs::Message", "symmetric")};
        for (const char* key : keys)
            if (std::string v = text(key); !v.empty())
                w.params[key] = v;
        if (!text("dtype").empty())
            dtype = text("dtype");
        if (!text("qscheme").empty())
            qscheme = text("qscheme");
        w.evidence.push_back(Message::verbatim(qc->where + ".weight"));
    }
    const TensorEntry& t = cx.tensor(iw);
    // One stored byte per weight (FP8, int8): the stored shape is the logical one; packed codes
    // would need Quark's pack order, which nothing here models.
    if (dtypeBits(t.dtype) == 8 && (dtype.starts_with("fp8") || dtype.find("int8") != std::string::npos))
        w.shape = t.shape;
    else
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
    w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "quantization_config quant_method quark"));
    w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                         "AMD Quark export, weights %1 %2: named, not decoded; its codes are 'weight' "
                                         "(%3 %4), their scales 'weight_scale' (%5), zero points 'weight_zero_point'"),
                       {dtype, qscheme, std::string(dtypeName(t.dtype)), shapeText(t.shape),
                        std::string(dtypeName(cx.tensor(is).dtype))}});
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
