#include "report/specmath.h"

#include <cmath>
#include <cstdio>

namespace qs::report {

std::string num(double v, int digits)
{
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

} // namespace qs::report
