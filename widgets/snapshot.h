#pragma once
// An immutable, display-ready copy of what a Checkpoint and format detection report.
// Built off the GUI thread; the models only adapt it (hotspot's value-type results).
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include <cstdint>
#include <memory>

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
    QString name;       // full module prefix or GGUF tensor name
    QString layer;      // "model.layers.3", "blk.0", or empty outside any layer
    QString format;     // stable format id
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
    QString type;       // dtype or ggml type name
    QVector<uint64_t> shape;
    int file = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    bool known = true;
    QString note;
    int weight = -1;    // index into CheckpointSnapshot::weights, -1 when no weight uses it
    QString role;       // its role in that weight
};

struct MetaRow {
    QString key;
    QString type;
    QString value;
    QString source;     // "gguf", "safetensors", "config.json", ...
    QJsonValue json;    // a config's value (objects and arrays open as a tree)
    int metaIndex = -1; // a container value: its index in Checkpoint::metadata (arrays open lazily)
};

struct CheckpointSnapshot {
    QString path;
    QString container;  // "gguf" or "safetensors"
    int ggufVersion = 0;
    QStringList files;
    uint64_t mappedBytes = 0;   // every mapped file's size
    uint64_t diskBytes = 0;     // mapped files plus the configs beside them
    QVector<WeightRow> weights;
    QVector<TensorRow> tensors;
    QVector<MetaRow> metadata;
    QStringList notes;          // container-level warnings
    QString openedAs;           // a folder: what it opened as (its index, model.safetensors, a shard set)
    QStringList leftOut;        // a folder: its checkpoint files that were not read

    static std::shared_ptr<const CheckpointSnapshot> fromCheckpoint(const qs::Checkpoint& ckpt);
    int findWeight(const QString& nameOrMember) const; // -1 when absent
};

// "model.layers.12.mlp.up_proj" -> "model.layers.12"; "blk.3.attn_q.weight" -> "blk.3"; else "".
QString layerOf(const QString& name);
// "[4096, 11008]"
QString shapeText(const QVector<uint64_t>& shape);
// A JSON value as one line (objects and arrays compact) and its type ("object", "number", ...).
QString jsonText(const QJsonValue& v);
QString jsonType(const QJsonValue& v);

} // namespace qsw
