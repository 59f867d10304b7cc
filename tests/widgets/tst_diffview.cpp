// The diff view: its list holds core's diffCheckpoints figures in core's order (also after a
// new tolerance), one-sided weights and shape mismatches get their status, the heatmap holds
// core's diffMap cell by cell, a checkpoint against itself is all zeros, the browser's
// selection selects the match in B, a heatmap click selects the element, the comparison can
// be cancelled, the view is not blank, numbers follow the locale (decimal comma in German),
// core's warnings (GPTQ zero conventions mixed) are listed in English and German, and a
// checkpoint dropped on the view opens as B.
#include "analysis/diff.h"
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "jobrunner.h"
#include "numbers.h"
#include "theme.h"
#include "base/half.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/diffview.h"
#include "weighttreemodel.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QListWidget>
#include <QMimeData>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTabWidget>
#include <QtTest>

#include <optional>

#include <cmath>

using namespace qsw;

namespace {

constexpr int kJobTimeoutMs = 20000;

struct Tensor {
    std::string name;
    std::vector<uint64_t> shape;
    std::vector<float> values;
};

Tensor makeTensor(const std::string& name, uint64_t rows, uint64_t cols, uint32_t seed, float scale = 0.05f)
{
    Tensor t{name, {rows, cols}, std::vector<float>(size_t(rows * cols))};
    uint32_t state = seed;
    for (float& v : t.values) {
        state = state * 1664525u + 1013904223u;
        v = float(int(state >> 8) - (1 << 23)) / float(1 << 23) * scale;
    }
    return t;
}

std::string write(const QTemporaryDir& dir, const QString& file, const std::vector<Tensor>& tensors)
{
    std::vector<qs::SafetensorsTensor> out;
    for (const Tensor& t : tensors)
        out.push_back({t.name,
                       qs::DType::F32,
                       t.shape,
                       {reinterpret_cast<const uint8_t*>(t.values.data()), t.values.size() * sizeof(float)}});
    const std::string path = dir.filePath(file).toStdString();
    qs::writeSafetensors(path, out);
    return path;
}

// A and B: a weight that differs (big enough to be decimated), one that is equal, one only
// in A, one only in B, one whose shapes disagree.
struct Pair {
    QTemporaryDir dir;
    std::string a, b;
    Pair()
    {
        Tensor changed = makeTensor("model.layers.0.mlp.down_proj.weight", 600, 1100, 1);
        Tensor changedB = changed;
        for (size_t i = 0; i < changedB.values.size(); i += 7)
            changedB.values[i] += 0.001f * float(i % 13);
        const Tensor same = makeTensor("model.layers.0.mlp.up_proj.weight", 64, 96, 2);
        Tensor small = makeTensor("model.layers.0.self_attn.q_proj.weight", 48, 64, 3);
        Tensor smallB = small;
        smallB.values[5] += 0.5f; // worst relative error
        const Tensor onlyA = makeTensor("model.layers.0.self_attn.k_proj.weight", 16, 64, 4);
        const Tensor onlyB = makeTensor("model.layers.0.self_attn.v_proj.weight", 16, 64, 5);
        const Tensor shapeA = makeTensor("model.layers.0.self_attn.o_proj.weight", 32, 64, 6);
        const Tensor shapeB = makeTensor("model.layers.0.self_attn.o_proj.weight", 64, 32, 6);
        a = write(dir, QStringLiteral("a.safetensors"), {changed, same, small, onlyA, shapeA});
        b = write(dir, QStringLiteral("b.safetensors"), {changedB, same, smallB, onlyB, shapeB});
    }
};

struct Fixture {
    ViewContext context;
    DiffView view{&context};
    std::shared_ptr<const qs::Checkpoint> a;

    explicit Fixture(const std::string& pathA)
    {
        // Without a main window, a weight request selects the weight directly.
        QObject::connect(&context, &ViewContext::weightRequested, &context, [this](int w) { context.setWeight(w); });
        a = qs::openCheckpoint(pathA);
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        view.resize(1100, 900);
        view.show();
    }
    bool open(const std::string& pathB)
    {
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        view.openComparison(QString::fromStdString(pathB));
        return context.jobs()->waitForIdle(kJobTimeoutMs);
    }
    int weight(const std::string& name) const
    {
        const qs::LogicalWeight* w = a->findWeight(name);
        return w ? int(w - a->weights.data()) : -1;
    }
};

// The symmetric 4-bit GPTQ fixture with every other byte of its first weight's qzeros
// rewritten from 0x77 (v1: z - 1 = 7) to 0x88 (v2: z = 8): the conventions mixed within a
// weight, which detection notes and diffCheckpoints reports as a warning.
QString mixedZeroConventions(const QTemporaryDir& dir, std::string* weight)
{
    const QString src = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
    const QString dst = dir.filePath(QStringLiteral("mixed"));
    if (!QDir().mkpath(dst))
        return {};
    for (const QFileInfo& f : QDir(src).entryInfoList(QDir::Files))
        if (!QFile::copy(f.filePath(), dst + QLatin1Char('/') + f.fileName()))
            return {};
    const auto c = qs::openCheckpoint((dst + QStringLiteral("/model.safetensors")).toStdString());
    const qs::TensorEntry* zeros = nullptr;
    for (const qs::TensorEntry& t : c->tensors)
        if (!zeros && t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".qzeros") == 0)
            zeros = &t;
    if (!zeros)
        return {};
    *weight = zeros->name.substr(0, zeros->name.size() - 7);
    QByteArray bytes(qsizetype(zeros->nbytes), '\x77');
    for (qsizetype i = 0; i < bytes.size(); i += 2)
        bytes[i] = '\x88';
    QFile file(dst + QStringLiteral("/model.safetensors"));
    if (!file.open(QIODevice::ReadWrite) || !file.seek(qint64(zeros->offset)) || file.write(bytes) != bytes.size())
        return {};
    return dst;
}

QString display(const QAbstractItemModel* m, int row, int column)
{
    return m->index(row, column).data().toString();
}

} // namespace

class TestDiffView : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        // A plot painted at zero size (hidden, squeezed) warns so; none may.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("^QPainter::begin")));
    }

    void listEqualsCoreOrderAndFigures()
    {
        Pair p;
        Fixture f(p.a);
        QAbstractItemModelTester tester(f.view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(f.open(p.b));
        QVERIFY2(f.view.model()->result(), qPrintable(f.view.statusText()));
        const auto b = qs::openCheckpoint(p.b);
        for (double tolerance : {0.0, 0.01, 1.0}) {
            f.view.setTolerance(tolerance);
            qs::DiffOptions opt;
            opt.tolerance = tolerance;
            const qs::DiffResult want = qs::diffCheckpoints(*f.a, *b, opt);
            const DiffListModel* m = f.view.model();
            QCOMPARE(m->rowCount(),
                     int(want.weights.size() + want.shapeMismatches.size() + want.skipped.size() + want.onlyInA.size()
                         + want.onlyInB.size()));
            // The status line's "over the tolerance" counts compared pairs only: the o_proj shape
            // mismatch was counted there too ("0 pairs compared: ... 1 over the tolerance").
            QCOMPARE(m->overCount(),
                     int(std::count_if(want.weights.begin(), want.weights.end(),
                                       [](const qs::WeightDiff& d) { return !d.pass; })));
            QVERIFY(!want.shapeMismatches.empty());
            for (size_t i = 0; i < want.weights.size(); ++i) {
                const DiffListModel::Row* r = m->rowAt(int(i));
                QVERIFY(r && r->diff);
                QCOMPARE(r->nameA, want.weights[i].nameA);
                QCOMPARE(r->nameB, want.weights[i].nameB);
                QCOMPARE(r->diff->rmse, want.weights[i].rmse);
                QCOMPARE(r->diff->maxAbs, want.weights[i].maxAbs);
                QCOMPARE(r->over, !want.weights[i].pass);
                QCOMPARE(display(m, int(i), DiffListModel::Rmse), QLocale().toString(want.weights[i].rmse, 'g', 4));
            }
            // Worst first: the pair with one large difference leads once it is over the tolerance.
            QCOMPARE(m->rowAt(0)->nameA,
                     std::string(tolerance < 0.5 ? "model.layers.0.self_attn.q_proj.weight" : want.weights[0].nameA));
        }
        const DiffListModel* m = f.view.model();
        const int n = m->rowCount();
        QStringList statuses;
        for (int i = 0; i < n; ++i)
            statuses << display(m, i, DiffListModel::Status);
        QVERIFY2(statuses.contains(QStringLiteral("only in A")), qPrintable(statuses.join(QLatin1Char('|'))));
        QVERIFY(statuses.contains(QStringLiteral("only in B")));
        QVERIFY(statuses.contains(QStringLiteral("identical")));
        QVERIFY(statuses.contains(QStringLiteral("shape mismatch [32, 64] vs [64, 32]")));
        QCOMPARE(m->rowAt(m->rowOfA("model.layers.0.self_attn.k_proj.weight"))->kind, DiffListModel::Kind::OnlyInA);
        QCOMPARE(m->rowAt(m->rowOfB("model.layers.0.self_attn.v_proj.weight"))->kind, DiffListModel::Kind::OnlyInB);
    }

    // The status counts in the plural form their number takes: one pair and one shape mismatch
    // read "1 Paar verglichen", "1 mit verschiedener Form" (it read "1 Paare verglichen", and
    // "1 pairs compared" in English, issue 33).
    void statusCountsTakeTheirPlural()
    {
        QTemporaryDir dir;
        const Tensor one = makeTensor("model.layers.0.mlp.up_proj.weight", 16, 32, 1);
        const Tensor shapeA = makeTensor("model.layers.0.self_attn.o_proj.weight", 8, 32, 2);
        const Tensor shapeB = makeTensor("model.layers.0.self_attn.o_proj.weight", 32, 8, 2);
        const std::string a = write(dir, QStringLiteral("a.safetensors"), {one, shapeA});
        const std::string b = write(dir, QStringLiteral("b.safetensors"), {one, shapeB});
        const qstest::GermanScope german;
        QVERIFY2(german.installed(), qPrintable(qstest::germanCatalogue()));
        Fixture f(a);
        QVERIFY(f.open(b));
        QVERIFY2(f.view.model()->result(), qPrintable(f.view.statusText()));
        QCOMPARE(f.view.model()->result()->weights.size(), size_t(1));
        QCOMPARE(f.view.model()->result()->shapeMismatches.size(), size_t(1));
        QVERIFY2(f.view.statusText().startsWith(QStringLiteral("1 Paar verglichen: 1 identisch")),
                 qPrintable(f.view.statusText()));
        QVERIFY2(f.view.statusText().contains(QStringLiteral(" · 1 mit verschiedener Form · ")),
                 qPrintable(f.view.statusText()));
    }

    // B under a long path: the bar names B's file (the path in the tooltip) and the view stays
    // narrow enough for a 1280 px window (the whole path widened it past, issue 33).
    void longPathOfBKeepsTheViewNarrow()
    {
        QTemporaryDir dir;
        const QString deep =
            dir.filePath(QString(120, QLatin1Char('d')) + QLatin1Char('/') + QString(120, QLatin1Char('e')));
        QVERIFY(QDir().mkpath(deep));
        Pair p;
        QVERIFY(QFile::copy(QString::fromStdString(p.b), deep + QStringLiteral("/b.safetensors")));
        Fixture f(p.a);
        QVERIFY(f.open((deep + QStringLiteral("/b.safetensors")).toStdString()));
        QVERIFY2(f.view.model()->result(), qPrintable(f.view.statusText()));
        QVERIFY2(f.view.minimumSizeHint().width() < 1000,
                 qPrintable(QString::number(f.view.minimumSizeHint().width())));
    }

    void heatmapEqualsDiffMap()
    {
        Pair p;
        Fixture f(p.a);
        QVERIFY(f.open(p.b));
        const int w = f.weight("model.layers.0.mlp.down_proj.weight");
        QVERIFY(w >= 0);
        f.context.setWeight(w);
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.map(), qPrintable(f.view.statusText()));
        const auto b = qs::openCheckpoint(p.b);
        const qs::WeightMatch match = qs::matchWeights(*f.a, *b, "model.layers.0.mlp.down_proj.weight");
        QCOMPARE(match.pairs.size(), size_t(1));
        const qs::DiffMap want = qs::diffMap(*f.a, *b, match.pairs[0], DiffView::kMapRows, DiffView::kMapCols, {});
        QVERIFY(want.rowsPerCell > 1 && want.colsPerCell > 1); // decimated
        QVERIFY(want.maxAbs > 0);
        QCPColorMapData* d = f.view.colorMap()->data();
        QCOMPARE(uint64_t(d->keySize()), want.cellCols);
        QCOMPARE(uint64_t(d->valueSize()), want.cellRows);
        for (uint64_t i = 0; i < want.cellRows; ++i)
            for (uint64_t j = 0; j < want.cellCols; ++j)
                QCOMPARE(d->cell(int(j), int(i)), double(want.cells[size_t(i * want.cellCols + j)]));

        // A click selects the element under the cursor.
        f.view.plot()->replot();
        QCPAxis* x = f.view.plot()->xAxis;
        QCPAxis* y = f.view.plot()->yAxis;
        const QPointF pixel(x->coordToPixel(700), y->coordToPixel(300));
        const ElementRef e = f.view.elementAt(pixel);
        QCOMPARE(e.weight, w);
        QVERIFY(std::abs(e.row - 300) <= 2 && std::abs(e.col - 700) <= 2);
        QTest::mouseClick(f.view.plot(), Qt::LeftButton, {}, pixel.toPoint());
        QCOMPARE(f.context.selected(), e);
    }

    // In a view the size a 1280 x 720 window leaves it, the heatmap's cells are readable: at
    // least kMapMinHeight tall (they were some 90 px, issue 33).
    void heatmapHasReadableHeight()
    {
        Pair p;
        Fixture f(p.a);
        f.view.resize(1000, 560);
        QVERIFY(f.open(p.b));
        f.context.setWeight(f.weight("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.map(), qPrintable(f.view.statusText()));
        f.view.plot()->replot();
        QVERIFY2(f.view.plot()->axisRect()->height() >= DiffView::kMapMinHeight,
                 qPrintable(QString::number(f.view.plot()->axisRect()->height())));
    }

    // By default a quantized A against its float B is judged as quantscope-cli diff judges it,
    // by one code step: the 4-bit GPTQ weight against its float reference is within it (at the old
    // default 0 every quantized-vs-float pair was painted "over tolerance", issue 33); tolerance 0
    // set in the box marks it over, as `diff --tolerance 0` fails it.
    void quantizedAgainstFloatWithinByDefault()
    {
        const QString dir = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        Fixture f((dir + QStringLiteral("/model.safetensors")).toStdString());
        QVERIFY(f.open((dir + QStringLiteral("/ref.safetensors")).toStdString()));
        QVERIFY2(f.view.model()->result(), qPrintable(f.view.statusText()));
        QCOMPARE(f.view.model()->rowCount(), 1);
        QCOMPARE(f.view.model()->overCount(), 0);
        const qs::WeightDiff& d = f.view.model()->result()->weights.at(0);
        QVERIFY(d.maxAbs > 0 && d.pass);
        f.view.setTolerance(0);
        QCOMPARE(f.view.model()->overCount(), 1);
        f.view.setTolerance(DiffView::kAutomaticTolerance);
        QCOMPARE(f.view.model()->overCount(), 0);
    }

    // A Diff export with no B has no figure: it fails with a message and writes nothing (it
    // wrote the empty view, issue 33).
    void exportWithoutBFails()
    {
        Pair p;
        Fixture f(p.a);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("diff.png"));
        QString error;
        QVERIFY(!exportView(&f.view, path, &error));
        QVERIFY2(error.contains(QStringLiteral("compares nothing")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(f.open(p.b));
        f.context.setWeight(f.weight("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(exportView(&f.view, path, &error), qPrintable(error));
        QVERIFY(QFileInfo::exists(path));
        // The figure is the heatmap at the matrix's aspect (600 x 1100), not the view's shape.
        QVERIFY2(f.view.map(), qPrintable(f.view.statusText()));
        f.view.plot()->replot();
        const QRect cells = f.view.plot()->axisRect()->rect();
        const QSize size = f.view.exportSize();
        QCOMPARE(size.width(), f.view.plot()->width());
        QVERIFY2(std::abs(size.height() - (f.view.plot()->height() - cells.height()) - cells.width() * 600 / 1100) <= 1,
                 qPrintable(QStringLiteral("%1 x %2").arg(size.width()).arg(size.height())));
    }

    // Hovering the heatmap tells the element, both values and their difference, as the
    // Scales heatmap tells its cell.
    void hoverShowsBothValues()
    {
        Pair p;
        Fixture f(p.a);
        QVERIFY(f.open(p.b));
        const int w = f.weight("model.layers.0.mlp.down_proj.weight");
        f.context.setWeight(w);
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.map(), qPrintable(f.view.statusText()));
        f.view.plot()->replot();
        const QPointF pixel(f.view.plot()->xAxis->coordToPixel(707), f.view.plot()->yAxis->coordToPixel(301));
        const ElementRef e = f.view.elementAt(pixel);
        QVERIFY(e.isValid() && e.col >= 0);
        const Tensor a = makeTensor("model.layers.0.mlp.down_proj.weight", 600, 1100, 1);
        const size_t i = size_t(e.row * 1100 + e.col);
        const float va = a.values[i], vb = i % 7 == 0 ? va + 0.001f * float(i % 13) : va;
        const QString text = f.view.hoverText(pixel);
        QVERIFY2(text.contains(QStringLiteral("row %1, col %2").arg(e.row).arg(e.col)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("a ") + localNumber(va)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("b ") + localNumber(vb)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("|a − b| ") + localNumber(std::fabs(double(va) - double(vb)))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("cell (")), qPrintable(text)); // decimated: the cell's max too
        QVERIFY(f.view.hoverText(QPointF(-5, -5)).isEmpty());
    }

    // A theme switched while the view is hidden is drawn when it shows again (the plot kept
    // its old picture), and a new A without B leaves no frame with the old weight's axes.
    // Behind another tab, a new A lists nothing yet and the previous A is let go; the list is
    // laid out when the tab comes to the front (a million rows took seconds and 67 MiB at
    // every open, for a view nobody was looking at).
    void newAWaitsForTheFront()
    {
        ViewContext context;
        QTabWidget tabs;
        auto* other = new QWidget;
        tabs.addTab(other, QStringLiteral("other"));
        auto* view = new DiffView(&context);
        tabs.addTab(view, QStringLiteral("diff"));
        tabs.resize(1200, 800);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        tabs.setCurrentWidget(view);
        const auto open = [](const char* mix) {
            return qs::openCheckpoint(
                qstest::fixture(
                    QStringLiteral("real/generated-llama-quantize/stories260K-mix-%1.gguf").arg(QLatin1String(mix)))
                    .toStdString());
        };
        auto a = open("Q4_K_M");
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        QVERIFY(view->listA()->model()->rowCount() > 0);

        tabs.setCurrentWidget(other);
        const std::weak_ptr<const qs::Checkpoint> old = a;
        a.reset();
        const auto b = open("Q5_K_M");
        context.setCheckpoint(b, CheckpointSnapshot::fromCheckpoint(*b));
        QCOMPARE(view->listA()->model()->rowCount(), 0);
        QVERIFY2(old.expired(), "the view behind the tab still holds the previous checkpoint");

        tabs.setCurrentWidget(view);
        QVERIFY(view->listA()->model()->rowCount() > 0);
    }

    void hiddenChangesAreDrawn()
    {
        Pair p;
        Fixture f(p.a);
        f.context.setTheme(Theme::fromPalette(lightPalette()));
        QVERIFY(f.open(p.b));
        f.context.setWeight(f.weight("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.view.map());
        QCoreApplication::processEvents();
        f.view.hide();
        const Theme dark = Theme::fromPalette(darkPalette());
        f.context.setTheme(dark);
        f.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.view));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        const QImage image = f.view.plot()->grab().toImage();
        QCOMPARE(QColor(image.pixel(2, 2)), dark.background);
        // A new A: B went with the old one, so there is no map and no plot.
        f.view.hide();
        const auto other = qs::openCheckpoint(p.b);
        f.context.setCheckpoint(other, CheckpointSnapshot::fromCheckpoint(*other));
        f.context.setWeight(0);
        f.view.show();
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(!f.view.map());
        QVERIFY(!f.view.plot()->isVisibleTo(&f.view));
    }

    void selfDiffIsAllZeros()
    {
        Pair p;
        Fixture f(p.a);
        QVERIFY(f.open(p.a));
        const DiffListModel* m = f.view.model();
        QVERIFY2(m->result(), qPrintable(f.view.statusText()));
        QCOMPARE(m->result()->weights.size(), f.a->weights.size());
        for (const qs::WeightDiff& d : m->result()->weights) {
            QCOMPARE(d.maxAbs, 0.0);
            QCOMPARE(d.rmse, 0.0);
            QCOMPARE(d.differing, uint64_t(0));
        }
        QCOMPARE(m->overCount(), 0);
        f.context.setWeight(f.weight("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.view.map());
        QCOMPARE(f.view.map()->maxAbs, 0.0f);
        for (float v : f.view.map()->cells)
            QCOMPARE(v, 0.0f);
    }

    // The browser's selection selects the match in B and the row in the list; a row of the
    // list or of B's weights asks for its A weight.
    void selectionIsSynchronised()
    {
        Pair p;
        Fixture f(p.a);
        QVERIFY(f.open(p.b));
        const auto b = f.view.other();
        QVERIFY(b);
        const int w = f.weight("model.layers.0.self_attn.q_proj.weight");
        f.context.setWeight(w);
        const int matched = f.view.matchedB();
        QVERIFY(matched >= 0);
        QCOMPARE(b->weights[size_t(matched)].name, std::string("model.layers.0.self_attn.q_proj.weight"));
        QCOMPARE(f.view.listB()->currentIndex().data(WeightTreeModel::WeightIndexRole).toInt(), matched);
        QCOMPARE(f.view.listA()->currentIndex().data(WeightTreeModel::WeightIndexRole).toInt(), w);
        QCOMPARE(f.view.list()->currentIndex().row(), f.view.model()->rowOfA("model.layers.0.self_attn.q_proj.weight"));

        QSignalSpy spy(&f.context, &ViewContext::weightRequested);
        const int row = f.view.model()->rowOfA("model.layers.0.mlp.up_proj.weight");
        const QRect rect = f.view.list()->visualRect(f.view.model()->index(row, 0));
        QTest::mouseClick(f.view.list()->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(f.context.weight(), f.weight("model.layers.0.mlp.up_proj.weight"));
        QCOMPARE(b->weights[size_t(f.view.matchedB())].name, std::string("model.layers.0.mlp.up_proj.weight"));
        // A weight only in A has no match.
        f.context.setWeight(f.weight("model.layers.0.self_attn.k_proj.weight"));
        QCOMPARE(f.view.matchedB(), -1);
        QVERIFY(!f.view.listB()->currentIndex().isValid());
    }

    void cancelStopsTheComparison()
    {
        QTemporaryDir dir;
        const Tensor big = makeTensor("model.layers.0.mlp.down_proj.weight", 2048, 8192, 7);
        const std::string a = write(dir, QStringLiteral("a.safetensors"), {big});
        Fixture f(a);
        QVERIFY(QTest::qWaitForWindowExposed(&f.view));
        // Cancel as soon as the comparison starts (the pairing job before it is quick).
        bool started = false;
        connect(f.context.jobs(), &JobRunner::started, &f.view, [&](const QString& key) {
            if (key != DiffView::kCompareJob)
                return;
            started = true;
            QVERIFY(f.context.jobs()->isRunning(DiffView::kCompareJob));
            f.view.cancelComparison();
        });
        f.view.openComparison(QString::fromStdString(a));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(started);
        QVERIFY(!f.context.jobs()->isRunning(DiffView::kCompareJob));
        QVERIFY2(f.view.statusText().contains(QStringLiteral("cancelled")), qPrintable(f.view.statusText()));
        QVERIFY(!f.view.model()->result());
        QCOMPARE(f.view.model()->rowCount(), 0);
    }

    // The German UI writes decimal commas in the list (the figures stay core's doubles).
    void listNumbersFollowTheLocale()
    {
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        Pair p;
        Fixture f(p.a);
        QVERIFY(f.open(p.b));
        const DiffListModel* m = f.view.model();
        QVERIFY2(m->result(), qPrintable(f.view.statusText()));
        int decimals = 0;
        for (int i = 0; i < m->rowCount(); ++i) {
            const DiffListModel::Row* r = m->rowAt(i);
            if (!r->diff || r->diff->rmse == 0)
                continue;
            const QString rmse = display(m, i, DiffListModel::Rmse);
            QCOMPARE(rmse, QLocale(QLocale::German).toString(r->diff->rmse, 'g', 4));
            QVERIFY2(rmse.contains(QLatin1Char(',')) && !rmse.contains(QLatin1Char('.')), qPrintable(rmse));
            QVERIFY(display(m, i, DiffListModel::MaxAbs).contains(QLatin1Char(',')));
            ++decimals;
        }
        QVERIFY(decimals >= 2);
    }

    // The list keeps its names readable at the view's narrowest (issue 33).
    void namesStayReadable()
    {
        Pair p;
        Fixture f(p.a);
        f.view.resize(f.view.minimumSizeHint().width(), 700);
        QVERIFY(f.open(p.b));
        QCoreApplication::processEvents();
        const int readable = f.view.fontMetrics().averageCharWidth() * 20;
        auto* list = f.view.findChild<QTreeView*>(QStringLiteral("diffList"));
        QVERIFY(list);
        for (int c : {DiffListModel::NameA, DiffListModel::NameB})
            QVERIFY2(list->header()->sectionSize(c) >= readable,
                     qPrintable(QString::number(list->header()->sectionSize(c))));
        auto* weightsA = f.view.findChild<QTreeView*>(QStringLiteral("weightsA"));
        QVERIFY(weightsA);
        QVERIFY2(weightsA->header()->sectionSize(WeightTreeModel::NameColumn) >= readable,
                 qPrintable(QString::number(weightsA->header()->sectionSize(WeightTreeModel::NameColumn))));
    }

    // core's warnings on the compared weights are listed above the list, one item each, the
    // detail in the tooltip; the German UI translates the sentence.
    void warningsAreListed_data()
    {
        QTest::addColumn<bool>("german");
        QTest::addRow("English") << false;
        QTest::addRow("German") << true;
    }
    void warningsAreListed()
    {
        QFETCH(bool, german);
        std::optional<qstest::GermanScope> de;
        if (german) {
            de.emplace();
            QVERIFY2(de->installed(), qPrintable(qstest::germanCatalogue()));
        }
        QTemporaryDir dir;
        std::string weight;
        const QString mixed = mixedZeroConventions(dir, &weight);
        QVERIFY(!mixed.isEmpty());
        const std::string clean = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym")).toStdString();

        // Without a warning the strip is hidden.
        {
            Fixture f(clean);
            QVERIFY(f.open(clean));
            QVERIFY(f.view.model()->result());
            QCOMPARE(f.view.warningList()->count(), 0);
            QVERIFY(!f.view.warningList()->isVisibleTo(&f.view));
        }
        Fixture f(mixed.toStdString());
        QVERIFY(f.open(clean));
        const auto result = f.view.model()->result();
        QVERIFY2(result, qPrintable(f.view.statusText()));
        QCOMPARE(result->warnings.size(), size_t(1));
        QListWidget* list = f.view.warningList();
        QVERIFY(list->isVisibleTo(&f.view));
        QCOMPARE(list->count(), 1);
        const QString text = list->item(0)->text();
        QVERIFY2(text.contains(QString::fromStdString(weight)), qPrintable(text));
        QVERIFY2(text.startsWith(QStringLiteral("mixed · ")), qPrintable(text)); // A's folder
        QVERIFY2(text.contains(german ? QStringLiteral("Nullpunkte") : QStringLiteral("zero points")),
                 qPrintable(text));
        QCOMPARE(list->item(0)->toolTip(), QString::fromStdString(result->warnings[0]));
    }

    void dropOpensB()
    {
        Pair p;
        Fixture f(p.a);
        QVERIFY(QTest::qWaitForWindowExposed(&f.view));
        // Two files, or a file that is no checkpoint, are refused.
        QMimeData two;
        two.setUrls(
            {QUrl::fromLocalFile(QString::fromStdString(p.a)), QUrl::fromLocalFile(QString::fromStdString(p.b))});
        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(QDir::temp().filePath(QStringLiteral("notes.txt")))});
        for (QMimeData* mime : {&two, &text}) {
            QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
            refused.setAccepted(false);
            QApplication::sendEvent(&f.view, &refused);
            QVERIFY(!refused.isAccepted());
        }
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(p.b))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        enter.setAccepted(false);
        QApplication::sendEvent(&f.view, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&f.view, &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.view.other());
        QCOMPARE(f.view.other()->path, p.b);
        QCOMPARE(f.context.checkpoint(), f.a); // A stays
        QVERIFY(f.view.model()->result());
    }

    void screenshotNotBlank_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addRow("light") << false;
        QTest::addRow("dark") << true;
    }
    void screenshotNotBlank()
    {
        QFETCH(bool, dark);
        Pair p;
        Fixture f(p.a);
        f.context.setTheme(Theme::fromPalette(dark ? darkPalette() : lightPalette()));
        QVERIFY(f.open(p.b));
        f.context.setWeight(f.weight("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.view.map());
        const QImage image = f.view.grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
    }
};

QTEST_MAIN(TestDiffView)
#include "tst_diffview.moc"
