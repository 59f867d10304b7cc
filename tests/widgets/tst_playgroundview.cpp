// The playground view on the offscreen platform: what it shows equals core's quantizeAffine
// and packAffine for the chosen settings (codes, scales, packed words), a real row comes
// from the dequantizer, big rows run as a background job while the event loop keeps going,
// bad settings show an error inside the view, the view and its export are not blank, and
// hovering a real row's codes links to the weight's element in the other views.
#include "analysis/playground.h"
#include "demo.h"
#include "formats/affine/quantize_affine.h"
#include "formats/codes.h"
#include "formats/wordmap.h"
#include "numbers.h"
#include "container/checkpoint.h"
#include "jobrunner.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"
#include "testsupport.h"
#include "mainwindow.h"
#include "viewcontext.h"
#include "views/playgroundview.h"
#include "views/playgroundwords.h"
#include "views/bitmapcanvas.h"
#include "views/bitmapview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSet>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include <algorithm>
#include <cstring>
#include <set>

using namespace qsw;

Q_DECLARE_METATYPE(qs::AffineTarget)

namespace {

const qs::FormatInfo& fmtOf(qs::AffineTarget t)
{
    return *qs::findFormat(qs::affineTargetName(t));
}

} // namespace

namespace {

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 5)
        for (int x = 0; x < image.width(); x += 5)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

// The demo in a shown main window with model.layers.1.mlp.up_proj ([256, 128]) selected and
// the playground quantizing one of its rows for a target.
struct DemoRow {
    MainWindow window{MainWindow::Options{false}};
    PlaygroundView* view = nullptr;

    // False, with `error` saying which step failed, when the row could not be shown.
    bool load(qs::AffineTarget target, int row, QString* error)
    {
        window.resize(1600, 1000);
        window.show();
        window.openDemo();
        if (!QTest::qWaitFor([&] { return window.snapshot() != nullptr; }, 20000))
            return *error = QStringLiteral("the demo did not open"), false;
        if (!window.selectWeight(QStringLiteral("model.layers.1.mlp.up_proj"))
            || !window.showView(QStringLiteral("playground")))
            return *error = QStringLiteral("no up_proj or no playground view"), false;
        view = qobject_cast<PlaygroundView*>(window.analysisView(QStringLiteral("playground")));
        view->setSource(PlaygroundView::Source::WeightRow);
        view->setTarget(fmtOf(target));
        view->setRow(row);
        view->recompute();
        if (!window.waitForIdle(20000) || !view->result())
            return *error = QStringLiteral("no result: ") + view->errorText(), false;
        return QTest::qWaitForWindowExposed(&window) || (*error = QStringLiteral("not exposed"), false);
    }
};

// A shown Playground on a checkpoint, weight `index` selected and row `row` computed.
struct WeightPlayground {
    ViewContext context;
    PlaygroundView view{&context};

    // False, with `error` saying why, when no result came.
    bool open(std::shared_ptr<const qs::Checkpoint> ckpt, int index, int row, QString* error)
    {
        context.setTheme(Theme::fromPalette(lightPalette()));
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        view.resize(1400, 900);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return *error = QStringLiteral("not exposed"), false;
        context.setWeight(index);
        view.setRow(row);
        view.recompute();
        if (!context.jobs()->waitForIdle(20000) || !view.result())
            return *error = QStringLiteral("no result: ") + view.errorText(), false;
        return true;
    }
};

// The Buckets plot's title and the label of the inspected-group box, as shown.
QString bucketsTitle(const PlaygroundView& view)
{
    const auto* plot = view.findChild<QCustomPlot*>(QStringLiteral("buckets"));
    const auto* title = plot ? qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)) : nullptr;
    return title ? title->text() : QString();
}

QString inspectLabel(const PlaygroundView& view)
{
    const auto* box = view.findChild<QSpinBox*>(QStringLiteral("inspectedGroup"));
    for (const QLabel* label : view.findChildren<QLabel*>())
        if (label->buddy() == box)
            return label->text();
    return {};
}

} // namespace

class TestPlaygroundView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void showsCoreNumbers_data();
    void showsCoreNumbers();
    void weightRowComesFromDequantizer();
    void bigRowRunsAsJob();
    void badSettingsShowError();
    void rangeLabelsStandAboveTheStaircase();
    void notBlankAndExports();
    void hoverLinksToWeight_data();
    void opensInTheWeightsOwnSettings_data();
    void opensInTheWeightsOwnSettings();
    void hoverLinksToWeight();
    void blockFormats();
    void splitCodeNotesAreReadable_data();
    void splitCodeNotesAreReadable();
    void bnbBlocksizeAndNested();
    void storedRowShowsStoredScaleAndWords_data();
    void storedRowShowsStoredScaleAndWords();
    void actOrderRowInGIdxOrder();
};

void TestPlaygroundView::showsCoreNumbers_data()
{
    QTest::addColumn<qs::AffineTarget>("target");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("groupSize");
    QTest::addColumn<bool>("symmetric");
    QTest::addColumn<int>("clipPercent");
    QTest::addRow("gptq-v1 4 g32") << qs::AffineTarget::GptqV1 << 4 << 32 << false << 100;
    QTest::addRow("gptq-v2 3 g64 sym") << qs::AffineTarget::GptqV2 << 3 << 64 << true << 100;
    QTest::addRow("awq 4 g64 clip") << qs::AffineTarget::AwqGemm << 4 << 64 << false << 80;
    QTest::addRow("ct 8 g128") << qs::AffineTarget::CompressedTensors << 8 << 128 << false << 100;
    QTest::addRow("mlx 2 g32") << qs::AffineTarget::Mlx << 2 << 32 << false << 90;
}

void TestPlaygroundView::showsCoreNumbers()
{
    QFETCH(qs::AffineTarget, target);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QFETCH(bool, symmetric);
    QFETCH(int, clipPercent);
    ViewContext context;
    PlaygroundView view(&context);
    view.resize(1200, 800);
    view.setSource(PlaygroundView::Source::NormalOutliers);
    view.setSeed(42);
    view.setLength(512);
    view.setTarget(fmtOf(target));
    view.setBits(bits);
    view.setGroupSize(groupSize);
    view.setSymmetric(symmetric);
    view.setClipRatio(clipPercent / 100.0);
    view.setInspectedGroup(1);
    view.recompute();
    const auto r = view.result();
    QVERIFY2(r, qPrintable(view.errorText()));

    const uint64_t rows = qs::playgroundAffineFormatOf(fmtOf(target))->blockRows;
    const std::vector<float> w = qs::playgroundSamples(qs::SampleDistribution::NormalOutliers, rows, 512, 42);
    qs::AffineOptions o;
    o.bits = bits;
    o.groupSize = uint64_t(groupSize);
    o.symmetric = symmetric;
    o.clipRatio = float(clipPercent / 100.0);
    o.rule = qs::playgroundAffineFormatOf(fmtOf(target))->rule;
    o.codeScale = qs::DType::F16;
    const qs::AffineQuantized q = qs::quantizeAffine(w.data(), rows, 512, o);
    QVERIFY(r->values == w);
    QVERIFY(r->quantized.codes == q.codes);
    QVERIFY(r->quantized.scales == q.scales);
    QVERIFY(r->quantized.zeros == q.zeros);

    // The words on screen are the packer's words, for the inspected group.
    const std::vector<qs::StoredTensor> packed = qs::packAffine(q, target, qs::DType::F16);
    const auto* words = view.findChild<PlaygroundWords*>(QStringLiteral("words"));
    QVERIFY(words);
    QVERIFY(!words->content().words.empty());
    QCOMPARE(words->content().focusBegin, uint64_t(groupSize));
    const qs::StoredTensor& codes = packed.front();
    QCOMPARE(QString::fromStdString(codes.suffix), QString::fromStdString(r->codeTensor));
    for (const qs::PlaygroundWord& word : words->content().words) {
        uint32_t expected = 0;
        std::memcpy(&expected, codes.bytes.data() + word.index * 4, 4);
        QCOMPARE(word.value, expected);
        bool holdsGroup = false;
        for (const qs::PlaygroundField& f : word.fields)
            holdsGroup |= f.row == 0 && f.col >= uint64_t(groupSize) && f.col < uint64_t(2 * groupSize);
        QVERIFY(holdsGroup);
    }
    QCOMPARE(view.inspectedGroup(), 1);
}

void TestPlaygroundView::weightRowComesFromDequantizer()
{
    DemoRow demo;
    QString error;
    QVERIFY2(demo.load(qs::AffineTarget::GptqV2, 7, &error), qPrintable(error));
    MainWindow& window = demo.window;
    PlaygroundView* view = demo.view;
    const auto r = view->result();
    const auto ckpt = window.checkpoint();
    const qs::LogicalWeight& weight = ckpt->weights[size_t(window.selectedWeight())];
    std::vector<float> row(weight.inFeatures());
    qs::dequantizeRows(*ckpt, weight, 7, 8, row.data(), qs::SimdPath::Scalar);
    QCOMPARE(r->rows, uint64_t(1));
    QVERIFY(r->values == row);
    QCOMPARE(view->findChild<QSpinBox*>(QStringLiteral("row"))->maximum(), int(weight.outFeatures()) - 1);
}

void TestPlaygroundView::bigRowRunsAsJob()
{
    ViewContext context;
    PlaygroundView view(&context);
    view.setSource(PlaygroundView::Source::Laplace);
    view.setLength(int(PlaygroundView::kSyncLimit) * 4);
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(1);
    view.recompute();
    QVERIFY(context.jobs()->isRunning(QStringLiteral("playground")));
    QTRY_VERIFY_WITH_TIMEOUT(view.result() && view.result()->cols == PlaygroundView::kSyncLimit * 4, 20000);
    QVERIFY(ticks > 0); // the GUI thread ran while the job worked

    // A newer small request replaces a running big one.
    view.setLength(int(PlaygroundView::kSyncLimit) * 8);
    view.recompute();
    view.setLength(128);
    view.recompute();
    QVERIFY(!context.jobs()->isRunning(QStringLiteral("playground")));
    QVERIFY(context.jobs()->waitForIdle(20000));
    QTest::qWait(20);
    QCOMPARE(view.result()->cols, uint64_t(128));
}

void TestPlaygroundView::badSettingsShowError()
{
    ViewContext context;
    PlaygroundView view(&context);
    view.setSource(PlaygroundView::Source::Uniform);
    view.setLength(100);
    view.setTarget(fmtOf(qs::AffineTarget::Mlx));
    view.setGroupSize(64);
    view.recompute();
    QVERIFY(!view.result());
    QVERIFY2(view.errorText().contains(QStringLiteral("divide")), qPrintable(view.errorText()));
    // No weight selected: the weight source says what to do.
    view.setSource(PlaygroundView::Source::WeightRow);
    view.recompute();
    QVERIFY(!view.errorText().isEmpty());
    // Fixed: the error goes away.
    view.setSource(PlaygroundView::Source::Uniform);
    view.setGroupSize(50);
    view.recompute();
    QVERIFY(view.result());
    QVERIFY(view.errorText().isEmpty());
}

// The min and max labels stand in a band above the top code: "max" was drawn over the
// staircase's top steps (issue 33).
void TestPlaygroundView::rangeLabelsStandAboveTheStaircase()
{
    ViewContext context;
    PlaygroundView view(&context);
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSource(PlaygroundView::Source::Uniform);
    view.setTarget(fmtOf(qs::AffineTarget::GptqV1));
    view.setGroupSize(32);
    view.recompute();
    QVERIFY2(view.result(), qPrintable(view.errorText()));
    auto* map = view.findChild<QCustomPlot*>(QStringLiteral("affineMap"));
    QVERIFY(map);
    map->replot();
    const int codes = 1 << view.result()->options.bits;
    const double topStep = map->yAxis->coordToPixel(codes - 1);
    int seen = 0;
    for (int i = 0; i < map->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(map->item(i));
            t && (t->text() == QLatin1String("min") || t->text() == QLatin1String("max"))) {
            ++seen;
            QVERIFY2(t->bottom->pixelPosition().y() < topStep - 2,
                     qPrintable(QStringLiteral("%1 reaches down to %2, the top code is at %3")
                                    .arg(t->text())
                                    .arg(t->bottom->pixelPosition().y())
                                    .arg(topStep)));
        }
    QCOMPARE(seen, 2);
}

void TestPlaygroundView::notBlankAndExports()
{
    ViewContext context;
    context.setTheme(Theme::fromPalette(lightPalette()));
    PlaygroundView view(&context);
    view.resize(1200, 800);
    view.show();
    view.setSource(PlaygroundView::Source::Normal);
    view.recompute();
    QVERIFY(view.result());
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50); // queued replots
    const QImage image = view.grab().toImage();
    QVERIFY2(distinctColours(image) > 30, qPrintable(QString::number(distinctColours(image))));

    QTemporaryDir dir;
    QString error;
    const QString svg = dir.filePath(QStringLiteral("playground.svg"));
    QVERIFY2(exportView(&view, svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.contains("Affine map"));
    QVERIFY(bytes.contains("word 0"));
    const QString png = dir.filePath(QStringLiteral("playground.png"));
    QVERIFY2(exportView(&view, png, &error), qPrintable(error));
    QVERIFY(distinctColours(QImage(png)) > 30);
}

void TestPlaygroundView::hoverLinksToWeight_data()
{
    QTest::addColumn<qs::AffineTarget>("target");
    QTest::addColumn<int>("row");
    QTest::addRow("gptq-v2: one row") << qs::AffineTarget::GptqV2 << 7;
    QTest::addRow("awq: an 8-row block wrapping at the end") << qs::AffineTarget::AwqGemm << 252;
}

// Hovering a packed field or the row plot of a real weight's row sets the context's hovered
// element to that weight's (row, col), and the bit map outlines it; synthetic rows do not.
void TestPlaygroundView::hoverLinksToWeight()
{
    QFETCH(qs::AffineTarget, target);
    QFETCH(int, row);
    DemoRow demo;
    QString error;
    QVERIFY2(demo.load(target, row, &error), qPrintable(error));
    MainWindow& window = demo.window;
    PlaygroundView* view = demo.view;
    ViewContext* context = window.viewContext();
    const int weight = window.selectedWeight();
    const uint64_t rows = 256;

    // Every field of every shown word: the mouse over it names its element.
    PlaygroundWords* words = view->words();
    int fields = 0;
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (int y = 0; y < words->height(); y += 3)
        for (int x = 0; x < words->width(); x += 4) {
            const auto hit = words->fieldAt(QPoint(x, y));
            if (!hit || !seen.insert(*hit).second)
                continue;
            QMouseEvent move(QEvent::MouseMove, QPointF(x, y), words->mapToGlobal(QPointF(x, y)), Qt::NoButton,
                             Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(words, &move);
            const ElementRef want{weight, int64_t((uint64_t(row) + hit->first) % rows), int64_t(hit->second)};
            QCOMPARE(context->hovered(), want);
            QCOMPARE(words->highlighted(), hit);
            ++fields;
        }
    QVERIFY(fields >= 8);
    // Some hits belong to other block rows for AWQ, whose words hold eight rows.
    if (target == qs::AffineTarget::AwqGemm)
        QVERIFY(std::any_of(seen.begin(), seen.end(), [](const auto& h) { return h.first == 7; }));

    // The row plot: column k of the focus row.
    view->hoverElement(0, 21);
    QCOMPARE(context->hovered(), (ElementRef{weight, row, 21}));
    // The bit map, on the same weight, outlines the element.
    auto* bitmap = qobject_cast<BitMapView*>(window.analysisView(QStringLiteral("bitmap")));
    QVERIFY(bitmap);
    QCOMPARE(bitmap->canvas()->hovered(), std::optional(std::pair(uint64_t(row), uint64_t(21))));
    // Leaving clears it.
    view->hoverElement(-1, -1);
    QVERIFY(!context->hovered().isValid());
    QVERIFY(!bitmap->canvas()->hovered());

    // Another view hovering an element of a shown row outlines its field here.
    context->setHovered({weight, row, 3});
    QCOMPARE(words->highlighted(), std::optional(std::pair(uint64_t(0), uint64_t(3))));
    context->setHovered({});

    // A synthetic row names no weight element.
    view->setSource(PlaygroundView::Source::Normal);
    view->recompute();
    QVERIFY(window.waitForIdle(20000));
    view->hoverElement(0, 5);
    QVERIFY(!context->hovered().isValid());
    QCOMPARE(words->highlighted(), std::optional(std::pair(uint64_t(0), uint64_t(5))));
}

void TestPlaygroundView::opensInTheWeightsOwnSettings_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("groupSize");
    QTest::addColumn<bool>("symmetric");
    QTest::addColumn<int>("words"); // holding group 0 of the focus row
    QTest::addRow("gptq 3-bit g32 asym") << "gptq-w3-g32-asym" << 3 << 32 << false << 3;
    QTest::addRow("gptq 3-bit g128 sym") << "gptq-w3-g128-sym" << 3 << 128 << true << 12;
    QTest::addRow("awq 4-bit g32") << "awq-gemm-w4-g32" << 4 << 32 << false << 32;
}

// A quantized weight opens in its own format, bits, group size and symmetry (not 4-bit), the
// codes computed from its row are compared with the stored ones, and every packed word of
// the inspected group is shown (3-bit group 128 needs 12).
void TestPlaygroundView::opensInTheWeightsOwnSettings()
{
    QFETCH(QString, dir);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QFETCH(bool, symmetric);
    QFETCH(int, words);
    const auto ckpt =
        qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/%1/model.safetensors").arg(dir)).toStdString());
    int index = -1;
    for (size_t i = 0; i < ckpt->weights.size() && index < 0; ++i)
        if (const qs::FormatInfo* f = qs::findFormat(ckpt->weights[i].format); f && f->affineCodes)
            index = int(i);
    QVERIFY(index >= 0);
    const qs::LogicalWeight& w = ckpt->weights[size_t(index)];
    WeightPlayground shown;
    QString error;
    QVERIFY2(shown.open(ckpt, index, 0, &error), qPrintable(error));
    ViewContext& context = shown.context;
    PlaygroundView& view = shown.view;
    const qs::PlaygroundOptions& o = view.result()->options;
    QCOMPARE(o.bits, bits);
    QCOMPARE(o.groupSize, uint64_t(groupSize));
    QCOMPARE(o.symmetric, symmetric);
    QCOMPARE(o.affine, qs::findFormat(w.format));
    QVERIFY(qs::playgroundAffineFormatOf(*o.affine));
    QVERIFY(view.matchesWeight());
    QCOMPARE(view.codeCheck().total, w.inFeatures());
    QVERIFY(view.codeCheck().matched >= 0);
    // The count against the stored codes, computed here.
    const qs::WeightCodes stored = qs::extractCodes(*ckpt, w);
    qint64 same = 0;
    for (uint64_t k = 0; k < w.inFeatures(); ++k)
        same += stored.codes[k] == view.result()->quantized.codes[k];
    QCOMPARE(view.codeCheck().matched, same);

    view.setInspectedGroup(0);
    QCOMPARE(int(view.words()->content().words.size()), words);
    QCOMPARE(view.words()->content().words.size(),
             qs::playgroundWords(*view.result(), 0, uint64_t(groupSize), size_t(-1)).size());

    // Other settings: the codes are not compared.
    view.setBits(bits == 3 ? 2 : 3);
    view.recompute();
    QVERIFY(context.jobs()->waitForIdle(20000));
    QVERIFY(!view.matchesWeight());
    QCOMPARE(view.codeCheck().matched, qint64(-1));
}

// GGUF Q4_0, Q4_1, Q8_0, Q4_K and NF4 targets: a Q4_K weight opens as Q4_K with its codes
// compared to the stored ones; each block format shows core's result (the same bytes as
// runPlayground), its field bytes and codes as bytes, the block's fields decoded in the summary,
// and switching back to an affine target enables its settings again.
void TestPlaygroundView::blockFormats()
{
    const auto ckpt = qs::openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
    int index = -1;
    for (size_t i = 0; i < ckpt->weights.size() && index < 0; ++i)
        if (ckpt->weights[i].format == "gguf-q4_k")
            index = int(i);
    QVERIFY(index >= 0);
    const qs::LogicalWeight& w = ckpt->weights[size_t(index)];
    WeightPlayground shown;
    QString error;
    QVERIFY2(shown.open(ckpt, index, 2, &error), qPrintable(error));
    ViewContext& context = shown.context;
    PlaygroundView& view = shown.view;
    QCOMPARE(view.blockFormat(), qs::findFormat("gguf-q4_k"));
    QCOMPARE(view.result()->options.block, qs::findFormat("gguf-q4_k"));
    QVERIFY(view.matchesWeight());
    QCOMPARE(view.codeCheck().total, w.inFeatures());
    QCOMPARE(view.codeCheck().matched, qs::playgroundStoredMatches(*ckpt, w, 2, *view.result()));
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("summary"))->text().contains(QStringLiteral("Codes")));
    QVERIFY(!view.findChild<QSpinBox*>(QStringLiteral("bits"))->isEnabled());
    // Sub-block 1's bytes: the 16 header bytes and the 32 it shares with sub-block 0, numbered
    // as the weight's tensor holds them (row 2).
    view.setInspectedGroup(1);
    const PlaygroundWords::Content& c = view.words()->content();
    QCOMPARE(c.wordBits, 8);
    QCOMPARE(c.words.size(), size_t(48));
    QVERIFY(!c.fieldNames.empty());
    const uint64_t rowBytes = view.result()->stored[0].bytes.size();
    QCOMPARE(c.words.front().index, 2 * rowBytes + 0);
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("summary"))->text().contains(QStringLiteral("sub-block scales")));
    // A block format's buckets are a block's (here a Q4_K sub-block's), never a "group".
    QCOMPARE(bucketsTitle(view), QStringLiteral("Buckets · sub-block 1 of block 0 · 32 values · colour = code"));
    QCOMPARE(inspectLabel(view), QStringLiteral("&Inspect sub-block:"));
    QVERIFY2(
        view.findChild<QLabel*>(QStringLiteral("summary"))->text().contains(QStringLiteral("8 sub-block(s) of 32")),
        qPrintable(view.findChild<QLabel*>(QStringLiteral("summary"))->text()));

    // Every block format from a synthetic source: core's bytes, words and a drawn view.
    view.setSource(PlaygroundView::Source::Normal);
    view.setLength(512);
    for (const qs::PlaygroundBlockFormat& f : qs::playgroundBlockFormats()) {
        view.setBlockFormat(f.format);
        view.recompute();
        QVERIFY(context.jobs()->waitForIdle(20000));
        QVERIFY2(view.result(), qPrintable(view.errorText()));
        QCOMPARE(view.result()->options.block, f.format);
        qs::PlaygroundOptions o;
        o.block = f.format;
        const qs::PlaygroundResult expect =
            qs::runPlayground(qs::playgroundSamples(qs::SampleDistribution::Normal, 1, 512, 1), 1, 512, o);
        QCOMPARE(view.result()->stored[0].bytes, expect.stored[0].bytes);
        QVERIFY(!view.matchesWeight());
        QCOMPARE(view.codeCheck().matched, qint64(-1));
        view.setInspectedGroup(0);
        QCOMPARE(view.words()->content().words.size(),
                 qs::playgroundWords(expect, 0, expect.groups[0].end, size_t(-1)).size());
        QVERIFY(distinctColours(view.grab().toImage()) > 12);
        const QString title = bucketsTitle(view);
        const qs::PlaygroundGroup& first = expect.groups[0];
        const QString block =
            first.subBlock >= 0 ? QStringLiteral("sub-block 0 of block 0") : QStringLiteral("block 0");
        QCOMPARE(title,
                 QStringLiteral("Buckets · %1 · %2 values · colour = code").arg(block).arg(first.end - first.begin));
    }
    // The same in German, for bitsandbytes NF4's blocks of 64.
    {
        const qstest::GermanScope german;
        QVERIFY2(german.installed(), qPrintable(qstest::germanCatalogue()));
        view.setBlockFormat(qs::findFormat("bnb-nf4"));
        view.setInspectedGroup(1);
        view.recompute();
        QVERIFY(context.jobs()->waitForIdle(20000));
        QVERIFY2(view.result(), qPrintable(view.errorText()));
        QCOMPARE(bucketsTitle(view), QStringLiteral("Eimer · Block 1 · 64 Werte · Farbe = Code"));
        QCOMPARE(inspectLabel(view), QStringLiteral("Block &ansehen:"));
        QVERIFY2(view.findChild<QLabel*>(QStringLiteral("summary"))->text().contains(QStringLiteral("8 Blöcke zu 64")),
                 qPrintable(view.findChild<QLabel*>(QStringLiteral("summary"))->text()));
    }
    view.setTarget(fmtOf(qs::AffineTarget::GptqV1));
    view.recompute();
    QVERIFY(context.jobs()->waitForIdle(20000));
    QVERIFY(!view.result()->options.block);
    QCOMPARE(bucketsTitle(view), QStringLiteral("Buckets · group 1 · 32 values · colour = code"));
    QCOMPARE(inspectLabel(view), QStringLiteral("&Inspect group:"));
    QVERIFY(view.findChild<QSpinBox*>(QStringLiteral("bits"))->isEnabled());
}

void TestPlaygroundView::splitCodeNotesAreReadable_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QSize>("window");
    for (const char* format : {"gguf-q3_k", "gguf-q5_k", "gguf-q6_k"})
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)})
            QTest::addRow("%s %dx%d", format, size.width(), size.height()) << QString::fromLatin1(format) << size;
}

// The k-quants whose codes lie in two places (Q3_K's hmask, Q5_K's and Q6_K's qh hold their high
// bits): every text of the words panel stands in a box of its own, none over another, each as
// wide as its text, and one note a line says where the high bits are, in a window that keeps
// its size. A note per code stood eight deep in the gutter (issue 33).
void TestPlaygroundView::splitCodeNotesAreReadable()
{
    QFETCH(QString, format);
    QFETCH(QSize, window);
    MainWindow w(MainWindow::Options{false});
    w.resize(window);
    w.show();
    w.openDemo();
    QVERIFY(QTest::qWaitFor([&] { return w.snapshot() != nullptr; }, 20000));
    QVERIFY(w.showView(QStringLiteral("playground")));
    auto* view = qobject_cast<PlaygroundView*>(w.analysisView(QStringLiteral("playground")));
    QVERIFY(view);
    view->setSource(PlaygroundView::Source::Normal);
    view->setLength(512);
    view->setBlockFormat(qs::findFormat(format.toStdString()));
    view->recompute();
    QVERIFY(w.waitForIdle(20000));
    QVERIFY2(view->result(), qPrintable(view->errorText()));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (int group : {0, 1, 5}) {
        view->setInspectedGroup(group);
        QCoreApplication::processEvents();
        // The notes' gutter gives way rather than widen the window (it pushed 1280 to 1310 px).
        QCOMPARE(w.width(), window.width());
        const PlaygroundWords* words = view->words();
        const std::vector<PlaygroundWords::Label> labels = words->labels(words->rect());
        int notes = 0;
        for (size_t i = 0; i < labels.size(); ++i) {
            const PlaygroundWords::Label& a = labels[i];
            notes += a.kind == PlaygroundWords::Label::Continuation;
            const double wide = QFontMetricsF(words->labelFont(a.kind)).horizontalAdvance(a.text);
            QVERIFY2(wide <= a.box.width() + 0.5,
                     qPrintable(QStringLiteral("group %1: \"%2\" is %3 px in %4")
                                    .arg(group)
                                    .arg(a.text)
                                    .arg(wide)
                                    .arg(a.box.width())));
            for (size_t j = i + 1; j < labels.size(); ++j)
                QVERIFY2(
                    !a.box.intersects(labels[j].box),
                    qPrintable(
                        QStringLiteral("group %1: \"%2\" and \"%3\" overlap").arg(group).arg(a.text, labels[j].text)));
        }
        QVERIFY2(notes > 0, qPrintable(QStringLiteral("group %1: no note says where the high bits are").arg(group)));
    }
}

// bitsandbytes NF4: a nested fixture opens with its own blocksize and nested absmax and its
// codes come back; from a synthetic source every blocksize bnb takes, plain and nested, is
// core's result, with every byte of the inspected block, its size in the Buckets title and the
// nested fields (code, second-level scale, offset) in the summary. GGUF offers neither.
void TestPlaygroundView::bnbBlocksizeAndNested()
{
    const auto ckpt = qs::openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/bnb-nf4-doublequant/model.safetensors")).toStdString());
    const qs::LogicalWeight& w = ckpt->weights.at(0);
    WeightPlayground shown;
    QString error;
    QVERIFY2(shown.open(ckpt, 0, 0, &error), qPrintable(error));
    ViewContext& context = shown.context;
    PlaygroundView& view = shown.view;
    QVERIFY(view.result()->options.nested);
    QCOMPARE(view.result()->blocks.blockWeights, uint32_t(w.groupSize));
    QVERIFY(view.matchesWeight());
    QCOMPARE(view.codeCheck().total, w.inFeatures());
    QCOMPARE(view.codeCheck().matched, qs::playgroundStoredMatches(*ckpt, w, 0, *view.result()));
    auto* nested = view.findChild<QCheckBox*>(QStringLiteral("nested"));
    auto* sizes = view.findChild<QComboBox*>(QStringLiteral("blocksize"));
    auto* groupSize = view.findChild<QComboBox*>(QStringLiteral("groupSize"));
    QVERIFY(nested && sizes && groupSize);
    QVERIFY(nested->isVisible() && nested->isChecked() && sizes->isVisible() && !groupSize->isVisible());
    QCOMPARE(sizes->count(), 8);
    const auto summary = [&view] { return view.findChild<QLabel*>(QStringLiteral("summary"))->text(); };
    QVERIFY2(summary().contains(QStringLiteral("second-level scale 0 = "))
                 && summary().contains(QStringLiteral("offset = ")),
             qPrintable(summary()));

    view.setSource(PlaygroundView::Source::Normal);
    view.setLength(8192);
    for (int bs : {32, 64, 128, 256, 512, 1024, 2048, 4096})
        for (bool n : {false, true}) {
            view.setBlocksize(bs);
            view.setNested(n);
            view.setInspectedGroup(1);
            view.recompute();
            QVERIFY(context.jobs()->waitForIdle(20000));
            QVERIFY2(view.result(), qPrintable(view.errorText()));
            qs::PlaygroundOptions o;
            o.block = qs::findFormat("bnb-nf4");
            o.blocksize = uint32_t(bs);
            o.nested = n;
            const qs::PlaygroundResult expect =
                qs::runPlayground(qs::playgroundSamples(qs::SampleDistribution::Normal, 1, 8192, 1), 1, 8192, o);
            QCOMPARE(view.result()->stored.size(), expect.stored.size());
            for (size_t i = 0; i < expect.stored.size(); ++i)
                QCOMPARE(view.result()->stored[i].bytes, expect.stored[i].bytes);
            QCOMPARE(view.words()->content().words.size(), size_t(bs / 2)); // every byte of block 1
            QCOMPARE(view.words()->content().words.front().index, uint64_t(bs / 2));
            QCOMPARE(bucketsTitle(view), QStringLiteral("Buckets · block 1 · %1 values · colour = code").arg(bs));
            QCOMPARE(summary().contains(QStringLiteral("second-level scale")), n);
            QVERIFY2(summary().contains(QStringLiteral("%1 block(s) of %2").arg(8192 / bs).arg(bs)),
                     qPrintable(summary()));
        }
    view.setBlockFormat(qs::findFormat("gguf-q4_0"));
    QVERIFY(!nested->isVisible() && !sizes->isVisible() && groupSize->isVisible());
}

void TestPlaygroundView::storedRowShowsStoredScaleAndWords_data()
{
    QTest::addColumn<QString>("weight");
    QTest::addRow("layer 0: gptq 4-bit g32 sym act-order") << "model.layers.0.mlp.down_proj";
    QTest::addRow("layer 1: gptq 3-bit g64 sym") << "model.layers.1.mlp.down_proj";
    QTest::addRow("layer 2: awq 4-bit g64 asym") << "model.layers.2.mlp.down_proj";
}

// A stored row at its own settings: the words panel holds the words as the file holds them (not
// this packing's), the summary the stored scale beside the playground's, and the codes check
// names the reason that is true of the weight: the demo (round to nearest, no error feedback)
// is not told "error feedback, act-order" when its symmetric scale is what differs.
void TestPlaygroundView::storedRowShowsStoredScaleAndWords()
{
    QFETCH(QString, weight);
    const auto ckpt = qs::openCheckpoint(extractDemoCheckpoint().toStdString());
    const qs::LogicalWeight* w = ckpt->findWeight(weight.toStdString());
    QVERIFY(w);
    const int index = int(w - ckpt->weights.data());
    WeightPlayground shown;
    QString error;
    QVERIFY2(shown.open(ckpt, index, 1, &error), qPrintable(error));
    PlaygroundView& view = shown.view;
    QVERIFY(view.matchesWeight());
    const qs::PlaygroundResult& r = *view.result();
    const qs::WeightCodes stored = qs::extractCodes(*ckpt, *w);
    const PlaygroundView::CodeCheck check = view.codeCheck();
    QCOMPARE(check.storedScales.size(), size_t(stored.groups));
    for (uint64_t g = 0; g < stored.groups; ++g)
        QCOMPARE(check.storedScales[g], stored.scales[g * stored.rows + 1]);

    for (int g : {0, int(r.groups.size()) - 1}) {
        view.setInspectedGroup(g);
        const QString summary = view.findChild<QLabel*>(QStringLiteral("summary"))->text();
        QVERIFY2(summary.contains(localNumber(check.storedScales[size_t(g)], 'g', 5)), qPrintable(summary));
        // Every word shown is the file's word at its index.
        const auto& words = view.words()->content().words;
        QVERIFY(!words.empty());
        const qs::LayoutSpec* spec = qs::findLayoutSpec(w->format);
        QVERIFY(spec);
        const qs::ElementLocation e = spec->locate(qs::layoutParams(*w), 1, 0);
        const std::span<const uint8_t> bytes = ckpt->bytes(ckpt->tensors[size_t(w->member(e.tensor))]);
        for (const qs::PlaygroundWord& word : words) {
            uint32_t value = 0;
            std::memcpy(&value, bytes.data() + word.index * 4, 4);
            QCOMPARE(word.value, value);
        }
        QVERIFY(view.words()->content().title.startsWith(QStringLiteral("Stored words")));
    }
    const QString summary = view.findChild<QLabel*>(QStringLiteral("summary"))->text();
    QVERIFY2(!summary.contains(QStringLiteral("error feedback")) || check.scalesMatched == check.storedScales.size(),
             qPrintable(summary));
    if (w->symmetric && check.scalesMatched < check.storedScales.size())
        QVERIFY2(summary.contains(QStringLiteral("symmetric")), qPrintable(summary));
}

// An act-order weight at its own settings: the row in g_idx order, so the playground's group g
// holds the columns g_idx puts in group g; selecting element (3, k) elsewhere shows row 3 and
// group g_idx[k], as the Bit map and Scales name it (not k / group size).
void TestPlaygroundView::actOrderRowInGIdxOrder()
{
    const auto ckpt = qs::openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-asym-actorder/model.safetensors")).toStdString());
    int index = -1;
    for (size_t i = 0; i < ckpt->weights.size() && index < 0; ++i)
        if (ckpt->weights[i].actOrder)
            index = int(i);
    QVERIFY(index >= 0);
    const qs::LogicalWeight& w = ckpt->weights[size_t(index)];
    const qs::WeightCodes stored = qs::extractCodes(*ckpt, w);
    WeightPlayground shown;
    QString error;
    QVERIFY2(shown.open(ckpt, index, 0, &error), qPrintable(error));
    PlaygroundView& view = shown.view;
    const std::vector<uint64_t>& columns = view.shownColumns();
    QCOMPARE(columns.size(), size_t(w.inFeatures()));
    for (const qs::PlaygroundGroup& g : view.result()->groups)
        for (uint64_t p = g.begin; p < g.end; ++p)
            QCOMPARE(uint64_t(stored.gIdx[size_t(columns[p])]), uint64_t(&g - view.result()->groups.data()));
    // The codes check pairs each position with its column.
    qint64 same = 0;
    for (uint64_t p = 0; p < w.inFeatures(); ++p)
        same += view.result()->quantized.codes[p] == stored.codes[columns[p]];
    QCOMPARE(view.codeCheck().matched, same);

    const uint64_t gs = uint64_t(w.groupSize);
    uint64_t k = 0;
    while (k < w.inFeatures() && uint64_t(stored.gIdx[k]) == k / gs)
        ++k;
    QVERIFY(k < w.inFeatures());
    shown.context.setSelected({index, 3, int64_t(k)});
    view.recompute();
    QVERIFY(shown.context.jobs()->waitForIdle(20000));
    QCOMPARE(view.findChild<QSpinBox*>(QStringLiteral("inspectedGroup"))->value(), stored.gIdx[k]);
    std::vector<float> row(w.inFeatures()), shownRow(w.inFeatures());
    qs::dequantizeRows(*ckpt, w, 3, 4, row.data(), qs::SimdPath::Scalar);
    for (uint64_t p = 0; p < w.inFeatures(); ++p)
        shownRow[p] = row[columns[p]];
    QCOMPARE(view.result()->values, shownRow);
}

QTEST_MAIN(TestPlaygroundView)
#include "tst_playgroundview.moc"
