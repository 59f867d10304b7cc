#pragma once
// Format detection: groups stored tensors into logical weights and names their format
// (../shared/spec/safetensors-quant.md Part C; GGUF tensors map one to one).
#include "formats/logicalweight.h"

#include <vector>

namespace qs {

class Checkpoint;
std::vector<LogicalWeight> detectWeights(const Checkpoint& ckpt);

} // namespace qs
