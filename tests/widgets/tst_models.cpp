// The browser's models: QAbstractItemModelTester on each (and on the proxies), grouping,
// natural sorting, recursive filtering, and rows that equal what Checkpoint and format
// detection report for the fixtures (the same figures `quantscope-cli inspect --json` prints).
#include "analysis/recipe.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "inspector.h"
#include "qtext.h"
#include "snapshot.h"
#include "sortproxy.h"
#include "tablemodels.h"
#include "testsupport.h"
#include "weighttreemodel.h"
#include "formats/opencheckpoint.h"
#include "formats/verify_util.h"
#include "theme.h"

#include <QAbstractItemModelTester>

#include <algorithm>
#include <functional>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTranslator>
#include <QTreeView>
#include <QtTest>

using namespace qsw;

namespace {

// A checkpoint built in memory: no files, only what the models read.
std::shared_ptr<qs::Checkpoint> handMade()
{
    auto c = std::make_shared<qs::Checkpoint>();
    c->path = "/nowhere/model.safetensors";
    auto addTensor = [&](const std::string& name, const char* type, std::vector<uint64_t> shape, uint64_t bytes) {
        qs::TensorEntry t;
        t.name = c->keepName(name);
        t.typeName = type;
        t.shape = std::move(shape);
        t.nbytes = bytes;
        t.offset = c->tensors.empty() ? 0 : c->tensors.back().offset + c->tensors.back().nbytes;
        c->tensors.push_back(t);
        return c->tensors.size() - 1;
    };
    auto addWeight = [&](const std::string& name, const std::string& format, int bits, std::vector<uint64_t> shape,
                         std::vector<std::pair<std::string, size_t>> members) {
        qs::LogicalWeight w;
        w.name = name;
        w.format = format;
        w.bits = bits;
        w.shape = std::move(shape);
        w.members = std::move(members);
        for (const auto& m : w.members)
            w.storedBytes += c->tensors[m.second].nbytes;
        c->weights.push_back(w);
    };
    for (int layer : {0, 2, 10}) {
        const std::string p = "model.layers." + std::to_string(layer) + ".mlp.down_proj";
        const auto qw = addTensor(p + ".qweight", "I32", {32, 64}, 8192);
        const auto sc = addTensor(p + ".scales", "F16", {2, 64}, 256);
        addWeight(p, "gptq-v1", 4, {64, 256}, {{"qweight", qw}, {"scales", sc}});
        const std::string n = "model.layers." + std::to_string(layer) + ".input_layernorm.weight";
        addWeight(n, "f16", 16, {256}, {{"weight", addTensor(n, "F16", {256}, 512)}});
    }
    addWeight("model.embed_tokens.weight", "bf16", 16, {100, 256},
              {{"weight", addTensor("model.embed_tokens.weight", "BF16", {100, 256}, 51200)}});
    c->weights.back().notes.push_back(qs::Message::verbatim("a note from detection"));
    qs::MetaValue v;
    v.value = std::string("pt");
    c->metadata.push_back({"format", v});
    c->config[QStringLiteral("model_type")] = QStringLiteral("llama");
    c->buildIndex();
    return c;
}

QStringList topLevelNames(const QAbstractItemModel& m, int column = 0)
{
    QStringList names;
    for (int r = 0; r < m.rowCount(); ++r)
        names << m.index(r, column).data(WeightTreeModel::FullNameRole).toString();
    return names;
}

// A copy of a GPTQ fixture whose config says checkpoint_format gptq_v2 (and bits `bits`, when
// given) while the stored zeros are symmetric v1 ones: detection notes it, verify files a
// zero-convention finding. (Its config says sym true: one that says sym false keeps its label,
// tst_detect's gptqAsymmetricConstantZerosKeepTheLabel.)
QString mislabelledGptq(const QTemporaryDir& dir, int bits = 0)
{
    const QDir from(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym")));
    for (const QString& name : from.entryList(QDir::Files)) {
        if (!QFile::copy(from.filePath(name), dir.filePath(name)))
            return {};
        if (!name.endsWith(QLatin1String(".json")))
            continue;
        QFile f(dir.filePath(name));
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        if (!f.open(QIODevice::ReadWrite))
            return {};
        QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        auto mislabel = [bits](QJsonObject q) {
            q[QStringLiteral("checkpoint_format")] = QStringLiteral("gptq_v2");
            if (bits)
                q[QStringLiteral("bits")] = bits;
            return q;
        };
        if (o.contains(QStringLiteral("quantization_config")))
            o[QStringLiteral("quantization_config")] =
                mislabel(o.value(QStringLiteral("quantization_config")).toObject());
        else if (o.contains(QStringLiteral("bits")))
            o = mislabel(o);
        f.resize(0);
        f.write(QJsonDocument(o).toJson());
    }
    return dir.path();
}

// A folder whose safetensors header the reader takes with notes (a leading space, a trailing
// tab, a field safetensors does not define) beside a config.json that is a JSON array.
QString oddSafetensors(const QTemporaryDir& dir)
{
    const QByteArray header = R"( {"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"origin":"hand"}})"
                              "\t";
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i)
        bytes[i] = char((quint64(header.size()) >> (8 * i)) & 0xff);
    bytes += header + QByteArray(8, '\0');
    QFile st(dir.filePath(QStringLiteral("model.safetensors"))), config(dir.filePath(QStringLiteral("config.json")));
    if (!st.open(QIODevice::WriteOnly) || st.write(bytes) != bytes.size() || !config.open(QIODevice::WriteOnly)
        || config.write("[1, 2]") != 6)
        return {};
    return dir.path();
}

} // namespace

class TestModels : public QObject {
    Q_OBJECT
private slots:
    void layerOfNames_data();
    void layerOfNames();
    void weightTreeGroupsByLayer();
    void weightTreeSortsNaturallyAndFilters();
    void tableModels();
    void browserRowsEqualDetection_data();
    void browserRowsEqualDetection();
    void weightsWithNotesAreMarked();
    void metadataIsATree();
    void detectionSpeaksGerman();
    void longNamesShownShortened();
    void manyWeightsLean();
};

void TestModels::layerOfNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("layer");
    QTest::addRow("hf") << "model.layers.12.mlp.up_proj"
                        << "model.layers.12";
    QTest::addRow("gguf") << "blk.3.attn_q.weight"
                          << "blk.3";
    QTest::addRow("vlm") << "model.language_model.layers.0.self_attn.q_proj"
                         << "model.language_model.layers.0";
    QTest::addRow("embed") << "model.embed_tokens.weight"
                           << "";
    QTest::addRow("not a layer number") << "model.layersX.1"
                                        << "";
}

void TestModels::layerOfNames()
{
    QFETCH(QString, name);
    QFETCH(QString, layer);
    QCOMPARE(layerOf(name), layer);
}

void TestModels::weightTreeGroupsByLayer()
{
    const auto ckpt = handMade();
    const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
    WeightTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(snap);
    // Three layers (in first-seen order), then the embedding on its own.
    QCOMPARE(topLevelNames(model),
             (QStringList{"model.layers.0", "model.layers.2", "model.layers.10", "model.embed_tokens.weight"}));
    const QModelIndex layer2 = model.index(1, 0);
    QCOMPARE(model.rowCount(layer2), 2);
    QCOMPARE(model.index(0, WeightTreeModel::NameColumn, layer2).data().toString(), QStringLiteral("mlp.down_proj"));
    QCOMPARE(model.index(0, WeightTreeModel::FormatColumn, layer2).data().toString(), QStringLiteral("gptq-v1"));
    QCOMPARE(model.index(0, WeightTreeModel::ShapeColumn, layer2).data().toString(), QStringLiteral("[64, 256]"));
    QCOMPARE(model.index(0, WeightTreeModel::BitsColumn, layer2).data().toInt(), 4);
    QCOMPARE(model.index(0, WeightTreeModel::BytesColumn, layer2).data(WeightTreeModel::SortRole).toULongLong(),
             8448ull);
    QCOMPARE(model.index(0, WeightTreeModel::BpwColumn, layer2).data(WeightTreeModel::SortRole).toDouble(),
             8448.0 * 8 / (64 * 256));
    // The layer row sums its weights and lists their formats.
    QCOMPARE(model.index(1, WeightTreeModel::BytesColumn).data(WeightTreeModel::SortRole).toULongLong(), 8448ull + 512);
    QCOMPARE(model.index(1, WeightTreeModel::FormatColumn).data().toString(), QStringLiteral("gptq-v1, f16"));
    QCOMPARE(model.rowCount(model.index(3, 0)), 0);
    // The tree says the layer and that these are weights: names drop both (issue 33).
    QCOMPARE(model.index(3, 0).data().toString(), QStringLiteral("model.embed_tokens"));
    QCOMPARE(model.index(3, 0).data(WeightTreeModel::FullNameRole).toString(),
             QStringLiteral("model.embed_tokens.weight"));
    QCOMPARE(model.index(1, 0, model.index(0, 0)).data().toString(), QStringLiteral("input_layernorm"));
    QCOMPARE(model.index(3, 0).data(WeightTreeModel::WeightIndexRole).toInt(), 6);
    QVERIFY(model.index(3, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("a note from detection")));
    for (int w = 0; w < snap->weights.size(); ++w)
        QCOMPARE(model.indexOfWeight(w).data(WeightTreeModel::FullNameRole).toString(), snap->weights[w].name);
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestModels::weightTreeSortsNaturallyAndFilters()
{
    const auto snap = CheckpointSnapshot::fromCheckpoint(*handMade());
    WeightTreeModel model;
    NaturalSortProxy proxy(WeightTreeModel::SortRole, WeightTreeModel::FilterRole);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(snap);
    proxy.sort(WeightTreeModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(topLevelNames(proxy),
             (QStringList{"model.embed_tokens.weight", "model.layers.0", "model.layers.2", "model.layers.10"}));
    proxy.sort(WeightTreeModel::BytesColumn, Qt::DescendingOrder);
    QCOMPARE(topLevelNames(proxy).first(), QStringLiteral("model.embed_tokens.weight"));

    // The filter matches full names inside a layer and keeps the layer row above them.
    proxy.setFilterFixedString(QStringLiteral("layers.10.mlp"));
    QCOMPARE(topLevelNames(proxy), QStringList{"model.layers.10"});
    QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 1);
    // ... and formats.
    proxy.setFilterFixedString(QStringLiteral("GPTQ"));
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setFilterFixedString(QStringLiteral("bf16"));
    QCOMPARE(topLevelNames(proxy), QStringList{"model.embed_tokens.weight"});
    proxy.setFilterFixedString(QString());
    QCOMPARE(proxy.rowCount(), 4);
}

void TestModels::tableModels()
{
    const auto snap = CheckpointSnapshot::fromCheckpoint(*handMade());
    TensorTableModel tensors;
    MetadataModel meta;
    NaturalSortProxy tensorProxy(TensorTableModel::SortRole, Qt::DisplayRole);
    tensorProxy.setSourceModel(&tensors);
    QAbstractItemModelTester t1(&tensors, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&meta, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&tensorProxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    tensors.setSnapshot(snap);
    meta.setSnapshot(snap);
    QCOMPARE(tensors.rowCount(), snap->tensors.size());
    for (int r = 0; r < tensors.rowCount(); ++r) {
        QCOMPARE(tensors.index(r, TensorTableModel::NameColumn).data().toString(), snap->tensors[r].name);
        QCOMPARE(tensors.index(r, TensorTableModel::BytesColumn).data(TensorTableModel::SortRole).toULongLong(),
                 snap->tensors[r].bytes);
        QCOMPARE(tensors.index(r, TensorTableModel::OffsetColumn).data(TensorTableModel::SortRole).toULongLong(),
                 snap->tensors[r].offset);
    }
    // Every member tensor points back at its weight and role.
    const QModelIndex scales = tensors.index(1, TensorTableModel::WeightColumn);
    QCOMPARE(scales.data(TensorTableModel::WeightIndexRole).toInt(), 0);
    QVERIFY(scales.data().toString().contains(QLatin1String("(scales)")));
    tensorProxy.sort(TensorTableModel::BytesColumn, Qt::DescendingOrder);
    QCOMPARE(tensorProxy.index(0, 0).data().toString(), QStringLiteral("model.embed_tokens.weight"));

    QCOMPARE(meta.rowCount(), 2);
    QCOMPARE(meta.index(0, MetadataModel::KeyColumn).data().toString(), QStringLiteral("format"));
    QCOMPARE(meta.index(0, MetadataModel::ValueColumn).data().toString(), QStringLiteral("pt"));
    QCOMPARE(meta.index(1, MetadataModel::SourceColumn).data().toString(), QStringLiteral("config.json"));
    QCOMPARE(meta.index(1, MetadataModel::ValueColumn).data().toString(), QStringLiteral("llama"));
}

void TestModels::browserRowsEqualDetection_data()
{
    QTest::addColumn<QString>("path");
    QTest::addRow("gguf") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
    const QDir dir(qstest::fixture(QStringLiteral("safetensors")));
    for (const QString& sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        QTest::addRow("%s", qPrintable(sub)) << dir.filePath(sub + QStringLiteral("/model.safetensors"));
}

void TestModels::browserRowsEqualDetection()
{
    QFETCH(QString, path);
    const auto ckpt = qs::openCheckpoint(path.toStdString());
    const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
    WeightTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(snap);
    QVERIFY(!ckpt->weights.empty());
    QCOMPARE(snap->weights.size(), qsizetype(ckpt->weights.size()));

    // What the CLI prints for scripts must be what the browser shows.
    const auto cli = qstest::runCli({QStringLiteral("inspect"), path, QStringLiteral("--json")});
    QCOMPARE(cli.exitCode, 0);
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(cli.out, &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    const QJsonArray cliWeights = doc.object().value(QStringLiteral("weights")).toArray();
    QCOMPARE(cliWeights.size(), qsizetype(ckpt->weights.size()));

    for (int i = 0; i < int(ckpt->weights.size()); ++i) {
        const auto& w = ckpt->weights[size_t(i)];
        const QModelIndex idx = model.indexOfWeight(i);
        QVERIFY(idx.isValid());
        auto cell = [&](int column, int role = Qt::DisplayRole) { return idx.siblingAtColumn(column).data(role); };
        QCOMPARE(cell(0, WeightTreeModel::FullNameRole).toString(), QString::fromStdString(w.name));
        QCOMPARE(cell(WeightTreeModel::FormatColumn).toString(), QString::fromStdString(w.format));
        QCOMPARE(cell(WeightTreeModel::BitsColumn, WeightTreeModel::SortRole).toInt(), w.bits);
        QCOMPARE(cell(WeightTreeModel::GroupSizeColumn, WeightTreeModel::SortRole).toLongLong(),
                 qlonglong(w.groupSize));
        QCOMPARE(cell(WeightTreeModel::BytesColumn, WeightTreeModel::SortRole).toULongLong(),
                 qulonglong(w.storedBytes));
        QCOMPARE(cell(WeightTreeModel::BpwColumn, WeightTreeModel::SortRole).toDouble(), w.bitsPerWeight());
        QCOMPARE(cell(WeightTreeModel::ShapeColumn).toString(),
                 shapeText(QVector<uint64_t>(w.shape.begin(), w.shape.end())));

        const QJsonObject j = cliWeights.at(i).toObject();
        QCOMPARE(j.value(QStringLiteral("name")).toString(), cell(0, WeightTreeModel::FullNameRole).toString());
        QCOMPARE(j.value(QStringLiteral("format")).toString(), cell(WeightTreeModel::FormatColumn).toString());
        QCOMPARE(j.value(QStringLiteral("bits")).toInt(),
                 cell(WeightTreeModel::BitsColumn, WeightTreeModel::SortRole).toInt());
    }
}

// A weight with notes from detection carries the warning mark, and so does its layer (when
// collapsed it still says so); weights without notes carry none.
void TestModels::weightsWithNotesAreMarked()
{
    auto ckpt = handMade();
    ckpt->weights[0].notes.push_back(QT_TRANSLATE_NOOP(
        "qs::Message", "group size unknown: act-order (g_idx) not checked")); // model.layers.0.mlp.down_proj
    const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
    WeightTreeModel model;
    model.setTheme(Theme::fromPalette(lightPalette()));
    model.setSnapshot(snap);
    auto mark = [&](const QModelIndex& i) {
        return i.siblingAtColumn(WeightTreeModel::NameColumn).data(Qt::DecorationRole);
    };
    const QModelIndex noted = model.indexOfWeight(0), plain = model.indexOfWeight(1);
    QVERIFY(mark(noted).canConvert<QIcon>() && !mark(noted).value<QIcon>().isNull());
    QVERIFY(!mark(plain).isValid());
    QVERIFY(mark(noted.parent()).isValid()); // layer 0 holds it
    QVERIFY(!mark(model.indexOfWeight(2).parent()).isValid()); // layer 2 has no notes
    QVERIFY(mark(model.indexOfWeight(int(ckpt->weights.size()) - 1)).isValid()); // the embedding's note
    QVERIFY(noted.parent().data(Qt::ToolTipRole).toString().contains(QLatin1String("notes")));
    QVERIFY(
        !model.index(noted.row(), WeightTreeModel::FormatColumn, noted.parent()).data(Qt::DecorationRole).isValid());
}

// Nested JSON opens as a tree, a GGUF array opens a page at a time (a 151k-token vocabulary
// makes no rows until asked), and general.file_type reads as llama.cpp names it.
void TestModels::metadataIsATree()
{
    auto ckpt = handMade();
    qs::MetaValue tokens;
    tokens.type = qs::MetaValue::Type::Array;
    tokens.arrayType = qs::MetaValue::Type::String;
    std::vector<qs::MetaValue> items(151000);
    for (size_t i = 0; i < items.size(); ++i)
        items[i].value = "tok" + std::to_string(i);
    tokens.value = std::move(items);
    ckpt->metadata.push_back({"tokenizer.ggml.tokens", tokens});
    qs::MetaValue fileType;
    fileType.type = qs::MetaValue::Type::U32;
    fileType.value = uint64_t(15);
    ckpt->metadata.push_back({"general.file_type", fileType});
    ckpt->buildIndex();
    ckpt->config[QStringLiteral("quantization_config")] =
        QJsonObject{{QStringLiteral("bits"), 4},
                    {QStringLiteral("group_size"), 128},
                    {QStringLiteral("modules_to_not_convert"), QJsonArray{QStringLiteral("lm_head")}}};
    const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
    MetadataModel meta;
    meta.setSnapshot(snap, ckpt);
    auto row = [&](const QString& key) {
        for (int r = 0; r < meta.rowCount(); ++r)
            if (meta.index(r, MetadataModel::KeyColumn).data().toString() == key)
                return meta.index(r, 0);
        return QModelIndex();
    };
    const QModelIndex ft = row(QStringLiteral("general.file_type"));
    QVERIFY(ft.isValid());
    QCOMPARE(ft.siblingAtColumn(MetadataModel::ValueColumn).data().toString(), QStringLiteral("MOSTLY_Q4_K_M (15)"));
    QVERIFY(!meta.hasChildren(ft));

    const QModelIndex vocab = row(QStringLiteral("tokenizer.ggml.tokens"));
    QVERIFY(meta.hasChildren(vocab));
    QCOMPARE(meta.childTotal(vocab), qsizetype(151000));
    QCOMPARE(meta.rowCount(vocab), 0); // nothing made before it is opened
    QVERIFY(meta.canFetchMore(vocab));
    meta.fetchMore(vocab);
    QCOMPARE(meta.rowCount(vocab), MetadataModel::kPage);
    meta.fetchMore(vocab);
    QCOMPARE(meta.rowCount(vocab), 2 * MetadataModel::kPage);
    const QModelIndex item = meta.index(1234, MetadataModel::KeyColumn, vocab);
    QCOMPARE(item.data().toString(), QStringLiteral("[1234]"));
    QCOMPARE(item.siblingAtColumn(MetadataModel::ValueColumn).data().toString(), QStringLiteral("tok1234"));
    QCOMPARE(item.siblingAtColumn(MetadataModel::TypeColumn).data().toString(), QStringLiteral("string"));
    QCOMPARE(meta.parent(item), vocab);

    const QModelIndex qc = row(QStringLiteral("quantization_config"));
    QVERIFY(qc.isValid());
    QCOMPARE(meta.childTotal(qc), qsizetype(3));
    meta.fetchMore(qc);
    QCOMPARE(meta.rowCount(qc), 3);
    QStringList keys;
    for (int r = 0; r < 3; ++r)
        keys << meta.index(r, MetadataModel::KeyColumn, qc).data().toString();
    QCOMPARE(keys, (QStringList{"bits", "group_size", "modules_to_not_convert"}));
    QCOMPARE(meta.index(1, MetadataModel::ValueColumn, qc).data().toString(), QStringLiteral("128"));
    const QModelIndex modules = meta.index(2, 0, qc);
    meta.fetchMore(modules);
    QCOMPARE(meta.index(0, MetadataModel::ValueColumn, modules).data().toString(), QStringLiteral("lm_head"));

    // The model keeps Qt's rules while pages come in (the tester fetches what it can).
    {
        QAbstractItemModelTester tester(&meta, QAbstractItemModelTester::FailureReportingMode::QtTest);
        meta.fetchMore(vocab);
        QCOMPARE(meta.rowCount(vocab) % MetadataModel::kPage, 0);
    }

    // The filter finds a member inside a config and keeps its parent.
    NaturalSortProxy proxy(Qt::UserRole + 1, Qt::DisplayRole);
    proxy.setSourceModel(&meta);
    proxy.setFilterFixedString(QStringLiteral("group_size"));
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("quantization_config"));
}

// With the German catalogue, what detection and verify say (evidence, notes, findings) reads in
// German in the inspector, the browser's tooltips and the Verify view's text (qtext of the
// finding): every template core wrote has a German entry and no English sentence is left.
void TestModels::detectionSpeaksGerman()
{
    const qstest::GermanScope de;
    QVERIFY2(de.installed(), qPrintable(qstest::germanCatalogue()));
    const QTranslator& translator = de.translator();
    QTemporaryDir dir, dir8, dirOdd;
    const QString mislabelled = mislabelledGptq(dir);
    QVERIFY(!mislabelled.isEmpty());
    const QString odd = oddSafetensors(dirOdd);
    QVERIFY(!odd.isEmpty());
    // llama.cpp's dbrx vocabulary of 2024-05-07 holds a metadata key twice (SOURCES.md).
    const QString duplicateKey =
        qstest::fixture(QStringLiteral("real/llama.cpp/history/ggml-vocab-dbrx.2024-05-07.gguf"));
    const QString wrongBits = mislabelledGptq(dir8, 8);
    QVERIFY(!wrongBits.isEmpty());
    // A message of a template the catalogue covers is German where the German differs.
    int templates = 0, german = 0;
    std::function<void(const qs::Message&, const QString&, const QString&)> check;
    check = [&](const qs::Message& m, const QString& shown, const QString& where) {
        for (const qs::Message& part : m.parts()) // a quoted note is German too
            check(part, shown, where + QLatin1String(" (quoted)"));
        if (std::string_view(m.source()) == "%1")
            return; // verbatim: a config key and value, an error's own text
        ++templates;
        const QString de = translator.translate(qs::kMessageContext, m.source());
        QVERIFY2(!de.isEmpty(), m.source());
        QVERIFY2(shown.contains(qtext(m)), qPrintable(where + QLatin1String(": ") + qtext(m)));
        if (de != QLatin1String(m.source())) {
            ++german;
            QVERIFY2(!shown.contains(qtext(m.text())), qPrintable(where + QLatin1String(": ") + qtext(m.text())));
        }
    };
    int notes = 0, containerNotes = 0;
    QString summaries; // every checkpoint summary, for the sentences checked below
    for (const QString& path :
         {mislabelled, wrongBits, odd, duplicateKey, qstest::fixture(QStringLiteral("safetensors/awq-gemm-w4-g32")),
          qstest::fixture(QStringLiteral("safetensors/bnb-nf4-doublequant")),
          qstest::fixture(QStringLiteral("safetensors/ct-pack-w4a16-g32-asym")),
          qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"))}) {
        const auto ckpt = qs::openCheckpoint(path.toStdString());
        const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
        Inspector inspector;
        inspector.setSnapshot(snap);
        WeightTreeModel tree;
        tree.setSnapshot(snap);
        for (size_t i = 0; i < ckpt->weights.size(); ++i) {
            const qs::LogicalWeight& w = ckpt->weights[i];
            inspector.showWeight(int(i));
            const QString text = inspector.toPlainText();
            for (const qs::Message& e : w.evidence)
                check(e, text, qtext(w.name));
            // Parameter names are German (but for the keys of bitsandbytes' quant_state JSON,
            // which the file names itself); the words among their values too.
            for (const auto& [key, value] : w.params) {
                QVERIFY2(!translator.translate(qs::kMessageContext, key.c_str()).isEmpty()
                             || w.member("quant_state") >= 0,
                         key.c_str());
                QVERIFY2(text.contains(qword(key)) && text.contains(qword(value)),
                         qPrintable(qtext(w.name) + QLatin1String(": ") + qtext(key)));
            }
            const QString tip = tree.indexOfWeight(int(i)).data(Qt::ToolTipRole).toString();
            for (const qs::Message& n : w.notes) {
                check(n, text, qtext(w.name));
                check(n, tip, qtext(w.name) + QLatin1String(" (tooltip)"));
                ++notes;
            }
        }
        // The readers' notes (a duplicate key, an odd header, a config that is no object) stand
        // in the checkpoint summary, each a template the catalogue translates.
        inspector.showWeight(-1);
        const QString summary = inspector.toPlainText();
        summaries += summary;
        for (const qs::Message& n : ckpt->notes) {
            QVERIFY2(std::string_view(n.source()) != "%1", n.text().c_str());
            check(n, summary, QFileInfo(path).fileName() + QLatin1String(" (checkpoint note)"));
            ++containerNotes;
        }
        // The Verify view shows each finding as qtext(message).
        const qs::VerifyReport report = qs::verifyCheckpoint(*ckpt);
        for (const qs::VerifyFinding& f : report.findings)
            check(f.message, qtext(f.message), qtext(f.weight) + QLatin1String(" (verify)"));
        // The Recipe view's summary, line by line as it shows them.
        for (const qs::Message& line : qs::recipeOverview(qs::summarizeRecipe(*ckpt)))
            check(line, qtext(line), QFileInfo(path).fileName() + QLatin1String(" (recipe)"));
    }
    QVERIFY2(notes >= 2, qPrintable(QString::number(notes)));
    QVERIFY2(containerNotes >= 5, qPrintable(QString::number(containerNotes)));
    for (const char* de :
         {"kommt zweimal vor: Eintrag 10 enthält", "llama.cpp lehnt die Datei ab (doppelter Schlüssel)",
          "der Header beginnt mit Leerraum statt mit '{'",
          "der Header ist mit anderem Leerraum als Leerzeichen aufgefüllt",
          "das Tensorfeld 'origin' gehört nicht zu safetensors; ignoriert",
          "config.json: JSON vom Typ array, kein Objekt; ignoriert"})
        QVERIFY2(summaries.contains(QString::fromUtf8(de)), de);
    QVERIFY2(german > templates / 2, qPrintable(QStringLiteral("%1 of %2").arg(german).arg(templates)));
    // The sentences the mislabelled copy must produce, in German.
    const auto ckpt = qs::openCheckpoint(mislabelled.toStdString());
    const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
    const QString notesDe = snap->weights.front().notes.join(QLatin1Char('\n'));
    QVERIFY2(notesDe.contains(QLatin1String("Konfiguration nennt checkpoint_format gptq_v2")), qPrintable(notesDe));
    const qs::VerifyReport report = qs::verifyCheckpoint(*ckpt);
    QVERIFY(std::any_of(report.findings.begin(), report.findings.end(), [](const qs::VerifyFinding& f) {
        return qtext(f.message).startsWith(QLatin1String("checkpoint_format nennt gptq_v2"));
    }));
    // The Inspector's parameters: the zero test's verdict in German.
    Inspector inspector;
    inspector.setSnapshot(snap);
    inspector.showWeight(0);
    QVERIFY2(inspector.toPlainText().contains(QLatin1String("Nullpunkttest (zero_test)")),
             qPrintable(inspector.toPlainText()));
    QVERIFY2(inspector.toPlainText().contains(QLatin1String("v1 (jedes Nullpunktfeld ist 2^(b-1)-1)")),
             qPrintable(inspector.toPlainText()));
    QVERIFY(!inspector.toPlainText().contains(QLatin1String("every zero field")));
    // The config finding quotes its note in German too.
    const qs::VerifyReport bits = qs::verifyCheckpoint(*qs::openCheckpoint(wrongBits.toStdString()));
    const auto config = std::find_if(bits.findings.begin(), bits.findings.end(),
                                     [](const qs::VerifyFinding& f) { return f.check == "config"; });
    QVERIFY(config != bits.findings.end());
    QVERIFY2(qtext(config->message).startsWith(QLatin1String("Konfiguration nennt bits 8")),
             qPrintable(qtext(config->message)));
    QVERIFY2(qtext(config->message).contains(QLatin1String("das gespeicherte Layout")),
             qPrintable(qtext(config->message)));
    // A round trip's first difference, in German.
    qs::LogicalWeight w;
    w.name = "w";
    qs::VerifyReport trip;
    const std::vector<uint8_t> stored{1, 2, 3, 4}, repacked{1, 2, 3, 5}, shorter{1, 2};
    qs::checkRoundTrip(
        {w, trip}, "qweight-roundtrip", stored, repacked,
        QT_TRANSLATE_NOOP("qs::Message",
                          "stored codes differ from their repacking (nonzero padding or sign-extended fields?): %1"));
    qs::checkRoundTrip(
        {w, trip}, "qweight-roundtrip", stored, shorter,
        QT_TRANSLATE_NOOP("qs::Message",
                          "stored codes differ from their repacking (nonzero padding or sign-extended fields?): %1"));
    QCOMPARE(trip.findings.size(), size_t(2));
    QCOMPARE(trip.findings[0].message.text(),
             std::string("stored codes differ from their repacking (nonzero padding or sign-extended fields?): "
                         "word 0 is 0x04030201, repacked 0x05030201"));
    QVERIFY2(qtext(trip.findings[0].message).endsWith(QLatin1String(": Wort 0 ist 0x04030201, neu gepackt 0x05030201")),
             qPrintable(qtext(trip.findings[0].message)));
    QVERIFY2(qtext(trip.findings[1].message).endsWith(QStringLiteral(": Größe 4 Bytes, erwartet 2")),
             qPrintable(qtext(trip.findings[1].message)));
}

// A name of a megabyte (issue 29): each view shows its start and end around its length, so no
// row, tooltip or label lays out a megabyte of text (that froze the GUI for minutes).
void TestModels::longNamesShownShortened()
{
    auto ckpt = handMade();
    const std::string longName(1 << 20, 'x');
    qs::TensorEntry t;
    t.name = ckpt->keepName(longName);
    t.typeName = "F16";
    t.shape = {4};
    t.nbytes = 8;
    ckpt->tensors.push_back(t);
    qs::LogicalWeight w;
    w.name = longName;
    w.format = "f16";
    w.bits = 16;
    w.shape = {4};
    w.members = {{"weight", ckpt->tensors.size() - 1}};
    w.storedBytes = 8;
    ckpt->weights.push_back(w);
    ckpt->buildIndex();
    const auto snap = CheckpointSnapshot::fromCheckpoint(ckpt);
    WeightTreeModel tree;
    TensorTableModel tensors;
    tree.setSnapshot(snap);
    tensors.setSnapshot(snap);
    const int weight = int(ckpt->weights.size()) - 1;
    QCOMPARE(snap->findWeight(QString::fromStdString(longName)), weight);
    const QModelIndex treeRow = tree.indexOfWeight(weight);
    const QModelIndex tensorRow = tensors.index(int(ckpt->tensors.size()) - 1, TensorTableModel::NameColumn);
    for (const QModelIndex& i : {treeRow, tensorRow})
        for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
            const QString shown = i.data(role).toString();
            QVERIFY2(shown.size() < 1000, qPrintable(QString::number(shown.size())));
            QVERIFY(shown.startsWith(QLatin1String("xxxxxxxx")));
            QVERIFY2(shown.contains(QLocale().toString(1 << 20)) || shown.contains(QString::number(1 << 20)),
                     qPrintable(shown));
        }
    // What identifies the row stays whole: the full name for selection and the sort.
    QCOMPARE(treeRow.data(WeightTreeModel::FullNameRole).toString().size(), 1 << 20);
    QCOMPARE(tensorRow.data(TensorTableModel::SortRole).toString().size(), 1 << 20);
    Inspector inspector;
    inspector.setSnapshot(snap);
    inspector.showWeight(weight);
    QVERIFY2(inspector.toPlainText().size() < 4000, qPrintable(QString::number(inspector.toPlainText().size())));
}

// 200,000 weights, each a layer of its own (a file of tiny tensors): the snapshot keeps no row of
// QStrings per tensor and weight (made when shown, about 1.5 KiB each before), the browser's
// groups are made with it, and the views do not expand or map every row. The bound is on the
// peak RSS the snapshot and the shown views add; nothing is timed.
void TestModels::manyWeightsLean()
{
    if (qstest::kAsan)
        QSKIP("peak RSS is the sanitizer's here");
    constexpr int kWeights = 200000;
    auto ckpt = std::make_shared<qs::Checkpoint>();
    ckpt->path = "/nowhere/many.gguf";
    ckpt->tensors.resize(kWeights);
    ckpt->weights.resize(kWeights);
    for (int i = 0; i < kWeights; ++i) {
        qs::TensorEntry& t = ckpt->tensors[size_t(i)];
        t.name = ckpt->keepName("blk." + std::to_string(i) + ".ffn_down.weight");
        t.typeName = "F32";
        t.shape = {8};
        t.offset = uint64_t(i) * 32;
        t.nbytes = 32;
        qs::LogicalWeight& w = ckpt->weights[size_t(i)];
        w.name = t.name;
        w.format = "f32";
        w.bits = 32;
        w.shape = {8};
        w.members = {{"weight", size_t(i)}};
        w.storedBytes = 32;
    }
    ckpt->buildIndex();
    qstest::resetPeakRss();
    const long base = qstest::statusKiB("VmHWM");
    {
        const auto snap = CheckpointSnapshot::fromCheckpoint(std::shared_ptr<const qs::Checkpoint>(ckpt));
        QCOMPARE(snap->weights.size(), kWeights);
        QCOMPARE(snap->groups.groups.size(), size_t(kWeights));
        WeightTreeModel tree;
        TensorTableModel tensors;
        NaturalSortProxy treeProxy(WeightTreeModel::SortRole, WeightTreeModel::FilterRole),
            tensorProxy(TensorTableModel::SortRole, Qt::DisplayRole);
        treeProxy.setSourceModel(&tree);
        tensorProxy.setSourceModel(&tensors);
        QTreeView treeView, tensorView;
        treeView.setModel(&treeProxy);
        tensorView.setModel(&tensorProxy);
        for (QTreeView* v : {&treeView, &tensorView}) {
            v->setSortingEnabled(true);
            v->sortByColumn(-1, Qt::AscendingOrder);
            v->resize(800, 600);
            v->show();
        }
        tree.setSnapshot(snap);
        tensors.setSnapshot(snap);
        QVERIFY(!expandLayers(&treeView));
        treeView.resizeColumnToContents(WeightTreeModel::NameColumn);
        tensorView.resizeColumnToContents(TensorTableModel::NameColumn);
        QCoreApplication::processEvents();
        QCOMPARE(treeProxy.rowCount(), kWeights);
        QCOMPARE(tensorProxy.rowCount(), kWeights);
        QCOMPARE(treeView.indexAt(QPoint(5, 5)).data(WeightTreeModel::FullNameRole).toString(),
                 QStringLiteral("blk.0"));
        QCOMPARE(snap->findWeight(QStringLiteral("blk.123456.ffn_down.weight")), 123456);
    }
    const long growth = qstest::statusKiB("VmHWM") - base;
    qInfo("peak RSS grew by %ld KiB for %d weights", growth, kWeights);
    QCOMPARE_LT(growth, 100 * 1024L); // measured 58 MiB; 1.5 KiB a weight (300 MiB) in rows alone before
}

QTEST_MAIN(TestModels)
#include "tst_models.moc"
