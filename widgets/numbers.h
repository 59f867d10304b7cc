#pragma once
// Numbers shown to people, in the application's locale (QLocale(): the system's, or --lang):
// the German UI writes 0,0123 and 1.048.576. Machine formats (JSON, CSV, values read back by
// a parser) keep QString::number, which is always the C locale.
#include <QString>

#include <cstdint>

namespace qsw {

// NaN and ±infinity spelled as "NaN" and "∞" in every locale.
QString localNumber(double v, char format = 'g', int precision = 6);
// With the locale's group separators.
QString localCount(uint64_t n);
// "1,5 GiB": the locale's data size with `decimals` decimals.
QString localBytes(uint64_t bytes, int decimals = 2);

} // namespace qsw
