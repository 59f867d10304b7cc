#pragma once
// The tensor browser: logical weights grouped by layer. Top-level rows are layers (or
// single weights outside any layer), their children the layer's weights.
#include "snapshot.h"
#include "theme.h"

#include <QAbstractItemModel>
#include <QIcon>

namespace qsw {

class WeightTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, FormatColumn, ShapeColumn, BitsColumn, GroupSizeColumn, BpwColumn, BytesColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers for numeric columns, text otherwise
        FilterRole,                  // full name, format and shape: what the filter box matches
        WeightIndexRole,             // index into CheckpointSnapshot::weights; -1 for a layer row
        FullNameRole,
    };

    explicit WeightTreeModel(QObject* parent = nullptr);

    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    void setTheme(const Theme& theme);
    QModelIndex indexOfWeight(int weight) const;

public: // QAbstractItemModel API
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group {
        QString name;        // layer prefix; empty for a top-level single weight
        QVector<int> weights;
        uint64_t bytes = 0;
        uint64_t elements = 0;
        QString formats;     // the distinct formats, comma separated
        int withNotes = 0;   // weights with notes from detection
    };
    QVariant groupData(const Group& g, int column, int role) const;
    QVariant weightData(const WeightRow& w, int weightIndex, int column, int role) const;

    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    QVector<Group> m_groups;
    QVector<QPair<int, int>> m_weightPos; // weight -> (group, row)
    Theme m_theme;
    QIcon m_noteIcon; // the warning mark of weights with notes
};

} // namespace qsw
