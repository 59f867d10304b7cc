#pragma once
// A sentence core says to the user (detection evidence and notes): an English template with
// %1..%9 placeholders and its arguments. Templates are marked
// QT_TRANSLATE_NOOP("qs::Message", "...") where they are written, so lupdate collects them; the
// CLI and the reports print text(), the GUI translates source() in kMessageContext and fills in
// the same arguments (fillMessage). Core never knows the language.
#include <QtGlobal> // QT_TRANSLATE_NOOP, for the files that write templates

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

inline constexpr const char* kMessageContext = "qs::Message";

// Immutable once made: copies share the arguments (a copy costs a reference count, no
// allocation), so a note or evidence line that many weights carry is stored once, and a
// message without arguments allocates nothing. 24 bytes.
class Message {
public:
    Message() = default;
    // source has static storage: a QT_TRANSLATE_NOOP("qs::Message", ...) literal.
    Message(const char* source, std::initializer_list<std::string> args = {});
    // Text no template describes (an error's what(), a reader's note): shown as it is, untranslated.
    static Message verbatim(std::string text);
    // A template whose arguments are messages themselves (a note quoted in a finding, a round
    // trip's first difference): text() fills in their English text, qtext their translation.
    static Message quoting(const char* source, std::vector<Message> parts);

    const char* source() const { return m_source; }
    const std::vector<std::string>& args() const; // each argument's English text
    const std::vector<Message>& parts() const; // the quoted messages, or none
    std::string text() const; // the English sentence
    bool startsWith(std::string_view prefix) const { return std::string_view(m_source).starts_with(prefix); }
    bool empty() const { return *m_source == '\0'; } // default-constructed: nothing to say

private:
    struct Payload;
    const char* m_source = "";
    std::shared_ptr<const Payload> m_payload; // null: no arguments
};

// tmpl with each %N (N = 1..9, an argument given) replaced by args[N - 1]; other text unchanged.
std::string fillMessage(std::string_view tmpl, const std::vector<std::string>& args);

} // namespace qs
