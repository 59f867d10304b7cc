#pragma once
// Errors from untrusted input or bad usage. The message always names the file and,
// where there is one, the weight or tensor, so a user can act on it. Those names are the
// error's context, kept apart from what went wrong and added in one way (`withContext`), so a
// caller never searches the text for them: no name is printed twice or left out.
#include "base/message.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace qs {

// Where an error happened; each part optional.
struct ErrorContext {
    ErrorContext(std::string file = {}, std::string weight = {}, std::string tensor = {})
        : file(std::move(file))
        , weight(std::move(weight))
        , tensor(std::move(tensor))
    {
    }
    std::string file; // the checkpoint, or the file of it that failed
    std::string weight; // a logical weight
    std::string tensor; // a stored tensor
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& detail)
        : Error(ErrorContext{}, detail)
    {
    }
    explicit Error(const char* detail)
        : Error(ErrorContext{}, std::string(detail))
    {
    }
    // An error the GUI shows in its language: the detail is the message's English text.
    explicit Error(const Message& m)
        : Error(ErrorContext{}, m)
    {
    }
    Error(ErrorContext context, const std::string& detail);
    Error(ErrorContext context, const char* detail)
        : Error(std::move(context), std::string(detail))
    {
    }
    Error(ErrorContext context, const Message& m);

    // "<file>: weight '<weight>': tensor '<tensor>': <detail>", the parts that are set.
    const char* what() const noexcept override { return m_what.c_str(); }
    // What went wrong, without the context.
    const std::string& detail() const { return m_detail; }
    const ErrorContext& context() const { return m_context; }
    // The context as what() prints it before the detail ("" when there is none).
    std::string contextText() const;
    // Fills the parts of the context not set yet; the inner part (a shard's file) stays.
    void addContext(const ErrorContext& context);

    // The translatable message, when the error was raised with one (the detail's template).
    const std::optional<Message>& message() const { return m_message; }

protected:
    // An error no context is added to (a cancel is no error of a file).
    struct Bare { };
    Error(Bare, const std::string& detail);

private:
    ErrorContext m_context;
    std::string m_detail;
    std::string m_what;
    std::optional<Message> m_message;
    bool m_bare = false;
};

// Runs f(); an Error thrown out of it gains `context` where its own says less.
template <class F>
auto withContext(const ErrorContext& context, F&& f) -> decltype(f())
{
    try {
        return f();
    } catch (Error& e) {
        e.addContext(context);
        throw;
    }
}

// Throws Error(ErrorContext{file}, what): "file: what", the common form of container errors.
[[noreturn]] void fail(const std::string& file, const std::string& what);

} // namespace qs
