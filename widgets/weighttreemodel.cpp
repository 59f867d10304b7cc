#include "weighttreemodel.h"

#include "numbers.h"
#include "qtext.h"

#include "container/checkpoint.h"

#include <QPainter>
#include <QPixmap>
#include <QTreeView>

namespace qsw {

namespace {

// Internal ids: 0 for top-level rows, group + 1 for the weights inside a group.
constexpr quintptr kTopLevel = 0;

// What the tree does not already say: inside a layer the prefix is in the parent row, and
// every row is a weight, so a ".weight" suffix tells nothing either.
QString shownWeightName(const QString& name, int layerLength)
{
    QStringView shown = layerLength == 0 ? QStringView(name) : QStringView(name).mid(layerLength + 1);
    const QLatin1String kSuffix(".weight");
    if (shown.size() > kSuffix.size() && shown.endsWith(kSuffix))
        shown.chop(kSuffix.size());
    return shown.toString();
}

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

// A round mark with "!" in the theme's error colour: a weight Verify found errors in.
QIcon errorMarkIcon(const QColor& colour, const QColor& mark)
{
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawEllipse(QPointF(16, 16), 14, 14);
    p.setPen(QPen(mark, 3.5, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(QPointF(16, 8), QPointF(16, 18));
    p.drawPoint(QPointF(16, 24));
    return QIcon(pixmap);
}

} // namespace

WeightTreeModel::WeightTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

void WeightTreeModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_groups = m_snapshot ? &m_snapshot->groups : nullptr;
    m_flagged.clear();
    m_flaggedGroups.clear();
    endResetModel();
}

void WeightTreeModel::setTheme(const Theme& theme)
{
    m_theme = theme;
    const QColor mark = theme.background.isValid() ? theme.background : QColor(Qt::white);
    m_noteIcon = theme.warning.isValid() ? noteMarkIcon(theme.warning, mark) : QIcon();
    m_errorIcon = theme.error.isValid() ? errorMarkIcon(theme.error, mark) : QIcon();
    if (!m_groups || m_groups->groups.empty())
        return;
    // One signal for the top level; the views repaint what they show of the children with it.
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                     {Qt::ForegroundRole, Qt::BackgroundRole, Qt::DecorationRole});
    // Children's rows are signalled per layer only where there are few layers (a view asks
    // again for what it paints; a million signals would not be cheap).
    if (m_groups->groups.size() > 4096)
        return;
    for (int g = 0; g < int(m_groups->groups.size()); ++g) {
        const QModelIndex parent = index(g, 0);
        if (const int n = rowCount(parent))
            emit dataChanged(index(0, 0, parent), index(n - 1, ColumnCount - 1, parent),
                             {Qt::ForegroundRole, Qt::DecorationRole});
    }
}

void WeightTreeModel::setFlagged(const QSet<int>& weights)
{
    m_flagged = weights;
    m_flaggedGroups.clear();
    if (m_groups)
        for (int w : weights)
            if (w >= 0 && size_t(w) < m_groups->groupOf.size())
                m_flaggedGroups.insert(m_groups->groupOf[size_t(w)]);
    if (rowCount() == 0)
        return;
    // Only the name column's mark and tooltip change; the views ask again for what they paint.
    emit dataChanged(index(0, NameColumn), index(rowCount() - 1, NameColumn), {Qt::DecorationRole, Qt::ToolTipRole});
    for (int g : std::as_const(m_flaggedGroups))
        if (const int n = rowCount(index(g, 0)))
            emit dataChanged(index(0, NameColumn, index(g, 0)), index(n - 1, NameColumn, index(g, 0)),
                             {Qt::DecorationRole, Qt::ToolTipRole});
}

QModelIndex WeightTreeModel::indexOfWeight(int weight) const
{
    if (!m_groups || weight < 0 || size_t(weight) >= m_groups->groupOf.size())
        return {};
    const int g = m_groups->groupOf[size_t(weight)];
    if (m_groups->groups[size_t(g)].nameLength == 0)
        return index(g, 0);
    return index(m_groups->rowInGroup[size_t(weight)], 0, index(g, 0));
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
    if (!m_groups)
        return 0;
    if (!parent.isValid())
        return int(m_groups->groups.size());
    if (parent.column() != 0 || parent.internalId() != kTopLevel)
        return 0;
    const WeightGroup& g = m_groups->groups[size_t(parent.row())];
    return g.nameLength == 0 ? 0 : g.count;
}

int WeightTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QString WeightTreeModel::groupName(const WeightGroup& g) const
{
    return g.nameLength == 0 ? QString()
                             : m_snapshot->weightName(m_groups->groupWeights[size_t(g.first)]).left(g.nameLength);
}

QVariant WeightTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kTopLevel) {
        const WeightGroup& g = m_groups->groups[size_t(index.row())];
        if (g.nameLength == 0)
            return weightData(m_groups->groupWeights[size_t(g.first)], index.column(), role);
        return groupData(index.row(), index.column(), role);
    }
    const WeightGroup& g = m_groups->groups[size_t(index.internalId() - 1)];
    return weightData(m_groups->groupWeights[size_t(g.first + index.row())], index.column(), role);
}

QVariant WeightTreeModel::groupData(int group, int column, int role) const
{
    const WeightGroup& g = m_groups->groups[size_t(group)];
    const double bpw = g.elements ? double(g.bytes) * 8.0 / double(g.elements) : 0.0;
    const auto formats = [&] { return m_groups->formatLists.value(g.formats); };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return shownText(groupName(g));
        case FormatColumn: return formats();
        case BpwColumn: return bpwText(bpw);
        case BytesColumn: return localBytes(g.bytes, 1);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case NameColumn: return groupName(g);
        case FormatColumn: return formats();
        case BpwColumn: return bpw;
        case BytesColumn: return qulonglong(g.bytes);
        default: return 0;
        }
    case FilterRole: return column == NameColumn ? groupName(g) : QString();
    case FullNameRole: return groupName(g);
    case WeightIndexRole: return -1;
    case Qt::BackgroundRole: return m_theme.groupHeader.isValid() ? QVariant(m_theme.groupHeader) : QVariant();
    case Qt::DecorationRole:
        // A collapsed layer still shows that a weight inside has errors or notes.
        if (column != NameColumn)
            return {};
        if (m_flaggedGroups.contains(group) && !m_errorIcon.isNull())
            return m_errorIcon;
        return g.withNotes > 0 && !m_noteIcon.isNull() ? QVariant(m_noteIcon) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = tr("%n weight(s) in %1", nullptr, g.count).arg(shownText(groupName(g)));
        if (g.withNotes > 0)
            tip += QLatin1Char('\n') + tr("%n of them with notes from detection", nullptr, g.withNotes);
        if (m_flaggedGroups.contains(group))
            tip += QLatin1Char('\n') + tr("Verify found errors in this layer.");
        return tip;
    }
    case Qt::TextAlignmentRole:
        return column >= BitsColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default: return {};
    }
}

// Read from the logical weight itself: the sort and filter ask every row (a million, for some
// files), so no row of QStrings is made for them.
QVariant WeightTreeModel::weightData(int weightIndex, int column, int role) const
{
    const qs::LogicalWeight& w = m_snapshot->checkpoint->weights[size_t(weightIndex)];
    const int layer = m_snapshot->layerLength[size_t(weightIndex)];
    const auto format = [&] { return qtext(w.format); };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return shownText(shownWeightName(qtext(w.name), layer));
        case FormatColumn: return format();
        case ShapeColumn: return shapeText(QVector<uint64_t>(w.shape.begin(), w.shape.end()));
        case BitsColumn: return w.bits ? QVariant(w.bits) : QVariant();
        case GroupSizeColumn: return w.groupSize > 0 ? QVariant(qlonglong(w.groupSize)) : QVariant();
        case BpwColumn: return bpwText(w.bitsPerWeight());
        case BytesColumn: return localBytes(w.storedBytes, 1);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case NameColumn: return qtext(w.name);
        case FormatColumn: return format();
        case ShapeColumn: return qulonglong(w.elementCount());
        case BitsColumn: return w.bits;
        case GroupSizeColumn: return qlonglong(w.groupSize);
        case BpwColumn: return w.bitsPerWeight();
        case BytesColumn: return qulonglong(w.storedBytes);
        default: return {};
        }
    case FilterRole:
        switch (column) {
        case NameColumn: return qtext(w.name);
        case FormatColumn: return format();
        default: return QString();
        }
    case FullNameRole: return qtext(w.name);
    case WeightIndexRole: return weightIndex;
    case Qt::ForegroundRole:
        if (column == FormatColumn && m_theme.text.isValid())
            return m_theme.formatColor(format());
        if (column == NameColumn && !w.notes.empty() && m_theme.warning.isValid())
            return m_theme.warning;
        return {};
    case Qt::DecorationRole:
        if (column != NameColumn)
            return {};
        if (m_flagged.contains(weightIndex) && !m_errorIcon.isNull())
            return m_errorIcon;
        return !w.notes.empty() && !m_noteIcon.isNull() ? QVariant(m_noteIcon) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = shownText(qtext(w.name));
        if (m_flagged.contains(weightIndex))
            tip += QLatin1Char('\n') + tr("Verify found errors in this weight: its findings are in the Verify view.");
        for (const qs::Message& n : w.notes)
            tip += QLatin1Char('\n') + qtext(n);
        return tip;
    }
    case Qt::TextAlignmentRole:
        return column >= BitsColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default: return {};
    }
}

bool expandLayers(QTreeView* view)
{
    if (!view->model() || view->model()->rowCount() > kExpandLayers)
        return false;
    view->expandAll();
    return true;
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
