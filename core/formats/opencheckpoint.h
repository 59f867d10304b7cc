#pragma once
// Opening a checkpoint: the container readers list its tensors, then format detection groups
// them into logical weights. The one entry point the CLI, the GUI and the tests use.
#include "container/checkpoint.h"

#include <memory>
#include <string>

namespace qs {

// Throws qs::Error naming the file, tensor or field (see Checkpoint::read).
std::shared_ptr<const Checkpoint> openCheckpoint(const std::string& path, const std::vector<std::string>& chosen = {});

} // namespace qs
