#pragma once
// A display-ready view of what a Checkpoint and format detection report. Built off the GUI
// thread; the models only adapt it (hotspot's value-type results).
//
// The rows (weights, tensors, metadata) are made when asked for, from the checkpoint the
// snapshot holds: a copy of every row as QStrings cost about 1.5 KiB a tensor (gigabytes, and
// minutes, for a file of a million tiny tensors). What the browser needs for every row at once
// (the layer groups, which weight each tensor belongs to, the totals, the name index) is made
// once, in fromCheckpoint, off the GUI thread.
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include "base/stringindex.h"

#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace qs {
class Checkpoint;
}

namespace qsw {

struct MemberRow {
    QString role;
    QString tensor;
    QString dtype;
    QString shape;
    uint64_t bytes = 0;
    int tensorIndex = -1;
};

struct WeightRow {
    QString name; // full module prefix or GGUF tensor name
    QString layer; // "model.layers.3", "blk.0", or empty outside any layer
    QString format; // stable format id
    QVector<uint64_t> shape; // logical, [out, in] (leading batch dims kept)
    int bits = 0;
    int64_t groupSize = 0;
    bool symmetric = true;
    bool descAct = false;
    bool actOrder = false;
    double bitsPerWeight = 0;
    uint64_t storedBytes = 0;
    uint64_t elements = 0;
    QVector<MemberRow> members;
    QVector<QPair<QString, QString>> params;
    QStringList evidence;
    QStringList notes;
};

struct TensorRow {
    QString name;
    QString type; // dtype or ggml type name
    QVector<uint64_t> shape;
    int file = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    bool known = true;
    QString note;
    int weight = -1; // index into CheckpointSnapshot::weights, -1 when no weight uses it
    QString role; // its role in that weight
};

struct MetaRow {
    QString key;
    QString type;
    QString value;
    QString source; // "gguf", "safetensors", "config.json", ...
    QJsonValue json; // a config's value (objects and arrays open as a tree)
    int metaIndex = -1; // a container value: its index in Checkpoint::metadata (arrays open lazily)
};

struct CheckpointSnapshot;

// Rows made on demand: row i is made each time it is asked for (by value), so a caller that
// reads several fields of one row keeps it (`const WeightRow w = snapshot->weights[i]`).
template <class Row>
class RowList {
public:
    using Make = Row (*)(const CheckpointSnapshot&, qsizetype);

    qsizetype size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    Row operator[](qsizetype i) const { return m_make(*m_owner, i); }
    Row at(qsizetype i) const { return m_make(*m_owner, i); }
    Row front() const { return (*this)[0]; }
    Row back() const { return (*this)[m_size - 1]; }

    class const_iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Row;
        using difference_type = qsizetype;
        using pointer = void;
        using reference = Row;
        const_iterator(const RowList* list, qsizetype i)
            : m_list(list)
            , m_i(i)
        {
        }
        Row operator*() const { return (*m_list)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator==(const const_iterator& o) const { return m_i == o.m_i; }
        bool operator!=(const const_iterator& o) const { return m_i != o.m_i; }

    private:
        const RowList* m_list;
        qsizetype m_i;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

private:
    friend struct CheckpointSnapshot;
    void set(const CheckpointSnapshot* owner, qsizetype size, Make make)
    {
        m_owner = owner;
        m_size = size;
        m_make = make;
    }
    const CheckpointSnapshot* m_owner = nullptr;
    qsizetype m_size = 0;
    Make m_make = nullptr;
};

// The tensor browser's groups, made off the GUI thread: each layer prefix (model.layers.3,
// blk.0) with the weights in it, in first-seen order; a weight outside any layer is a group of
// its own without a name.
struct WeightGroup {
    int first = 0; // its weights are groupWeights[first, first + count)
    int count = 0;
    int nameLength = 0; // the layer's name: the first weight's name, this long; 0: none
    uint64_t bytes = 0;
    uint64_t elements = 0;
    int formats = 0; // index into WeightGroups::formatLists
    int withNotes = 0; // weights with notes from detection
};
struct WeightGroups {
    std::vector<WeightGroup> groups;
    std::vector<int> groupWeights; // the weights, group by group
    std::vector<int> groupOf, rowInGroup; // per weight
    QStringList formatLists; // "gptq-v1, f16": each distinct list once
};

// Per format: how many weights, how many bytes (the Inspector's summary).
struct FormatTally {
    QString format;
    int weights = 0;
    uint64_t bytes = 0;
};

struct CheckpointSnapshot {
    QString path;
    QString container; // "gguf" or "safetensors"
    int ggufVersion = 0;
    QStringList files;
    uint64_t mappedBytes = 0; // every mapped file's size
    uint64_t diskBytes = 0; // mapped files plus the configs beside them
    RowList<WeightRow> weights;
    RowList<TensorRow> tensors;
    RowList<MetaRow> metadata; // the container's records, then the configs' keys
    QStringList notes; // container-level warnings
    QString openedAs; // a folder: what it opened as (its index, model.safetensors, a shard set)
    QStringList leftOut; // a folder: its checkpoint files that were not read

    // What the rows are made from.
    std::shared_ptr<const qs::Checkpoint> checkpoint;
    // Made once: the browser's groups, each tensor's weight (the first that lists it) and
    // role there, the formats' tallies, every logical weight's elements and every tensor's
    // bytes summed (the Budget view's figures), and each weight's layer prefix length.
    WeightGroups groups;
    std::vector<int> tensorWeight; // -1: no weight
    std::vector<int> tensorMember; // index into that weight's members
    std::vector<int> layerLength; // per weight: 0 outside any layer
    QVector<FormatTally> formats;
    uint64_t parameters = 0; // every logical weight's elements plus every tensor outside one
    uint64_t storedBytes = 0; // every tensor's bytes

    CheckpointSnapshot() = default;
    CheckpointSnapshot(const CheckpointSnapshot&) = delete;
    CheckpointSnapshot& operator=(const CheckpointSnapshot&) = delete;

    // Holds `ckpt` (the rows are read from it as long as the snapshot lives).
    static std::shared_ptr<const CheckpointSnapshot> fromCheckpoint(std::shared_ptr<const qs::Checkpoint> ckpt);
    // The same over a copy of `ckpt` (the copy shares its mapped files).
    static std::shared_ptr<const CheckpointSnapshot> fromCheckpoint(const qs::Checkpoint& ckpt);
    int findWeight(const QString& nameOrMember) const; // -1 when absent

    // One field of a row without making the row.
    QString weightName(int weight) const;
    QString tensorName(int tensor) const;

private:
    qs::StringIndex m_weightNames; // over checkpoint->weights' names
};

// "model.layers.12.mlp.up_proj" -> "model.layers.12"; "blk.3.attn_q.weight" -> "blk.3"; else "".
QString layerOf(const QString& name);
// "[4096, 11008]"
QString shapeText(const QVector<uint64_t>& shape);
// A JSON value as one line (objects and arrays compact) and its type ("object", "number", ...).
QString jsonText(const QJsonValue& v);
QString jsonType(const QJsonValue& v);
// A name as a view shows it: whole up to `max` characters, else its start and end around an
// ellipsis with its length (a megabyte name laid out as text froze the GUI for minutes).
QString shownText(const QString& text, int max = 400);
// The longest message a label shows whole (a core message can quote a name of any length).
constexpr int kMaxShownMessage = 4000;

} // namespace qsw
