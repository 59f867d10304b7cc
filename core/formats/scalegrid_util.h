#pragma once
// What the families' group scale readers (<family>_scales.cpp) share: errors that name the
// file and the weight, overflow-checked grid sizes.
#include "base/error.h"
#include "container/checkpoint.h"

#include <cstdint>
#include <string>

namespace qs {

// Throws qs::Error "<file>: weight '<name>': <what>".
[[noreturn]] void failScales(const Checkpoint& ckpt, const LogicalWeight& w, const std::string& what);

// a * b, failing (naming the weight) on overflow.
uint64_t scalesCheckedMul(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t a, uint64_t b);

// Runs a kernel's description f(); the descriptions name the weight, this adds the file when
// they do not.
template <class F>
auto namingScalesFile(const Checkpoint& ckpt, F&& f) -> decltype(f())
{
    try {
        return f();
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.rfind(ckpt.path, 0) == 0)
            throw;
        throw Error(ckpt.path + ": " + what);
    }
}

} // namespace qs
