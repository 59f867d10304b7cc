#pragma once
// Flat views of a snapshot: the stored tensors as the container lists them, and the
// metadata (container key/values and the Hugging Face configs beside it).
#include "snapshot.h"
#include "theme.h"

#include <QAbstractTableModel>

namespace qsw {

class TensorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TypeColumn, ShapeColumn, FileColumn, OffsetColumn, BytesColumn, WeightColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, TensorIndexRole, WeightIndexRole };

    explicit TensorTableModel(QObject* parent = nullptr);
    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    void setTheme(const Theme& theme);

public: // QAbstractItemModel API
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    Theme m_theme;
};

class MetadataModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, TypeColumn, ValueColumn, SourceColumn, ColumnCount };

    explicit MetadataModel(QObject* parent = nullptr);
    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);

public: // QAbstractItemModel API
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
};

} // namespace qsw
