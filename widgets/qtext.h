#pragma once
// Core's UTF-8 std::string and its messages as the widgets show them.
#include "base/error.h"
#include "base/message.h"

#include <QCoreApplication>
#include <QString>

#include <string>
#include <string_view>

namespace qs {
struct FormatInfo;
}

namespace qsw {

inline QString qtext(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

inline QString qtext(const char* s)
{
    return QString::fromUtf8(s);
}

// A word core marked QT_TRANSLATE_NOOP("qs::Message", ...) where it wrote it (a weight
// parameter's key or value) in the UI's language; other text (numbers, names) as it is.
inline QString qword(const std::string& s)
{
    return QCoreApplication::translate(qs::kMessageContext, s.c_str());
}

// A core message in the UI's language: its template translated in the qs::Message context,
// filled with the same arguments the CLI's English text takes; quoted messages translated too,
// and a decimal argument ("2.50", "+12.3", core writes them in the C locale) with the locale's
// decimal point, as localNumber writes it.
QString qtext(const qs::Message& m);

// What the views call a format where they group formats by family ("GPTQ", "AWQ",
// "bitsandbytes 4-bit": its row's displayName), in the UI's language.
QString familyName(const qs::FormatInfo& format);

// An error as the user reads it: the same text as the CLI's what(), its context (file, weight,
// tensor) in front and the message translated when core raised it with one.
inline QString qtext(const qs::Error& e)
{
    return e.message() ? QString::fromStdString(e.contextText()) + qtext(*e.message())
                       : QString::fromStdString(e.what());
}

} // namespace qsw
