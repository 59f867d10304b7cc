#include "tablecsv.h"

#include "outputfile.h"

#include <QAbstractItemModel>
#include <QLocale>

#include <cmath>

namespace qsw {

QString csvLine(const QStringList& fields)
{
    QStringList out;
    for (const QString& f : fields) {
        const bool quote = f.contains(QLatin1Char(',')) || f.contains(QLatin1Char('"')) || f.contains(QLatin1Char('\n'))
            || f.contains(QLatin1Char('\r'));
        out << (quote ? QLatin1Char('"') + QString(f).replace(QLatin1String("\""), QLatin1String("\"\""))
                        + QLatin1Char('"')
                      : f);
    }
    return out.join(QLatin1Char(',')) + QLatin1String("\r\n");
}

QString csvNumber(double v)
{
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString csvCount(uint64_t n)
{
    return QString::number(qulonglong(n));
}

QString modelCsv(const QAbstractItemModel& model)
{
    QStringList header;
    for (int c = 0; c < model.columnCount(); ++c)
        header << model.headerData(c, Qt::Horizontal, CsvRole).toString();
    QString csv = csvLine(header);
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < model.columnCount(); ++c)
            row << model.index(r, c).data(CsvRole).toString();
        csv += csvLine(row);
    }
    return csv;
}

bool writeCsv(const QString& csv, const QString& path, const std::vector<std::string>& inputs, QString* error)
{
    return writeOutputFile(path, inputs, csv.toUtf8(), error);
}

} // namespace qsw
