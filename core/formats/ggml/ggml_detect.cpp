// Detection of GGUF tensors: one logical weight per tensor, named by its ggml type.
#include "formats/ggml/ggml.h"
#include "base/cancel.h"
#include "base/progress.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/detectutil.h"
#include "formats/formatid.h"

#include <map>

namespace qs::detect {
namespace {

// Type-1 ggml formats carry a min (or sum) next to the scale: not symmetric.
bool ggmlHasMin(std::string_view name)
{
    return name == "Q4_1" || name == "Q5_1" || name == "Q8_1" || name == "Q2_K" || name == "Q4_K" || name == "Q5_K";
}

// What every tensor of one ggml type gets: made once per type present, then copied (the
// params and messages are shared, not allocated again, for each of a million tensors).
struct GgmlTypeWeight {
    bool made = false;
    const GgmlTypeInfo* info = nullptr;
    std::string format; // empty: not decoded
    int bits = 0;
    WeightParams params;
    std::vector<Message> evidence, notes;
};

GgmlTypeWeight makeTypeWeight(int ggmlTypeId)
{
    GgmlTypeWeight r;
    r.made = true;
    r.info = ggmlType(ggmlTypeId);
    const GgmlTypeInfo* info = r.info;
    const std::string id = info ? ggufFormatId(info->name) : std::string();
    if (id.empty() || !info->hasSize()) {
        if (info && info->removed)
            r.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message", "ggml type %1 (id %2) was removed from ggml: listed, not decoded"),
                 {std::string(info->name), std::to_string(ggmlTypeId)}});
        else
            r.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "unknown ggml type id %1: listed, not decoded"),
                               {std::to_string(ggmlTypeId)}});
        return r;
    }
    r.format = id;
    const FormatInfo* f = findFormat(id);
    r.bits = f ? f->bits : 0;
    r.params.reserve(3); // exactly: one allocation
    r.params[QT_TRANSLATE_NOOP("qs::Message", "ggml_type")] = std::to_string(ggmlTypeId);
    r.params[QT_TRANSLATE_NOOP("qs::Message", "block_weights")] = std::to_string(info->blockWeights);
    r.params[QT_TRANSLATE_NOOP("qs::Message", "block_bytes")] = std::to_string(info->blockBytes);
    r.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "GGUF tensor type %1 (id %2)"),
                          {std::string(info->name), std::to_string(ggmlTypeId)}});
    if (!info->storage)
        r.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 is a dot-product intermediate, not a storage type"),
                           {std::string(info->name)}});
    return r;
}

} // namespace

// A GGUF file is the ggml family's whole: every tensor is one weight.
bool ggufCheckpoint(Context& cx)
{
    if (cx.checkpoint().container != Container::Gguf)
        return false;
    // The ids in use are few; one made per id, the unknown ones (any uint32) in a map.
    constexpr int kTableIds = 256;
    std::vector<GgmlTypeWeight> byId(kTableIds);
    std::map<int, GgmlTypeWeight> otherIds;
    for (size_t i = 0; i < cx.checkpoint().tensors.size(); ++i) {
        throwIfCancelled(currentCancelFlag()); // a million tensors is seconds: Cancel stops detection
        const TensorEntry& t = cx.tensor(i);
        GgmlTypeWeight& type =
            t.ggmlType >= 0 && t.ggmlType < kTableIds ? byId[size_t(t.ggmlType)] : otherIds[t.ggmlType];
        if (!type.made)
            type = makeTypeWeight(t.ggmlType);
        LogicalWeight w;
        w.name = t.name;
        w.shape = t.shape;
        cx.add(w, "weight", static_cast<int>(i));
        if (!t.known || type.format.empty()) {
            // A fork's type the reader named (BitNet's I2_S in id 36, ik_llama.cpp's ids): named,
            // not decoded; the reader's note says what it is and whether its bytes fit its size rule.
            const bool i2s = t.typeName == "I2_S", ik = ikLlamaType(t.ggmlType) != nullptr;
            w.format = i2s ? "gguf-i2_s" : ik ? "gguf-ik" : "unknown";
            w.notes = type.format.empty() && !i2s && !ik ? type.notes : std::vector<Message>{};
            if (i2s || ik) {
                w.bits = i2s ? 2 : 0;
                w.params[QT_TRANSLATE_NOOP("qs::Message", "ggml_type")] = std::to_string(t.ggmlType);
                w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "GGUF tensor type %1 (id %2)"),
                                      {std::string(t.typeName), std::to_string(t.ggmlType)}});
            }
            if (!type.format.empty()) // sized by the table, yet not known: what the reader noted
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "unknown ggml type id %1: listed, not decoded"),
                                   {std::to_string(t.ggmlType)}});
            if (!t.note.empty())
                w.notes.push_back(t.note);
            cx.finish(std::move(w));
            continue;
        }
        const GgmlTypeInfo* info = type.info;
        w.format = type.format;
        w.bits = type.bits;
        w.groupSize = info->blockWeights > 1 ? info->blockWeights : 0;
        w.symmetric = !ggmlHasMin(info->name);
        w.params = type.params;
        w.evidence = type.evidence;
        w.notes = type.notes;
        cx.finish(std::move(w));
    }
    return true;
}

} // namespace qs::detect
