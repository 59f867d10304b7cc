#include "formats/plain/plain.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

namespace qs {
namespace detect {

// The formats detection only names (FormatFamily::Other: listed by the plain row's LayoutSpecs,
// never decoded): AMD Quark by its config, EXL3 (named_detect.cpp), AQLM by its member names.

bool namedOnlyGroup(Context& cx, const Group& g)
{
    if (quarkGroup(cx, g) || exl3Group(cx, g))
        return true;
    if (g.find("codes") < 0 || g.find("codebooks") < 0)
        return false;
    const std::string format = "aqlm";
    LogicalWeight w;
    w.name = g.prefix;
    w.format = format;
    for (const char* r : {"codes", "codebooks", "scales"})
        cx.add(w, r, g.find(r));
    const auto dims = [&](const char* role) {
        const int i = g.find(role);
        return i < 0 ? Shape{} : cx.tensor(i).shape;
    };
    const auto c = dims("codes"), cb = dims("codebooks");
    if (c.size() == 3 && cb.size() == 4) {
        const auto out = mulChecked(c[0], cb[2]), in = mulChecked(c[1], cb[3]);
        if (out && in)
            w.shape = {*out, *in};
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
