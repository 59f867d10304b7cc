#include "numbers.h"

#include <QLocale>

#include <cmath>

namespace qsw {

QString localNumber(double v, char format, int precision)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(v, format, precision);
}

QString localCount(uint64_t n)
{
    return QLocale().toString(qulonglong(n));
}

QString localBytes(uint64_t bytes, int decimals)
{
    return QLocale().formattedDataSize(qint64(bytes), decimals);
}

} // namespace qsw
