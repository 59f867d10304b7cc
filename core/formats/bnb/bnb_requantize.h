#pragma once
// The bitsandbytes row's requantize hook (formats/tally.h).
#include "formats/tally.h"

namespace qs {

// bnb-nf4 and bnb-fp4; nullptr for the rest.
RequantizeFn bnbRequantize(const FormatInfo& format);

} // namespace qs
