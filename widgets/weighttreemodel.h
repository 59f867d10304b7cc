#pragma once
// The tensor browser: logical weights grouped by layer. Top-level rows are layers (or
// single weights outside any layer), their children the layer's weights. The grouping is the
// snapshot's (CheckpointSnapshot::groups); rows are read from the checkpoint when shown.
#include "snapshot.h"
#include "theme.h"

#include <QAbstractItemModel>
#include <QIcon>
#include <QSet>

class QTreeView;

namespace qsw {

class WeightTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        FormatColumn,
        ShapeColumn,
        BitsColumn,
        GroupSizeColumn,
        BpwColumn,
        BytesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers for numeric columns, text otherwise
        FilterRole, // full name, format and shape: what the filter box matches
        WeightIndexRole, // index into CheckpointSnapshot::weights; -1 for a layer row
        FullNameRole,
    };

    explicit WeightTreeModel(QObject* parent = nullptr);

    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    void setTheme(const Theme& theme);
    // Weights Verify found errors in (indices of the snapshot's weights): marked, and their layer.
    void setFlagged(const QSet<int>& weights);
    QModelIndex indexOfWeight(int weight) const;

public: // QAbstractItemModel API
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant groupData(int group, int column, int role) const;
    QVariant weightData(int weight, int column, int role) const;
    QString groupName(const WeightGroup& g) const;

    // The groups were made with the snapshot, off the GUI thread: nothing here is per weight.
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    const WeightGroups* m_groups = nullptr;
    Theme m_theme;
    QIcon m_noteIcon; // the warning mark of weights with notes
    QIcon m_errorIcon; // the mark of weights Verify found errors in
    QSet<int> m_flagged, m_flaggedGroups;
};

// Expands every layer of a tree `view` shows, when it has at most kExpandLayers top-level rows
// (expanding a million layers on the GUI thread took minutes); false when it has more.
constexpr int kExpandLayers = 4096;
bool expandLayers(QTreeView* view);

} // namespace qsw
