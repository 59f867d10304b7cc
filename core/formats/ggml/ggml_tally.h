#pragma once
// The ggml row's statistics hooks (formats/tally.h).
#include "formats/tally.h"

namespace qs {

// GGUF block types: values in the code domain where codestats.h covers the type, the f16
// block scales d; nullptr for a weight without a "weight" member.
std::unique_ptr<WeightTally> ggmlWeightTally(const Checkpoint& ckpt, const LogicalWeight& weight, int threads);
// The GGUF block types ggml's reference quantizers produce; nullptr for the rest.
RequantizeFn ggmlRequantize(const FormatInfo& format);

} // namespace qs
