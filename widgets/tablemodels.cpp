#include "tablemodels.h"

#include "numbers.h"
#include "qtext.h"
#include "tablecsv.h"

#include "container/checkpoint.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

namespace qsw {

TensorTableModel::TensorTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

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

// Read from the tensor itself: the sort and filter ask every row (a million, for some files),
// so no row of QStrings is made for them.
QVariant TensorTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const qs::Checkpoint& ckpt = *m_snapshot->checkpoint;
    const qs::TensorEntry& t = ckpt.tensors[size_t(index.row())];
    const int weight = m_snapshot->tensorWeight[size_t(index.row())];
    const auto weightText = [&] {
        if (weight < 0)
            return QString();
        const qs::LogicalWeight& w = ckpt.weights[size_t(weight)];
        return tr("%1 (%2)").arg(qtext(w.name),
                                 qtext(w.members[size_t(m_snapshot->tensorMember[size_t(index.row())])].first));
    };
    const auto type = [&] { return qtext(t.typeName.empty() ? qs::dtypeName(t.dtype) : t.typeName); };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return shownText(qtext(t.name));
        case TypeColumn: return type();
        case ShapeColumn: return shapeText(QVector<uint64_t>(t.shape.begin(), t.shape.end()));
        case FileColumn: return QFileInfo(m_snapshot->files.value(int(t.file))).fileName();
        case OffsetColumn: return localCount(t.offset);
        case BytesColumn: return localCount(t.nbytes);
        case WeightColumn: return shownText(weightText());
        default: return {};
        }
    case CsvRole:
        switch (index.column()) {
        case NameColumn: return qtext(t.name);
        case OffsetColumn: return csvCount(t.offset);
        case BytesColumn: return csvCount(t.nbytes);
        case WeightColumn:
            return weight < 0 ? QString()
                              : QStringLiteral("%1 (%2)").arg(
                                  qtext(ckpt.weights[size_t(weight)].name),
                                  qtext(ckpt.weights[size_t(weight)]
                                            .members[size_t(m_snapshot->tensorMember[size_t(index.row())])]
                                            .first));
        default: return data(index, Qt::DisplayRole);
        }
    case SortRole:
        switch (index.column()) {
        case NameColumn: return qtext(t.name);
        case ShapeColumn: {
            qulonglong n = 1;
            for (uint64_t d : t.shape)
                n *= d;
            return n;
        }
        case FileColumn: return int(t.file);
        case OffsetColumn: return qulonglong(t.offset);
        case BytesColumn: return qulonglong(t.nbytes);
        case WeightColumn: return weightText();
        default: return data(index, Qt::DisplayRole);
        }
    case TensorIndexRole: return index.row();
    case WeightIndexRole: return weight;
    case Qt::ForegroundRole:
        if (!t.known && m_theme.error.isValid())
            return m_theme.error;
        if (index.column() == WeightColumn && m_theme.mutedText.isValid())
            return m_theme.mutedText;
        return {};
    case Qt::ToolTipRole: {
        const QString name = shownText(qtext(t.name));
        return t.note.empty() ? name : name + QLatin1Char('\n') + qtext(t.note);
    }
    case Qt::TextAlignmentRole:
        return index.column() == OffsetColumn || index.column() == BytesColumn
            ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
            : QVariant();
    default: return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == CsvRole) {
        static const char* const names[] = {"tensor", "type", "shape", "file", "offset", "bytes", "weight"};
        return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
    }
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

// A node of the metadata tree. A top-level node is a snapshot row; below it, a JSON member
// or item (json) or a GGUF array item (meta).
struct MetadataModel::Node {
    Node* parent = nullptr;
    int row = 0;
    int metaRow = -1; // top level: the snapshot's row
    QString key; // below: the member name or "[i]"
    QJsonValue json; // a JSON value (Undefined for GGUF values)
    const qs::MetaValue* meta = nullptr; // a GGUF value
    std::vector<std::unique_ptr<Node>> children; // the fetched ones, in order
    qsizetype total = 0; // children in all
};

namespace {

qsizetype metaChildCount(const qs::MetaValue* v)
{
    const auto* items = v ? std::get_if<std::vector<qs::MetaValue>>(&v->value) : nullptr;
    return items ? qsizetype(items->size()) : 0;
}

qsizetype jsonChildCount(const QJsonValue& v)
{
    return v.isObject() ? v.toObject().size() : v.isArray() ? v.toArray().size() : 0;
}

} // namespace

MetadataModel::MetadataModel(QObject* parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{
}

MetadataModel::~MetadataModel() = default;

void MetadataModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot,
                                std::shared_ptr<const qs::Checkpoint> checkpoint)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_checkpoint = std::move(checkpoint);
    m_root = std::make_unique<Node>();
    // Every key of a checkpoint of ordinary size; the records of one with millions (a file of
    // repeated keys) a page at a time, like an array's items.
    const qsizetype rows = m_snapshot ? std::min<qsizetype>(m_snapshot->metadata.size(), INT_MAX) : 0;
    for (qsizetype i = 0; i < rows && rows <= kWholeTopLevel; ++i)
        m_root->children.push_back(topLevelNode(int(i)));
    m_root->total = rows;
    // The reset's listeners (a model tester walking the tree) fetch nothing yet: rows
    // inserted inside the reset's signal would nest in it.
    m_fetching = true;
    endResetModel();
    m_fetching = false;
}

std::unique_ptr<MetadataModel::Node> MetadataModel::topLevelNode(int i) const
{
    const MetaRow m = m_snapshot->metadata[i];
    auto node = std::make_unique<Node>();
    node->parent = m_root.get();
    node->row = i;
    node->metaRow = i;
    node->json = m.json;
    if (m_checkpoint && m.metaIndex >= 0 && size_t(m.metaIndex) < m_checkpoint->metadata.size())
        node->meta = &m_checkpoint->metadata[size_t(m.metaIndex)].second;
    node->total = node->meta ? metaChildCount(node->meta) : jsonChildCount(node->json);
    return node;
}

MetadataModel::Node* MetadataModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

qsizetype MetadataModel::childTotal(const QModelIndex& parent) const
{
    return nodeOf(parent)->total;
}

QModelIndex MetadataModel::index(int row, int column, const QModelIndex& parent) const
{
    const Node* p = nodeOf(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || size_t(row) >= p->children.size())
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex MetadataModel::parent(const QModelIndex& child) const
{
    const Node* n = nodeOf(child);
    if (!child.isValid() || n->parent == m_root.get())
        return {};
    return createIndex(n->parent->row, 0, n->parent);
}

int MetadataModel::rowCount(const QModelIndex& parent) const
{
    if (parent.column() > 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int MetadataModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

bool MetadataModel::hasChildren(const QModelIndex& parent) const
{
    return parent.column() <= 0 && nodeOf(parent)->total > 0;
}

bool MetadataModel::canFetchMore(const QModelIndex& parent) const
{
    const Node* n = nodeOf(parent);
    // Not while rows are being inserted or the model resets: asking then would nest them.
    return !m_fetching && parent.column() <= 0 && qsizetype(n->children.size()) < n->total;
}

void MetadataModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    Node* p = nodeOf(parent);
    const int first = int(p->children.size());
    const int last = int(std::min<qsizetype>(p->total, first + kPage)) - 1;
    m_fetching = true;
    beginInsertRows(parent, first, last);
    const QJsonObject object = p->json.toObject();
    const QStringList keys = object.keys();
    const QJsonArray array = p->json.toArray();
    const auto* items = p->meta ? std::get_if<std::vector<qs::MetaValue>>(&p->meta->value) : nullptr;
    for (int i = first; i <= last; ++i) {
        if (p == m_root.get()) {
            p->children.push_back(topLevelNode(i));
            continue;
        }
        auto node = std::make_unique<Node>();
        node->parent = p;
        node->row = i;
        if (items) {
            node->meta = &(*items)[size_t(i)];
            node->key = QStringLiteral("[%1]").arg(i);
            node->total = metaChildCount(node->meta);
        } else if (p->json.isObject()) {
            node->key = keys.at(i);
            node->json = object.value(node->key);
            node->total = jsonChildCount(node->json);
        } else {
            node->key = QStringLiteral("[%1]").arg(i);
            node->json = array.at(i);
            node->total = jsonChildCount(node->json);
        }
        p->children.push_back(std::move(node));
    }
    endInsertRows();
    m_fetching = false;
}

QVariant MetadataModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node* n = nodeOf(index);
    // CSV: the top-level rows, their values not shortened to 200 characters (a GGUF array's value
    // lists its first 16 items, as in the tooltip).
    if (role == CsvRole && n->metaRow >= 0) {
        const MetaRow m = m_snapshot->metadata[n->metaRow];
        const QString texts[] = {m.key, m.type, m.value, m.source};
        return index.column() < ColumnCount ? texts[index.column()] : QVariant();
    }
    if (role == Qt::DisplayRole || role == Qt::UserRole + 1) {
        if (n->metaRow >= 0) {
            const MetaRow m = m_snapshot->metadata[n->metaRow];
            switch (index.column()) {
            case KeyColumn: return role == Qt::DisplayRole ? shownText(m.key) : m.key;
            case TypeColumn: return m.type;
            case ValueColumn:
                // Long values (vocabularies, nested configs) stay readable in one row.
                return role == Qt::DisplayRole && m.value.size() > 200 ? m.value.left(200) + QChar(0x2026) : m.value;
            case SourceColumn: return m.source;
            default: return {};
            }
        }
        switch (index.column()) {
        case KeyColumn:
            // Array items sort by their index, not as text.
            return role == Qt::UserRole + 1 && n->key.startsWith(QLatin1Char('[')) ? QVariant(n->row)
                                                                                   : QVariant(n->key);
        case TypeColumn: return n->meta ? qtext(std::string(qs::metaTypeName(n->meta->type))) : jsonType(n->json);
        case ValueColumn: {
            const QString v = n->meta ? qtext(n->meta->toDisplayString(16)) : jsonText(n->json);
            return role == Qt::DisplayRole && v.size() > 200 ? v.left(200) + QChar(0x2026) : v;
        }
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == ValueColumn) {
        const QString v = n->metaRow >= 0 ? m_snapshot->metadata[n->metaRow].value
            : n->meta                     ? qtext(n->meta->toDisplayString(16))
                                          : jsonText(n->json);
        QString tip = v.left(4000);
        if (n->total > 0)
            tip += QLatin1Char('\n') + tr("%n item(s): expand the row to browse them", nullptr, int(n->total));
        return tip;
    }
    return {};
}

QVariant MetadataModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == CsvRole) {
        static const char* const names[] = {"key", "type", "value", "source"};
        return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case KeyColumn: return tr("Key");
    case TypeColumn: return tr("Type");
    case ValueColumn: return tr("Value");
    case SourceColumn: return tr("Source");
    default: return {};
    }
}

} // namespace qsw
