#include "tablemodels.h"

#include <QFileInfo>
#include <QLocale>

namespace qsw {

TensorTableModel::TensorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorTableModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

void TensorTableModel::setTheme(const Theme& theme)
{
    m_theme = theme;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ForegroundRole});
}

int TensorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : int(m_snapshot->tensors.size());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& t = m_snapshot->tensors[index.row()];
    const QString weightText = t.weight >= 0
        ? tr("%1 (%2)").arg(m_snapshot->weights[t.weight].name, t.role)
        : QString();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return t.name;
        case TypeColumn: return t.type;
        case ShapeColumn: return shapeText(t.shape);
        case FileColumn: return QFileInfo(m_snapshot->files.value(t.file)).fileName();
        case OffsetColumn: return QLocale().toString(qulonglong(t.offset));
        case BytesColumn: return QLocale().toString(qulonglong(t.bytes));
        case WeightColumn: return weightText;
        default: return {};
        }
    case SortRole:
        switch (index.column()) {
        case ShapeColumn: {
            qulonglong n = 1;
            for (uint64_t d : t.shape)
                n *= d;
            return n;
        }
        case FileColumn: return t.file;
        case OffsetColumn: return qulonglong(t.offset);
        case BytesColumn: return qulonglong(t.bytes);
        default: return data(index, Qt::DisplayRole);
        }
    case TensorIndexRole:
        return index.row();
    case WeightIndexRole:
        return t.weight;
    case Qt::ForegroundRole:
        if (!t.known && m_theme.error.isValid())
            return m_theme.error;
        if (index.column() == WeightColumn && m_theme.mutedText.isValid())
            return m_theme.mutedText;
        return {};
    case Qt::ToolTipRole:
        return t.note.isEmpty() ? t.name : t.name + QLatin1Char('\n') + t.note;
    case Qt::TextAlignmentRole:
        return index.column() == OffsetColumn || index.column() == BytesColumn
            ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
        return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn: return tr("Tensor");
    case TypeColumn: return tr("Type");
    case ShapeColumn: return tr("Shape");
    case FileColumn: return tr("File");
    case OffsetColumn: return tr("Offset");
    case BytesColumn: return tr("Bytes");
    case WeightColumn: return tr("Logical weight (role)");
    default: return {};
    }
}

MetadataModel::MetadataModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetadataModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

int MetadataModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : int(m_snapshot->metadata.size());
}

int MetadataModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetadataModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& m = m_snapshot->metadata[index.row()];
    if (role == Qt::DisplayRole || role == Qt::UserRole + 1) {
        switch (index.column()) {
        case KeyColumn: return m.key;
        case TypeColumn: return m.type;
        case ValueColumn:
            // Long values (vocabularies, nested configs) stay readable in one row.
            return role == Qt::DisplayRole && m.value.size() > 200 ? m.value.left(200) + QChar(0x2026) : m.value;
        case SourceColumn: return m.source;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == ValueColumn)
        return m.value.left(4000);
    return {};
}

QVariant MetadataModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KeyColumn: return tr("Key");
    case TypeColumn: return tr("Type");
    case ValueColumn: return tr("Value");
    case SourceColumn: return tr("Source");
    default: return {};
    }
}

} // namespace qsw
