#include "base/message.h"

namespace qs {

Message Message::verbatim(std::string text)
{
    Message m;
    m.m_source = "%1";
    m.m_args.push_back(std::move(text));
    return m;
}

Message Message::quoting(const char* source, std::vector<Message> parts)
{
    Message m(source);
    for (const Message& part : parts)
        m.m_args.push_back(part.text());
    m.m_parts = std::move(parts);
    return m;
}

std::string Message::text() const
{
    return fillMessage(m_source, m_args);
}

std::string fillMessage(std::string_view tmpl, const std::vector<std::string>& args)
{
    std::string out;
    out.reserve(tmpl.size() + 16 * args.size());
    for (size_t i = 0; i < tmpl.size(); ++i) {
        const bool placeholder = tmpl[i] == '%' && i + 1 < tmpl.size() && tmpl[i + 1] >= '1' && tmpl[i + 1] <= '9';
        const size_t arg = placeholder ? static_cast<size_t>(tmpl[i + 1] - '1') : args.size();
        if (arg < args.size()) {
            out += args[arg];
            ++i;
        } else {
            out += tmpl[i];
        }
    }
    return out;
}

} // namespace qs
