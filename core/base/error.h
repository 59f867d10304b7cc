#pragma once
// Errors from untrusted input or bad usage. The message always names the file and,
// where there is one, the tensor or field, so a user can act on it.
#include "base/message.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace qs {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    // An error the GUI shows in its language: what() is the message's English text.
    explicit Error(const Message& m)
        : std::runtime_error(m.text())
        , m_message(m)
    {
    }

    // The translatable message, when the error was raised with one.
    const std::optional<Message>& message() const { return m_message; }

private:
    std::optional<Message> m_message;
};

// "file: what" — the common prefix for container errors.
[[noreturn]] void fail(const std::string& file, const std::string& what);

} // namespace qs
