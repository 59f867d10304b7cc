// Detection of GGUF tensors: one logical weight per tensor, named by its ggml type.
#include "formats/ggml/ggml.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/detectutil.h"
#include "formats/formatid.h"

namespace qs::detect {
namespace {

// Type-1 ggml formats carry a min (or sum) next to the scale: not symmetric.
bool ggmlHasMin(std::string_view name)
{
    return name == "Q4_1" || name == "Q5_1" || name == "Q8_1" || name == "Q2_K" || name == "Q4_K" || name == "Q5_K";
}

} // namespace

// A GGUF file is the ggml family's whole: every tensor is one weight.
bool ggufCheckpoint(Context& cx)
{
    if (cx.checkpoint().container != Container::Gguf)
        return false;
    for (size_t i = 0; i < cx.checkpoint().tensors.size(); ++i) {
        const TensorEntry& t = cx.tensor(i);
        LogicalWeight w;
        w.name = t.name;
        w.shape = t.shape;
        cx.add(w, "weight", static_cast<int>(i));
        const GgmlTypeInfo* info = ggmlType(t.ggmlType);
        const std::string id = info ? ggufFormatId(info->name) : std::string();
        if (!t.known || id.empty() || !info->hasSize()) {
            w.format = "unknown";
            if (info && info->removed)
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "ggml type %1 (id %2) was removed from ggml: listed, not decoded"),
                                   {std::string(info->name), std::to_string(t.ggmlType)}});
            else
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "unknown ggml type id %1: listed, not decoded"), {std::to_string(t.ggmlType)}});
            if (!t.note.empty())
                w.notes.push_back(t.note);
            cx.finish(std::move(w));
            continue;
        }
        w.format = id;
        const FormatInfo* f = findFormat(id);
        w.bits = f ? f->bits : 0;
        w.groupSize = info->blockWeights > 1 ? info->blockWeights : 0;
        w.symmetric = !ggmlHasMin(info->name);
        w.params.reserve(3); // exactly: one allocation
        w.params[QT_TRANSLATE_NOOP("qs::Message", "ggml_type")] = std::to_string(t.ggmlType);
        w.params[QT_TRANSLATE_NOOP("qs::Message", "block_weights")] = std::to_string(info->blockWeights);
        w.params[QT_TRANSLATE_NOOP("qs::Message", "block_bytes")] = std::to_string(info->blockBytes);
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "GGUF tensor type %1 (id %2)"), {std::string(info->name), std::to_string(t.ggmlType)}});
        if (!info->storage)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 is a dot-product intermediate, not a storage type"), {std::string(info->name)}});
        cx.finish(std::move(w));
    }
    return true;
}

} // namespace qs::detect
