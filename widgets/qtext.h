#pragma once
// Core's UTF-8 std::string as the widgets show it.
#include <QString>

#include <string>

namespace qsw {

inline QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace qsw
