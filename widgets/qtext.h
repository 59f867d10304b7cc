#pragma once
// Core's UTF-8 std::string and its messages as the widgets show them.
#include "base/message.h"

#include <QCoreApplication>
#include <QString>

#include <string>

namespace qsw {

inline QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

inline QString qtext(const char* s)
{
    return QString::fromUtf8(s);
}

// A core message in the UI's language: its template translated in the qs::Message context,
// filled with the same arguments the CLI's English text takes.
inline QString qtext(const qs::Message& m)
{
    const QString tmpl = QCoreApplication::translate(qs::kMessageContext, m.source());
    return QString::fromStdString(qs::fillMessage(tmpl.toStdString(), m.args()));
}

} // namespace qsw
