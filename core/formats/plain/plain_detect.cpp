#include "formats/plain/plain.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

namespace qs {
namespace detect {

// The formats detection only names (FormatFamily::Other: listed by the plain row's LayoutSpecs,
// never decoded): EXL2, EXL3, quanto, by their member names.

bool namedOnlyGroup(Context& cx, const Group& g)
{
    std::string format;
    std::vector<std::string> roles;
    if (g.find("q_weight") >= 0) {
        format = "exl2";
        roles = {"q_weight", "q_scale", "q_scale_max", "q_groups", "q_group_map", "q_perm", "q_invperm"};
    } else if (g.find("trellis") >= 0) {
        format = "exl3";
        roles = {"trellis", "suh", "svh", "mcg", "mul1"};
    } else if (g.find("weight._data") >= 0) {
        format = "quanto";
        roles = {"weight._data", "weight._scale", "weight._shift", "input_scale", "output_scale"};
    } else {
        return false;
    }
    LogicalWeight w;
    w.name = g.prefix;
    w.format = format;
    for (const auto& r : roles)
        cx.add(w, r, g.find(r));
    const auto dims = [&](const char* role) {
        const int i = g.find(role);
        return i < 0 ? Shape{} : cx.tensor(i).shape;
    };
    if (format == "exl2") {
        const auto q = dims("q_weight"), p = dims("q_invperm");
        if (q.size() == 2 && p.size() == 1 && p[0]) {
            w.shape = {q[1], p[0]};
            if (const auto qBits = mulChecked(q[0], 32); qBits && *qBits % p[0] == 0 && *qBits / p[0] <= 64)
                w.bits = static_cast<int>(*qBits / p[0]);
        }
    } else if (format == "quanto") {
        const int d = g.find("weight._data");
        if (cx.tensor(d).dtype == DType::I8 || isFp8(cx.tensor(d).dtype)) {
            w.shape = cx.tensor(d).shape;
            w.bits = 8;
        }
    } else if (format == "exl3") {
        const auto u = dims("suh"), v = dims("svh");
        if (u.size() == 1 && v.size() == 1)
            w.shape = {v[0], u[0]};
    }
    w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "member names %1 uses"), {format}});
    w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 is named by detection only: not decoded"), {format}});
    if (w.shape.empty())
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
    cx.finish(std::move(w));
    return true;
}

} // namespace detect
} // namespace qs
