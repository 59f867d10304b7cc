#pragma once
// What the families' group scale readers (<family>_scales.cpp) share: errors that name the
// file and the weight, overflow-checked grid sizes.
#include "base/error.h"
#include "container/checkpoint.h"

#include <cstdint>
#include <string>

namespace qs {

// Throws qs::Error "<file>: weight '<name>': <what>". A kernel's description (which names the
// weight itself) runs under withContext(ErrorContext{ckpt.path}, ...) to name the file.
[[noreturn]] void failScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::string& what);

// a * b, failing (naming the weight) on overflow.
uint64_t scalesCheckedMul(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t a, uint64_t b);

} // namespace qs
