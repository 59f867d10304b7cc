#include "formats/plain/plain.h"

#include "container/checkpoint.h"
#include "formats/detectutil.h"

namespace qs {
namespace detect {

// The formats detection only names (FormatFamily::Other: listed by the plain row's LayoutSpecs,
// never decoded): AMD Quark by its config, EXL3 by its members (named_detect.cpp).

bool namedOnlyGroup(Context& cx, const Group& g)
{
    return quarkGroup(cx, g) || exl3Group(cx, g);
}

} // namespace detect
} // namespace qs
