#pragma once
// Tables as CSV (RFC 4180: comma-separated, quoted where a field holds a comma, quote or line
// break): the stored tensors, the Diff view's list and the Error view's statistics.
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QAbstractItemModel;

namespace qsw {

// One CSV line of `fields`, ending in "\r\n".
QString csvLine(const QStringList& fields);
// The model as shown (a proxy's filter and order): its header, then each row's display text.
QString modelCsv(const QAbstractItemModel& model);
// Writes `csv` to `path` through the output guard (writeOutputFile, outputfile.h: never over or into one
// of `inputs`, only ever replacing a regular file). Returns false with `error` set.
bool writeCsv(const QString& csv, const QString& path, const std::vector<std::string>& inputs, QString* error);

} // namespace qsw
