#pragma once
// Errors from untrusted input or bad usage. The message always names the file and,
// where there is one, the tensor or field, so a user can act on it.
#include <stdexcept>
#include <string>

namespace qs {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "file: what" — the common prefix for container errors.
[[noreturn]] void fail(const std::string& file, const std::string& what);

} // namespace qs
