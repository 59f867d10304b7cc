#include "base/message.h"

namespace qs {

struct Message::Payload {
    std::vector<std::string> args;
    std::vector<Message> parts;
};

namespace {

const std::vector<std::string> kNoArgs;
const std::vector<Message> kNoParts;

} // namespace

Message::Message(const char* source, std::initializer_list<std::string> args)
    : m_source(source)
{
    if (args.size() != 0)
        m_payload = std::make_shared<const Payload>(Payload{std::vector<std::string>(args), {}});
}

const std::vector<std::string>& Message::args() const
{
    return m_payload ? m_payload->args : kNoArgs;
}

const std::vector<Message>& Message::parts() const
{
    return m_payload ? m_payload->parts : kNoParts;
}

Message Message::verbatim(std::string text)
{
    Message m;
    m.m_source = "%1";
    m.m_payload = std::make_shared<const Payload>(Payload{{std::move(text)}, {}});
    return m;
}

Message Message::quoting(const char* source, std::vector<Message> parts)
{
    Message m(source);
    std::vector<std::string> args;
    args.reserve(parts.size());
    for (const Message& part : parts)
        args.push_back(part.text());
    if (!args.empty())
        m.m_payload = std::make_shared<const Payload>(Payload{std::move(args), std::move(parts)});
    return m;
}

std::string Message::text() const
{
    return fillMessage(m_source, args());
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
