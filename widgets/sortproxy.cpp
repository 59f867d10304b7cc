#include "sortproxy.h"

namespace qsw {

NaturalSortProxy::NaturalSortProxy(int sortRole, int filterRole, QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(sortRole);
    setFilterRole(filterRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
}

int naturalCompare(const QString& a, const QString& b)
{
    // QCollator's numeric mode depends on ICU and the locale (none under "C"); this does not.
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit())
                ++ei;
            while (ej < b.size() && b[ej].isDigit())
                ++ej;
            // Compare by value without overflow: strip leading zeros, then length, then digits.
            qsizetype si = i, sj = j;
            while (si + 1 < ei && a[si] == u'0')
                ++si;
            while (sj + 1 < ej && b[sj] == u'0')
                ++sj;
            if (ei - si != ej - sj)
                return ei - si < ej - sj ? -1 : 1;
            if (const int c = QStringView(a).mid(si, ei - si).compare(QStringView(b).mid(sj, ej - sj)); c != 0)
                return c < 0 ? -1 : 1;
            i = ei;
            j = ej;
            continue;
        }
        const QChar ca = a[i].toCaseFolded(), cb = b[j].toCaseFolded();
        if (ca != cb)
            return ca < cb ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1;
    return QString::compare(a, b, Qt::CaseSensitive) < 0 ? -1 : (a == b ? 0 : 1);
}

bool NaturalSortProxy::hasChildren(const QModelIndex& parent) const
{
    if (!sourceModel() || !filterRegularExpression().pattern().isEmpty())
        return QSortFilterProxyModel::hasChildren(parent);
    const QModelIndex source = mapToSource(parent);
    if (parent.isValid() && !source.isValid())
        return false;
    return sourceModel()->hasChildren(source);
}

bool NaturalSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant l = left.data(sortRole());
    const QVariant r = right.data(sortRole());
    if (l.userType() == QMetaType::QString || r.userType() == QMetaType::QString)
        return naturalCompare(l.toString(), r.toString()) < 0;
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace qsw
