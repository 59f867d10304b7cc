#include "formats/scalegrid.h"
#include "formats/scalegrid_util.h"

#include <algorithm>
#include <limits>

namespace qs {

uint64_t GroupScales::firstColumn(uint64_t g) const
{
    if (gIdx.empty())
        return g < groups && groupSize ? std::min(cols, g * groupSize) : cols;
    for (uint64_t k = 0; k < gIdx.size(); ++k)
        if (gIdx[k] >= 0 && uint64_t(gIdx[k]) == g)
            return k;
    return cols;
}

void failScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::string& what)
{
    throw Error(ErrorContext{ckpt.path, w.name}, what);
}

uint64_t scalesCheckedMul(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t a, uint64_t b)
{
    if (a && b > std::numeric_limits<uint64_t>::max() / a)
        failScales(ckpt, w, "size overflows");
    return a * b;
}

} // namespace qs
