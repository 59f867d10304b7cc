#include "qtext.h"

#include "formats/family.h"

#include <QLocale>

namespace qsw {

namespace {

// "2.50", "-0.125", "+12.3" with the locale's decimal point; any other argument as it is.
std::string localDecimalArg(const std::string& arg)
{
    const size_t digits0 = !arg.empty() && (arg[0] == '+' || arg[0] == '-') ? 1 : 0;
    const size_t dot = arg.find('.');
    if (dot == std::string::npos || dot == digits0 || dot + 1 == arg.size())
        return arg;
    for (size_t i = digits0; i < arg.size(); ++i)
        if (i != dot && (arg[i] < '0' || arg[i] > '9'))
            return arg;
    std::string out = arg;
    out.replace(dot, 1, QLocale().decimalPoint().toStdString());
    return out;
}

} // namespace

QString qtext(const qs::Message& m)
{
    const QString tmpl = QCoreApplication::translate(qs::kMessageContext, m.source());
    std::vector<std::string> args;
    args.reserve(m.args().size());
    if (m.parts().empty())
        for (const std::string& a : m.args())
            args.push_back(localDecimalArg(a));
    else
        for (const qs::Message& part : m.parts())
            args.push_back(qtext(part).toStdString());
    return QString::fromStdString(qs::fillMessage(tmpl.toStdString(), args));
}

QString familyName(const qs::FormatInfo& format)
{
    return QCoreApplication::translate(qs::kFamilyNameContext, qs::familyDisplayName(format));
}

} // namespace qsw
