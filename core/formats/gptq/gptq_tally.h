#pragma once
// The GPTQ row's statistics hook (formats/tally.h).
#include "formats/tally.h"

namespace qs {

// The PackedLinear layouts' code histogram (bits 1..8) and group scales; nullptr for a weight
// whose description disagrees with its shape.
std::unique_ptr<WeightTally> gptqWeightTally(const Checkpoint& ckpt, const LogicalWeight& weight, int threads);

} // namespace qs
