// The smaller things a Qt application gets right (issue 16): the view names the registry,
// --help and --view agree on; Ctrl+Tab / Ctrl+PgDown switch views wherever the focus is; an
// unknown --view or --weight is an error naming it; the guide covers every view and its
// links switch views; the Verify view's findings select their weight in every view and
// follow the selection; the tensor browser's columns fit the dock; the file dialogs for a
// reference or B start in the checkpoint's folder.
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "guide.h"
#include "launchoptions.h"
#include "mainwindow.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/scalesview.h"
#include "views/verifyview.h"
#include "views/analysisview.h"
#include "views/viewregistry.h"
#include "weighttreemodel.h"

#include <QCommandLineParser>
#include <QDockWidget>
#include <QDir>
#include <QFontMetrics>
#include <QSortFilterProxyModel>
#include <QFileInfo>
#include <QHeaderView>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

#include <cstring>
#include <limits>

using namespace qsw;

namespace {

constexpr int kOpenTimeoutMs = 20000;

void waitOpened(MainWindow& w)
{
    QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading() && (w.snapshot() || !w.lastError().isEmpty()), kOpenTimeoutMs);
}

} // namespace

class TestWindowPolish : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qstest::sandboxSettings(m_dir.path(), QStringLiteral("tst_windowpolish"));
    }

    void viewNamesAgree()
    {
        MainWindow w(MainWindow::Options{false});
        QCOMPARE(w.viewNames(), centralViewNames());
        QVERIFY(w.analysisView(QStringLiteral("verify")));
        // Each tab's title, and each view's name and title, are its row's.
        const auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("views"));
        QVERIFY(tabs);
        int analysisViews = 0;
        for (int i = 0; i < tabs->count(); ++i) {
            const ViewRow& row = viewRows()[size_t(i)];
            QCOMPARE(tabs->tabText(i), viewTitle(row));
            if (auto* view = qobject_cast<AnalysisView*>(tabs->widget(i))) {
                ++analysisViews;
                QCOMPARE(view->viewName(), QString::fromLatin1(row.name));
                QCOMPARE(view->title(), viewTitle(row));
                QCOMPARE(view->metaObject(), row.type);
            } else {
                QVERIFY(!row.create);
            }
        }
        QCOMPARE(analysisViews, 9);
        // --help lists every one of them.
        QCommandLineParser parser;
        QString error;
        QVERIFY(parseLaunchArguments(parser, {QStringLiteral("quantscope"), QStringLiteral("--help")}, &error));
        const QString help = parser.helpText();
        for (const QString& name : centralViewNames())
            QVERIFY2(help.contains(name), qPrintable(name));
    }

    void keyboardSwitchesViews()
    {
        MainWindow w(MainWindow::Options{false});
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        const QStringList names = w.viewNames();
        QVERIFY(w.showView(QStringLiteral("tensors")));
        // From the tensor browser too: the shortcuts belong to the window.
        w.weightView()->setFocus();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(w.currentView(), names[1]);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(w.currentView(), names[2]);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(w.currentView(), names[1]);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.currentView(), names[0]);
        // The menu names the keys pressed, not Qt's Backtab.
        auto* previous = w.findChild<QAction*>(QStringLiteral("previousView"));
        QVERIFY(previous);
        QCOMPARE(previous->shortcut().toString(QKeySequence::PortableText), QStringLiteral("Ctrl+Shift+Tab"));
        // It wraps around.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(w.currentView(), names.last());
    }

    void unknownViewIsAUsageError()
    {
        QCommandLineParser parser;
        QString error;
        QVERIFY(!parseLaunchArguments(
            parser, {QStringLiteral("quantscope"), QStringLiteral("--view"), QStringLiteral("bitmpa")}, &error));
        QVERIFY2(error.contains(QLatin1String("'bitmpa'")) && error.contains(QLatin1String("bitmap")),
                 qPrintable(error));
        QCommandLineParser ok;
        QVERIFY(parseLaunchArguments(
            ok, {QStringLiteral("quantscope"), QStringLiteral("--view"), QStringLiteral("verify")}, &error));
    }

    void unknownWeightFails()
    {
        QCommandLineParser parser;
        QString error;
        const auto o =
            parseLaunchArguments(parser,
                                 {QStringLiteral("quantscope"), QStringLiteral("--view"), QStringLiteral("scales"),
                                  QStringLiteral("--weight"), QStringLiteral("model.layers.99.nothing")},
                                 &error);
        QVERIFY2(o, qPrintable(error));
        MainWindow w(MainWindow::Options{false});
        w.show();
        QStringList failures;
        applyLaunchOptions(w, *o, [&failures](const QString& message) { failures << message; });
        waitOpened(w);
        QTRY_COMPARE_WITH_TIMEOUT(failures.size(), 1, kOpenTimeoutMs);
        QVERIFY2(failures[0].contains(QLatin1String("'model.layers.99.nothing'")), qPrintable(failures[0]));
    }

    void guideCoversEveryView()
    {
        const QString html = guideHtml();
        for (const QString& name : centralViewNames())
            QVERIFY2(html.contains(QStringLiteral("href=\"view:%1\"").arg(name)), qPrintable(name));
        QVERIFY(html.size() > 4000); // a paragraph per view, not a list of names
        MainWindow w(MainWindow::Options{false});
        w.show();
        w.showGuide();
        QVERIFY(w.guide() && w.guide()->isVisible());
        emit w.guide()->browser()->anchorClicked(QUrl(QStringLiteral("view:budget")));
        QCOMPARE(w.currentView(), QStringLiteral("budget"));
    }

    // The learner's walk: each step's link opens the demo (here from another checkpoint) at the
    // weight, element and view it talks about, and what the text claims holds there.
    void guideWalksTheDemo()
    {
        const QString html = guideHtml();
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        w.openPath(qstest::fixture(QStringLiteral("safetensors/gptq-w2-g32-asym")));
        waitOpened(w);
        QVERIFY(!w.isDemo());
        w.showGuide();
        for (size_t i = 0; i < walkSteps().size(); ++i) {
            const WalkStep& step = walkSteps()[i];
            const QString link = QStringLiteral("walk:%1").arg(i);
            QVERIFY2(html.contains(QStringLiteral("href=\"%1\"").arg(link)), qPrintable(link));
            emit w.guide()->browser()->anchorClicked(QUrl(link));
            QTRY_VERIFY2_WITH_TIMEOUT(w.isDemo() && w.currentView() == QLatin1String(step.view),
                                      qPrintable(QStringLiteral("%1 %2 %3 %4")
                                                     .arg(w.isDemo())
                                                     .arg(w.currentView())
                                                     .arg(w.lastError())
                                                     .arg(w.isLoading())),
                                      kOpenTimeoutMs);
            QCOMPARE(w.snapshot()->weightName(w.selectedWeight()), QLatin1String(step.weight));
            QCOMPARE(w.viewContext()->selected(), (ElementRef{w.selectedWeight(), step.row, step.col}));
        }
        // "Column 3 is in group 3, not in group 0": the act-order step's claim, read from the weight.
        const auto act = std::find_if(walkSteps().begin(), walkSteps().end(),
                                      [](const WalkStep& s) { return QByteArray(s.title).contains("act-order"); });
        QVERIFY(act != walkSteps().end());
        emit w.guide()->browser()->anchorClicked(QUrl(QStringLiteral("walk:%1").arg(act - walkSteps().begin())));
        auto* scales = qobject_cast<ScalesView*>(w.analysisView(QStringLiteral("scales")));
        QVERIFY(scales);
        QTRY_VERIFY_WITH_TIMEOUT(scales->scales() && scales->scales()->weight == act->weight, kOpenTimeoutMs);
        const qs::GroupScales& g = *scales->scales();
        QCOMPARE(g.groupSize, uint64_t(32));
        QCOMPARE(g.gIdx.at(size_t(act->col)), 3);
        QCOMPARE(uint64_t(act->col) / g.groupSize, uint64_t(0));
    }

    // The w2 fixture holds AutoGPTQ's v1 zero spill, which verify reports as a warning.
    void verifyFindingsSelectTheirWeight()
    {
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        w.openPath(qstest::fixture(QStringLiteral("safetensors/gptq-w2-g32-asym")));
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        auto* view = qobject_cast<VerifyView*>(w.analysisView(QStringLiteral("verify")));
        QVERIFY(view);
        QVERIFY(!view->report()); // the checks run only once the view is shown
        QVERIFY(w.showView(QStringLiteral("verify")));
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QVERIFY2(view->report(), qPrintable(view->summaryText()));
        QVERIFY(!view->report()->findings.empty());
        QVERIFY(view->summaryText().contains(QLatin1String("warning")));
        QTreeWidgetItem* finding = view->list()->topLevelItem(0);
        const int weight = finding->data(VerifyView::WeightColumn, VerifyView::WeightIndexRole).toInt();
        QVERIFY(weight >= 0);
        QCOMPARE(w.snapshot()->weights[weight].name, finding->text(VerifyView::WeightColumn));
        // Select another weight first, then click the finding: the browser follows.
        const int other = weight == 0 ? 1 : 0;
        QVERIFY(w.selectWeight(w.snapshot()->weights[other].name));
        QVERIFY(!finding->isSelected());
        QTest::mouseClick(view->list()->viewport(), Qt::LeftButton, {}, view->list()->visualItemRect(finding).center());
        QCOMPARE(w.selectedWeight(), weight);
        QCOMPARE(w.viewContext()->weight(), weight);
        QVERIFY(finding->isSelected());
    }

    // A finding with a place: a click selects its weight and element, a double-click opens the
    // place in the Bit map; the Where column names it.
    void verifyFindingsOpenTheirPlace()
    {
        QTemporaryDir tmp;
        std::vector<float> v(16 * 32, 0.25f);
        v[9 * 32 + 21] = std::numeric_limits<float>::quiet_NaN();
        std::vector<uint8_t> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        const QString path = tmp.filePath(QStringLiteral("nan.safetensors"));
        qs::writeSafetensors(path.toStdString(),
                             {{"a.weight", qs::DType::F32, {4, 8}, std::vector<uint8_t>(4 * 8 * 4, 0x3F)},
                              {"m.weight", qs::DType::F32, {16, 32}, bytes}});
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        w.openPath(path);
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        auto* view = qobject_cast<VerifyView*>(w.analysisView(QStringLiteral("verify")));
        QVERIFY(w.showView(QStringLiteral("verify")));
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QVERIFY2(view->report(), qPrintable(view->summaryText()));
        QTreeWidgetItem* finding = nullptr;
        for (int i = 0; i < view->list()->topLevelItemCount(); ++i)
            if (view->list()->topLevelItem(i)->text(VerifyView::CheckColumn) == QLatin1String("nonfinite-value"))
                finding = view->list()->topLevelItem(i);
        QVERIFY(finding);
        QCOMPARE(finding->text(VerifyView::PlaceColumn), QStringLiteral("row 9, column 21"));
        // The browser marks the weight with errors, and only it (issue 33).
        for (int i = 0; i < w.snapshot()->weights.size(); ++i) {
            const QModelIndex row = w.weightModel()->indexOfWeight(i);
            const bool broken = w.snapshot()->weightName(i) == QLatin1String("m.weight");
            QCOMPARE(row.data(Qt::ToolTipRole).toString().contains(QLatin1String("Verify found errors")), broken);
            QCOMPARE(row.data(Qt::DecorationRole).isValid(), broken);
        }
        QVERIFY(w.selectWeight(QStringLiteral("a.weight")));
        QTest::mouseClick(view->list()->viewport(), Qt::LeftButton, {}, view->list()->visualItemRect(finding).center());
        QCOMPARE(w.snapshot()->weights[w.selectedWeight()].name, QStringLiteral("m.weight"));
        QCOMPARE(w.viewContext()->selected(), (ElementRef{w.selectedWeight(), 9, 21}));
        QCOMPARE(w.currentView(), QStringLiteral("verify"));
        emit view->list()->itemActivated(finding, 0);
        QCOMPARE(w.currentView(), QStringLiteral("bitmap"));
        QCOMPARE(w.viewContext()->selected(), (ElementRef{w.selectedWeight(), 9, 21}));
    }

    // A vocabulary GGUF (metadata, no tensor) has nothing to check: the table says so as a
    // note in the muted colour, not as a red error, and the summary does not count it as one;
    // it is no pass either (issue 33).
    void nothingCheckedIsANote()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("vocab.gguf"));
        qs::MetaValue arch;
        arch.value = std::string("llama");
        qs::writeGguf(path.toStdString(), {{"general.architecture", arch}}, {});
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        w.openPath(path);
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        auto* view = qobject_cast<VerifyView*>(w.analysisView(QStringLiteral("verify")));
        QVERIFY(w.showView(QStringLiteral("verify")));
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QVERIFY2(view->report(), qPrintable(view->summaryText()));
        QCOMPARE(view->list()->topLevelItemCount(), 1);
        QTreeWidgetItem* line = view->list()->topLevelItem(0);
        QCOMPARE(line->text(VerifyView::CheckColumn), QStringLiteral("nothing-checked"));
        QCOMPARE(line->text(VerifyView::SeverityColumn), QStringLiteral("note"));
        QCOMPARE(line->foreground(VerifyView::SeverityColumn).color(), w.viewContext()->theme().mutedText);
        QVERIFY2(!view->summaryText().contains(QLatin1String("error")), qPrintable(view->summaryText()));
        QVERIFY2(view->summaryText().contains(QLatin1String("not a pass")), qPrintable(view->summaryText()));
    }

    // Findings are kept per checkpoint: a view switch, coming back and a reload of the same
    // unchanged file show the same report (linked to the reloaded weights) without checking
    // again; Refresh checks again; another checkpoint clears them, and with no findings the
    // table says in one line what was checked.
    void verifyKeepsFindingsPerCheckpoint()
    {
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w2-g32-asym"));
        w.openPath(path);
        waitOpened(w);
        auto* view = qobject_cast<VerifyView*>(w.analysisView(QStringLiteral("verify")));
        QVERIFY(view);
        QVERIFY(w.showView(QStringLiteral("verify")));
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        const qs::VerifyReport* first = view->report();
        QVERIFY2(first, qPrintable(view->summaryText()));
        const size_t findings = first->findings.size();
        QVERIFY(w.showView(QStringLiteral("bitmap")));
        QVERIFY(w.showView(QStringLiteral("verify")));
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QCOMPARE(view->report(), first);
        w.openPath(path); // a reload
        waitOpened(w);
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QCOMPARE(view->report(), first);
        QTreeWidgetItem* finding = view->list()->topLevelItem(0);
        const int weight = finding->data(VerifyView::WeightColumn, VerifyView::WeightIndexRole).toInt();
        QVERIFY(weight >= 0);
        QCOMPARE(w.snapshot()->weights[weight].name, finding->text(VerifyView::WeightColumn));
        // Refresh checks again.
        auto* refresh = view->findChild<QPushButton*>(QStringLiteral("runChecks"));
        QVERIFY(refresh);
        refresh->click();
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QVERIFY(view->report() && view->report() != first);
        QCOMPARE(view->report()->findings.size(), findings);
        // Another checkpoint, without findings: one line says what was checked.
        w.openPath(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym")));
        waitOpened(w);
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QVERIFY2(view->report(), qPrintable(view->summaryText()));
        QVERIFY(view->report()->findings.empty());
        QVERIFY(!view->report()->checked.empty());
        QCOMPARE(view->list()->topLevelItemCount(), 1);
        QTreeWidgetItem* line = view->list()->topLevelItem(0);
        QCOMPARE(line->data(VerifyView::WeightColumn, VerifyView::WeightIndexRole).toInt(), -1);
        QVERIFY2(line->text(VerifyView::MessageColumn).contains(QStringLiteral("gptq")),
                 qPrintable(line->text(VerifyView::MessageColumn)));
        QVERIFY(line->text(VerifyView::MessageColumn).contains(QStringLiteral("no errors")));
    }

    void browserColumnsFit()
    {
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openPath(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")));
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        QCoreApplication::processEvents();
        QTreeView* view = w.weightView();
        const QHeaderView* header = view->header();
        QVERIFY2(header->length() <= view->viewport()->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(header->length()).arg(view->viewport()->width())));
        // The figures of every weight are shown whole.
        const QFontMetrics metrics(view->font());
        for (int weight = 0; weight < w.snapshot()->weights.size(); ++weight) {
            const QModelIndex row = w.weightProxy()->mapFromSource(w.weightModel()->indexOfWeight(weight));
            for (int c = WeightTreeModel::ShapeColumn; c < WeightTreeModel::ColumnCount; ++c) {
                const QModelIndex cell = row.siblingAtColumn(c);
                QVERIFY2(header->sectionSize(c) >= metrics.horizontalAdvance(cell.data().toString()),
                         qPrintable(cell.data().toString()));
            }
        }
        QVERIFY(header->sectionSize(WeightTreeModel::NameColumn) > 0);
    }

    // Issue 33: on a real model every name read "attn...ight" and the Name column opened as
    // "Nar"; a smaller window left the dock ~70 px wide. The tree drops what its grouping says
    // (the layer, ".weight"), a name column keeps about 20 characters, a dock about 40.
    void namesStayReadable()
    {
        MainWindow w(MainWindow::Options{false});
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openDemo();
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("browserDock"));
        QVERIFY(dock);
        w.resizeDocks({dock}, {40}, Qt::Horizontal);
        QCoreApplication::processEvents();
        QTreeView* view = w.weightView();
        const int readable = view->fontMetrics().averageCharWidth() * 20;
        QVERIFY2(dock->width() >= 2 * readable, qPrintable(QString::number(dock->width())));
        QVERIFY2(view->header()->sectionSize(WeightTreeModel::NameColumn) >= readable,
                 qPrintable(QString::number(view->header()->sectionSize(WeightTreeModel::NameColumn))));
        int norm = -1;
        for (int i = 0; i < w.snapshot()->weights.size() && norm < 0; ++i)
            if (w.snapshot()->weightName(i) == QLatin1String("model.layers.0.input_layernorm.weight"))
                norm = i;
        QVERIFY(norm >= 0);
        QCOMPARE(w.weightModel()->indexOfWeight(norm).data().toString(), QStringLiteral("input_layernorm"));
    }

    // A layout saved with a dock a few pixels wide comes back with the dock at its minimum
    // (states saved before the minimum existed are dropped: kStateVersion 3); one whose docks
    // would leave the views no room still leaves them room.
    void savedLayoutComesBackUsable()
    {
        const auto saveWithBrowserAt = [](int width) {
            MainWindow w;
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* browser = w.findChild<QDockWidget*>(QStringLiteral("browserDock"));
            browser->widget()->setMinimumWidth(0); // as versions without a minimum let it be saved
            w.resizeDocks({browser}, {width}, Qt::Horizontal);
            QCoreApplication::processEvents();
            w.close();
        };
        const auto restored = [](MainWindow& w) {
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCoreApplication::processEvents();
        };
        const int readable = QFontMetrics(QApplication::font()).averageCharWidth() * 20;
        saveWithBrowserAt(30);
        {
            MainWindow w;
            restored(w);
            const auto* browser = w.findChild<QDockWidget*>(QStringLiteral("browserDock"));
            QVERIFY2(browser->width() >= 2 * readable, qPrintable(QString::number(browser->width())));
        }
        saveWithBrowserAt(1260);
        MainWindow w;
        restored(w);
        QVERIFY2(w.centralWidget()->width() >= 3 * readable, qPrintable(QString::number(w.centralWidget()->width())));
    }

    void dialogsStartInTheCheckpointsFolder()
    {
        MainWindow w(MainWindow::Options{false});
        const QString folder = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        w.openPath(folder);
        waitOpened(w);
        QVERIFY2(w.snapshot(), qPrintable(w.lastError()));
        QCOMPARE(w.viewContext()->checkpointFolder(), QFileInfo(folder).absoluteFilePath());
        const QString file = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        w.openPath(file);
        QTRY_VERIFY_WITH_TIMEOUT(w.snapshot() && w.snapshot()->path == file, kOpenTimeoutMs);
        QCOMPARE(w.viewContext()->checkpointFolder(), QFileInfo(file).absolutePath());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestWindowPolish)
#include "tst_windowpolish.moc"
