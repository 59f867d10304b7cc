#include "formats/plain/plain.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

namespace qs {
namespace detect {

// The formats detection only names (FormatFamily::Other: listed by the plain row's LayoutSpecs,
// never decoded): EXL3, AQLM, by their member names.

bool namedOnlyGroup(Context& cx, const Group& g)
{
    std::string format;
    std::vector<std::string> roles;
    if (g.find("trellis") >= 0) {
        format = "exl3";
        roles = {"trellis", "suh", "svh", "mcg", "mul1"};
    } else if (g.find("codes") >= 0 && g.find("codebooks") >= 0) {
        format = "aqlm";
        roles = {"codes", "codebooks", "scales"};
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
    if (format == "aqlm") {
        const auto c = dims("codes"), cb = dims("codebooks");
        if (c.size() == 3 && cb.size() == 4) {
            const auto out = mulChecked(c[0], cb[2]), in = mulChecked(c[1], cb[3]);
            if (out && in)
                w.shape = {*out, *in};
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
