// Detection of HQQ weights: W_q with scale, zero and HQQ's meta tensors (shape, nbits,
// group_size, axis, packing), read as small tensors.
#include "formats/hqq/hqq.h"

#include "container/checkpoint.h"
#include "formats/detectutil.h"

namespace qs::detect {

bool hqqGroup(Context& cx, const Group& g)
{
    const int iq = g.find("W_q");
    if (iq < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "hqq";
    w.symmetric = false;
    for (const auto& [suffix, idx] : g.members)
        if (suffix != "bias")
            cx.add(w, suffix, static_cast<int>(idx));
    const auto scalar = [&](const char* role) -> std::optional<int64_t> {
        const int i = g.find(role);
        if (i < 0)
            return std::nullopt;
        const auto v = cx.ints(i, w);
        return v && v->size() == 1 ? std::optional<int64_t>((*v)[0]) : std::nullopt;
    };
    // HQQ quantizes a Linear's [out, in] weight: its meta shape holds two positive sizes. Any
    // other content describes no matrix the packed codes could be read as.
    bool shapeOk = true;
    std::string held;
    if (const int is = g.find("shape"); is >= 0)
        if (const auto v = cx.ints(is, w)) {
            for (int64_t d : *v) {
                w.shape.push_back(d > 0 ? static_cast<uint64_t>(d) : 0);
                held += (held.empty() ? "" : ", ") + std::to_string(d);
                shapeOk &= d > 0;
            }
            shapeOk &= v->size() == 2;
        }
    w.bits = static_cast<int>(scalar("nbits").value_or(0));
    w.groupSize = scalar("group_size").value_or(0);
    if (const auto axis = scalar("axis"))
        w.params[QT_TRANSLATE_NOOP("qs::Message", "axis")] = std::to_string(*axis);
    if (const int ip = g.find("packing"); ip >= 0 && cx.tensor(ip).dtype == DType::U8)
        if (const auto b = cx.small(ip, w, 256))
            w.params[QT_TRANSLATE_NOOP("qs::Message", "packing")] =
                std::string(reinterpret_cast<const char*>(b->data()), b->size());
    if (w.shape.empty())
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "HQQ shape tensor missing: logical shape unknown"));
    else if (!shapeOk)
        refuseShape(
            w, {QT_TRANSLATE_NOOP("qs::Message", "the HQQ shape tensor holds [%1], not two positive sizes"), {held}});
    w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "W_q + scale/zero + HQQ meta tensors"));
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
