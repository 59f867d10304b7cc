#include "tablecsv.h"

#include "outputfile.h"

#include <QAbstractItemModel>

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

QString modelCsv(const QAbstractItemModel& model)
{
    QStringList header;
    for (int c = 0; c < model.columnCount(); ++c)
        header << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QString csv = csvLine(header);
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < model.columnCount(); ++c)
            row << model.index(r, c).data(Qt::DisplayRole).toString();
        csv += csvLine(row);
    }
    return csv;
}

bool writeCsv(const QString& csv, const QString& path, const std::vector<std::string>& inputs, QString* error)
{
    return writeOutputFile(path, inputs, csv.toUtf8(), error);
}

} // namespace qsw
