#pragma once
// The requantize hook the integer families' rows share (formats/tally.h).
#include "formats/tally.h"

namespace qs {

// The formats whose RequantizeRule is GptqAffine or Awq; nullptr for the rest.
RequantizeFn affineRequantize(const FormatInfo& format);

} // namespace qs
