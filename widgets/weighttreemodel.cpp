#include "weighttreemodel.h"

#include "numbers.h"

#include <QPainter>
#include <QPixmap>

#include <map>

namespace qsw {

namespace {

// Internal ids: 0 for top-level rows, group + 1 for the weights inside a group.
constexpr quintptr kTopLevel = 0;

QString bpwText(double bpw)
{
    return localNumber(bpw, 'f', 3);
}

// A warning triangle in the theme's warning colour: the mark of a weight with notes.
QIcon noteMarkIcon(const QColor& colour, const QColor& mark)
{
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawPolygon(QPolygonF({QPointF(16, 2), QPointF(30, 29), QPointF(2, 29)}));
    p.setPen(QPen(mark, 3.5, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(QPointF(16, 11), QPointF(16, 19));
    p.drawPoint(QPointF(16, 24.5));
    return QIcon(pixmap);
}

} // namespace

WeightTreeModel::WeightTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void WeightTreeModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_groups.clear();
    m_weightPos.clear();
    if (m_snapshot) {
        std::map<QString, int> byLayer;
        m_weightPos.resize(m_snapshot->weights.size());
        for (int i = 0; i < m_snapshot->weights.size(); ++i) {
            const auto& w = m_snapshot->weights[i];
            int g;
            if (w.layer.isEmpty()) {
                g = int(m_groups.size());
                m_groups.push_back({});
            } else if (auto it = byLayer.find(w.layer); it != byLayer.end()) {
                g = it->second;
            } else {
                g = int(m_groups.size());
                byLayer.emplace(w.layer, g);
                m_groups.push_back({w.layer, {}, 0, 0, {}, 0});
            }
            auto& group = m_groups[g];
            m_weightPos[i] = {g, int(group.weights.size())};
            group.weights.push_back(i);
            group.bytes += w.storedBytes;
            group.elements += w.elements;
            group.withNotes += !w.notes.isEmpty();
            if (!group.formats.split(QLatin1String(", "), Qt::SkipEmptyParts).contains(w.format))
                group.formats += (group.formats.isEmpty() ? QString() : QStringLiteral(", ")) + w.format;
        }
    }
    endResetModel();
}

void WeightTreeModel::setTheme(const Theme& theme)
{
    m_theme = theme;
    m_noteIcon = theme.warning.isValid() ? noteMarkIcon(theme.warning, theme.background.isValid() ? theme.background : Qt::white)
                                         : QIcon();
    if (!m_groups.isEmpty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                         {Qt::ForegroundRole, Qt::BackgroundRole, Qt::DecorationRole});
    for (int g = 0; g < m_groups.size(); ++g) {
        const QModelIndex parent = index(g, 0);
        if (const int n = rowCount(parent))
            emit dataChanged(index(0, 0, parent), index(n - 1, ColumnCount - 1, parent), {Qt::ForegroundRole, Qt::DecorationRole});
    }
}

QModelIndex WeightTreeModel::indexOfWeight(int weight) const
{
    if (weight < 0 || weight >= m_weightPos.size())
        return {};
    const auto [g, row] = m_weightPos[weight];
    if (m_groups[g].name.isEmpty())
        return index(g, 0);
    return index(row, 0, index(g, 0));
}

QModelIndex WeightTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopLevel);
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex WeightTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kTopLevel);
}

int WeightTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0 || parent.internalId() != kTopLevel)
        return 0;
    const auto& g = m_groups[parent.row()];
    return g.name.isEmpty() ? 0 : int(g.weights.size());
}

int WeightTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant WeightTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kTopLevel) {
        const auto& g = m_groups[index.row()];
        if (g.name.isEmpty()) {
            const int w = g.weights.front();
            return weightData(m_snapshot->weights[w], w, index.column(), role);
        }
        return groupData(g, index.column(), role);
    }
    const int w = m_groups[int(index.internalId() - 1)].weights[index.row()];
    return weightData(m_snapshot->weights[w], w, index.column(), role);
}

QVariant WeightTreeModel::groupData(const Group& g, int column, int role) const
{
    const double bpw = g.elements ? double(g.bytes) * 8.0 / double(g.elements) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return g.name;
        case FormatColumn: return g.formats;
        case BpwColumn: return bpwText(bpw);
        case BytesColumn: return localBytes(g.bytes, 1);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case NameColumn: return g.name;
        case FormatColumn: return g.formats;
        case BpwColumn: return bpw;
        case BytesColumn: return qulonglong(g.bytes);
        default: return 0;
        }
    case FilterRole:
        return column == NameColumn ? g.name : QString();
    case FullNameRole:
        return g.name;
    case WeightIndexRole:
        return -1;
    case Qt::BackgroundRole:
        return m_theme.groupHeader.isValid() ? QVariant(m_theme.groupHeader) : QVariant();
    case Qt::DecorationRole:
        // A collapsed layer still shows that a weight inside has notes.
        return column == NameColumn && g.withNotes > 0 && !m_noteIcon.isNull() ? QVariant(m_noteIcon) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = tr("%n weight(s) in %1", nullptr, int(g.weights.size())).arg(g.name);
        if (g.withNotes > 0)
            tip += QLatin1Char('\n') + tr("%n of them with notes from detection", nullptr, g.withNotes);
        return tip;
    }
    case Qt::TextAlignmentRole:
        return column >= BitsColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
        return {};
    }
}

QVariant WeightTreeModel::weightData(const WeightRow& w, int weightIndex, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            // Inside a layer the prefix is in the parent row already.
            return w.layer.isEmpty() ? w.name : w.name.mid(w.layer.size() + 1);
        case FormatColumn: return w.format;
        case ShapeColumn: return shapeText(w.shape);
        case BitsColumn: return w.bits ? QVariant(w.bits) : QVariant();
        case GroupSizeColumn: return w.groupSize > 0 ? QVariant(qlonglong(w.groupSize)) : QVariant();
        case BpwColumn: return bpwText(w.bitsPerWeight);
        case BytesColumn: return localBytes(w.storedBytes, 1);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case NameColumn: return w.name;
        case FormatColumn: return w.format;
        case ShapeColumn: return qulonglong(w.elements);
        case BitsColumn: return w.bits;
        case GroupSizeColumn: return qlonglong(w.groupSize);
        case BpwColumn: return w.bitsPerWeight;
        case BytesColumn: return qulonglong(w.storedBytes);
        default: return {};
        }
    case FilterRole:
        switch (column) {
        case NameColumn: return w.name;
        case FormatColumn: return w.format;
        default: return QString();
        }
    case FullNameRole:
        return w.name;
    case WeightIndexRole:
        return weightIndex;
    case Qt::ForegroundRole:
        if (column == FormatColumn && m_theme.text.isValid())
            return m_theme.formatColor(w.format);
        if (column == NameColumn && !w.notes.isEmpty() && m_theme.warning.isValid())
            return m_theme.warning;
        return {};
    case Qt::DecorationRole:
        return column == NameColumn && !w.notes.isEmpty() && !m_noteIcon.isNull() ? QVariant(m_noteIcon) : QVariant();
    case Qt::ToolTipRole:
        if (!w.notes.isEmpty())
            return w.name + QLatin1Char('\n') + w.notes.join(QLatin1Char('\n'));
        return w.name;
    case Qt::TextAlignmentRole:
        return column >= BitsColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
        return {};
    }
}

QVariant WeightTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractItemModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ShapeColumn: return tr("Logical shape [out_features, in_features]");
        case BitsColumn: return tr("Bits per code (the float width for float formats)");
        case GroupSizeColumn: return tr("Weights sharing one scale along the input axis");
        case BpwColumn: return tr("Effective bits per weight, counting every scale, zero, index and padding byte");
        case BytesColumn: return tr("Bytes stored for this weight, all member tensors");
        default: return {};
        }
    }
    switch (section) {
    case NameColumn: return tr("Name");
    case FormatColumn: return tr("Format");
    case ShapeColumn: return tr("Shape");
    case BitsColumn: return tr("Bits");
    case GroupSizeColumn: return tr("Group");
    case BpwColumn: return tr("Bits/w");
    case BytesColumn: return tr("Bytes");
    default: return {};
    }
}

} // namespace qsw
