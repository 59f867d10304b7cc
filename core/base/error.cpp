#include "base/error.h"

namespace qs {

Error::Error(ErrorContext context, const std::string& detail)
    : std::runtime_error(detail)
    , m_context(std::move(context))
    , m_detail(detail)
{
    m_what = contextText() + m_detail;
}

Error::Error(ErrorContext context, const Message& m)
    : Error(std::move(context), m.text())
{
    m_message = m;
}

Error::Error(Bare, const std::string& detail)
    : Error(ErrorContext{}, detail)
{
    m_bare = true;
}

std::string Error::contextText() const
{
    std::string s;
    if (!m_context.file.empty())
        s += m_context.file + ": ";
    if (!m_context.weight.empty())
        s += "weight '" + m_context.weight + "': ";
    if (!m_context.tensor.empty())
        s += "tensor '" + m_context.tensor + "': ";
    return s;
}

void Error::addContext(const ErrorContext& context)
{
    if (m_bare)
        return;
    for (auto [part, added] : {std::pair{&m_context.file, &context.file}, std::pair{&m_context.weight, &context.weight},
                               std::pair{&m_context.tensor, &context.tensor}})
        if (part->empty())
            *part = *added;
    m_what = contextText() + m_detail;
}

void fail(const std::string& file, const std::string& what)
{
    throw Error(ErrorContext{file}, what);
}

} // namespace qs
