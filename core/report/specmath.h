#pragma once
// Small shared helpers of the report builders: how numbers are written. The bytes a spec's
// tensor occupies are the size model's (formats/layoutsize.h).
#include "formats/layoutsize.h"
#include "base/shapetext.h"

#include <string>

namespace qs::report {

// `v` with `digits` significant digits (%g); "inf" / "-inf".
std::string num(double v, int digits = 4);

} // namespace qs::report
