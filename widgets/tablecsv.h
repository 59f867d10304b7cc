#pragma once
// Tables as CSV (RFC 4180: comma-separated, quoted where a field holds a comma, quote or line
// break): every table the window shows (stored tensors, metadata, the Diff list, Verify's
// findings, the Recipe's weights, the Error view's statistics). A CSV is read by a parser, not
// a person: C-locale numbers at full precision, names in full, stable English headers and
// status words, in every UI language.
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QAbstractItemModel;

namespace qsw {

// The role a table answers with its CSV text: on a cell, the machine text (csvNumber, the
// name unelided, an English status word); on a horizontal header, the column's stable English
// name (snake_case, as the CLI's JSON names the same quantity).
constexpr int CsvRole = Qt::UserRole + 100;

// One CSV line of `fields`, ending in "\r\n".
QString csvLine(const QStringList& fields);
// `v` in the C locale, the shortest text that reads back as the same double ("27", "0.1",
// "1.0000000000000002"); "nan", "inf" and "-inf" for the non-finite.
QString csvNumber(double v);
QString csvCount(uint64_t n);
// The model as shown (a proxy's filter and order) through CsvRole: its header, then each
// top-level row.
QString modelCsv(const QAbstractItemModel& model);
// Writes `csv` to `path` through the output guard (writeOutputFile, outputfile.h: never over or into one
// of `inputs`, only ever replacing a regular file). Returns false with `error` set.
bool writeCsv(const QString& csv, const QString& path, const std::vector<std::string>& inputs, QString* error);

} // namespace qsw
