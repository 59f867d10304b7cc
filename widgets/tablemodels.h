#pragma once
// Flat views of a snapshot: the stored tensors as the container lists them, and the
// metadata (container key/values and the Hugging Face configs beside it).
#include "snapshot.h"
#include "theme.h"

#include <QAbstractItemModel>
#include <QAbstractTableModel>

#include <memory>

namespace qs {
class Checkpoint;
struct MetaValue;
} // namespace qs

namespace qsw {

class TensorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        TypeColumn,
        ShapeColumn,
        FileColumn,
        OffsetColumn,
        BytesColumn,
        WeightColumn,
        ColumnCount
    };
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

// The metadata as a tree: one top-level row per key; JSON objects and arrays (a config's
// quantization_config) and GGUF arrays open into their members. Children are made when a
// node is expanded, kPage at a time, so a 151k-token vocabulary costs nothing until it is
// opened and a page when it is (canFetchMore / fetchMore; a view asks for the next page at
// the end of the last one).
class MetadataModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, TypeColumn, ValueColumn, SourceColumn, ColumnCount };
    static constexpr int kPage = 1000;
    // Up to this many keys the top level is made at once; beyond, it is fetched kPage at a time.
    static constexpr int kWholeTopLevel = 20000;

    explicit MetadataModel(QObject* parent = nullptr);
    ~MetadataModel() override;
    // `checkpoint` holds the container values the snapshot's rows index (metaIndex); without
    // it GGUF arrays do not open.
    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot,
                     std::shared_ptr<const qs::Checkpoint> checkpoint = nullptr);
    // Children a node has in all (fetched or not).
    qsizetype childTotal(const QModelIndex& parent) const;

public: // QAbstractItemModel API
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node* nodeOf(const QModelIndex& index) const;
    std::unique_ptr<Node> topLevelNode(int i) const;

    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    std::shared_ptr<const qs::Checkpoint> m_checkpoint;
    std::unique_ptr<Node> m_root;
    bool m_fetching = false; // inside fetchMore's insertion or the reset's signal
};

} // namespace qsw
