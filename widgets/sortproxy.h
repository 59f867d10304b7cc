#pragma once
// Sorting and filtering for every browser: numbers sort as numbers and names naturally
// ("layers.2" before "layers.10"); the filter keeps a layer when any weight in it matches.
#include <QSortFilterProxyModel>

namespace qsw {

class NaturalSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit NaturalSortProxy(int sortRole, int filterRole, QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

};

// Case-insensitive, digit runs compared by value: "layers.2" < "layers.10".
int naturalCompare(const QString& a, const QString& b);

} // namespace qsw
