#pragma once
// Sorting and filtering for every browser: numbers sort as numbers and names naturally
// ("layers.2" before "layers.10"); the filter keeps a layer when any weight in it matches.
#include <QSortFilterProxyModel>

namespace qsw {

class NaturalSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit NaturalSortProxy(int sortRole, int filterRole, QObject* parent = nullptr);

    // Without a filter, a row has children exactly when its source row has: answered without
    // the mapping QSortFilterProxyModel would make for every row a view asks about (a tree
    // view asks about each top-level row it lays out: a million layers made a million
    // mappings, gigabytes).
    bool hasChildren(const QModelIndex& parent = {}) const override;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

// Case-insensitive, digit runs compared by value: "layers.2" < "layers.10".
int naturalCompare(const QString& a, const QString& b);

} // namespace qsw
