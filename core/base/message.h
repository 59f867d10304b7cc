#pragma once
// A sentence core says to the user (detection evidence and notes): an English template with
// %1..%9 placeholders and its arguments. Templates are marked
// QT_TRANSLATE_NOOP("qs::Message", "...") where they are written, so lupdate collects them; the
// CLI and the reports print text(), the GUI translates source() in kMessageContext and fills in
// the same arguments (fillMessage). Core never knows the language.
#include <QtGlobal> // QT_TRANSLATE_NOOP, for the files that write templates

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

inline constexpr const char* kMessageContext = "qs::Message";

class Message {
public:
    Message() = default;
    // source has static storage: a QT_TRANSLATE_NOOP("qs::Message", ...) literal.
    Message(const char* source, std::initializer_list<std::string> args = {}) : m_source(source), m_args(args) {}
    // Text no template describes (an error's what(), a reader's note): shown as it is, untranslated.
    static Message verbatim(std::string text);
    // A template whose arguments are messages themselves (a note quoted in a finding, a round
    // trip's first difference): text() fills in their English text, qtext their translation.
    static Message quoting(const char* source, std::vector<Message> parts);

    const char* source() const { return m_source; }
    const std::vector<std::string>& args() const { return m_args; } // each argument's English text
    const std::vector<Message>& parts() const { return m_parts; }      // the quoted messages, or none
    std::string text() const; // the English sentence
    bool startsWith(std::string_view prefix) const { return std::string_view(m_source).starts_with(prefix); }
    bool empty() const { return *m_source == '\0'; } // default-constructed: nothing to say

private:
    const char* m_source = "";
    std::vector<std::string> m_args;
    std::vector<Message> m_parts;
};

// tmpl with each %N (N = 1..9, an argument given) replaced by args[N - 1]; other text unchanged.
std::string fillMessage(std::string_view tmpl, const std::vector<std::string>& args);

} // namespace qs
