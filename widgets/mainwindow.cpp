#include "mainwindow.h"

#include "base/error.h"
#include "analysis/recipe.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "demo.h"
#include "formats/opencheckpoint.h"
#include "guide.h"
#include "inspector.h"
#include "jobrunner.h"
#include "namecolumns.h"
#include "numbers.h"
#include "qtext.h"
#include "openurldialog.h"
#include "outputfile.h"
#include "report/report.h"
#include "report/reportwriter.h"
#include "remote/cache.h"
#include "remote/remotefile.h"
#include "remote/url.h"
#include "sortproxy.h"
#include "tablecsv.h"
#include "tablemodels.h"
#include "viewcontext.h"
#include "views/analysisview.h"
#include "views/viewregistry.h"
#include "weighttreemodel.h"

#include <QAction>
#include <QBuffer>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileSystemWatcher>
#include <QFrame>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QInputDialog>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <new>

namespace qsw {

const QString MainWindow::kLoadJob = QStringLiteral("load");

namespace {

// An http(s) URL or hf:// path: kept as typed in the recent list, never looked for on disk.
bool isRemote(const QString& path)
{
    return qs::remote::isRemotePath(path.toStdString());
}

constexpr int kRecentMax = 10;
// 2: the inspector sits below the browser; 3: the docks have a minimum width (states saved
// before could hold a dock of a few pixels)
constexpr int kStateVersion = 3;

const QPalette& systemPalette()
{
    // The platform's palette before we replace it: "System" follows its lightness.
    static const QPalette palette = QGuiApplication::palette();
    return palette;
}

bool isCheckpointUrl(const QUrl& url)
{
    if (!url.isLocalFile())
        return false;
    const QFileInfo fi(url.toLocalFile());
    static const QStringList suffixes{QStringLiteral("gguf"), QStringLiteral("safetensors"), QStringLiteral("bin"),
                                      QStringLiteral("pt"), QStringLiteral("pth")};
    return fi.isDir() || suffixes.contains(fi.suffix())
        || fi.fileName().endsWith(QLatin1String(".safetensors.index.json"));
}

QTreeView* makeTableView(QWidget* parent, const QString& objectName)
{
    auto* view = new QTreeView(parent);
    view->setObjectName(objectName);
    view->setRootIsDecorated(false);
    view->setUniformRowHeights(true);
    view->setSortingEnabled(true);
    view->setAlternatingRowColors(true);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->header()->setStretchLastSection(true);
    return view;
}

// A filter line above a view; the filter narrows `proxy`.
QWidget* withFilter(QWidget* parent, QTreeView* view, QSortFilterProxyModel* proxy, const QString& placeholder,
                    QLineEdit** editOut = nullptr)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* edit = new QLineEdit(box);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    QObject::connect(edit, &QLineEdit::textChanged, proxy, [proxy, view](const QString& text) {
        proxy->setFilterFixedString(text);
        if (!text.isEmpty())
            expandLayers(view);
    });
    layout->addWidget(edit);
    layout->addWidget(view);
    view->setParent(box);
    if (editOut)
        *editOut = edit;
    return box;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : MainWindow(Options{}, parent)
{
}

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent)
    , m_options(options)
{
    systemPalette();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Quantscope"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    m_weightModel = new WeightTreeModel(this);
    m_weightProxy = new NaturalSortProxy(WeightTreeModel::SortRole, WeightTreeModel::FilterRole, this);
    m_weightProxy->setSourceModel(m_weightModel);
    m_tensorModel = new TensorTableModel(this);
    m_tensorProxy = new NaturalSortProxy(TensorTableModel::SortRole, Qt::DisplayRole, this);
    m_tensorProxy->setSourceModel(m_tensorModel);
    m_metadataModel = new MetadataModel(this);
    m_metadataProxy = new NaturalSortProxy(Qt::UserRole + 1, Qt::DisplayRole, this);
    m_metadataProxy->setSourceModel(m_metadataModel);

    m_context = new ViewContext(this);
    connect(m_context, &ViewContext::viewRequested, this, [this](const QString& name) { showView(name); });
    connect(m_context, &ViewContext::flaggedWeightsChanged, this,
            [this] { m_weightModel->setFlagged(m_context->flaggedWeights()); });
    connect(m_context, &ViewContext::weightRequested, this, [this](int weight) {
        if (m_snapshot && weight >= 0 && weight < m_snapshot->weights.size())
            selectWeight(m_snapshot->weightName(weight));
    });

    connect(m_context->jobs(), &JobRunner::cancelled, this, [this](const QString& key) {
        if (key == kLoadJob)
            statusBar()->showMessage(tr("Opening %1 cancelled").arg(m_loadingPath), 5000);
    });

    createCentralViews();
    createDocks();
    createActions();
    createStatusBar();

    QSettings settings;
    if (m_options.persistent) {
        const QString mode = settings.value(QStringLiteral("theme"), QStringLiteral("system")).toString();
        m_themeMode = mode == QLatin1String("dark") ? ThemeMode::Dark
            : mode == QLatin1String("light")        ? ThemeMode::Light
                                                    : ThemeMode::System;
    }
    m_themeActions[int(m_themeMode)]->setChecked(true);
    applyTheme();

    resize(1400, 900);
    if (m_options.persistent) {
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
    }
    updateRecentMenu();
    updateStatus();
    m_inspector->setSnapshot(nullptr);
}

MainWindow::~MainWindow() = default;

QSortFilterProxyModel* MainWindow::weightProxy() const
{
    return m_weightProxy;
}

void MainWindow::createCentralViews()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("views"));
    m_tabs->setDocumentMode(true);

    m_tensorView = makeTableView(m_tabs, QStringLiteral("tensors"));
    m_tensorView->setModel(m_tensorProxy);
    m_tensorView->sortByColumn(-1, Qt::AscendingOrder);
    auto* tensorsPage = withFilter(m_tabs, m_tensorView, m_tensorProxy, tr("Filter stored tensors"));
    connect(m_tensorView, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const int weight = index.data(TensorTableModel::WeightIndexRole).toInt();
        if (weight >= 0)
            selectWeight(m_snapshot->weightName(weight));
    });

    m_metadataView = makeTableView(m_tabs, QStringLiteral("metadata"));
    m_metadataView->setRootIsDecorated(true); // nested configs and arrays open as a tree
    m_metadataView->setModel(m_metadataProxy);
    m_metadataView->sortByColumn(-1, Qt::AscendingOrder);
    // A long array comes a page at a time: scrolling to the end of it fetches the next page.
    connect(m_metadataView->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (value == m_metadataView->verticalScrollBar()->maximum())
            fetchMoreMetadata();
    });
    auto* metadataPage = withFilter(m_tabs, m_metadataView, m_metadataProxy, tr("Filter metadata"));

    // The tabs, one per row of viewregistry.cpp: the analysis views made from their rows, the two
    // table pages built above.
    const std::map<QString, QWidget*> tablePages{{QStringLiteral("tensors"), tensorsPage},
                                                 {QStringLiteral("metadata"), metadataPage}};
    for (const ViewRow& row : viewRows()) {
        QWidget* page;
        if (row.create) {
            AnalysisView* view = row.create(m_context, m_tabs);
            m_views << view;
            page = view;
        } else {
            page = tablePages.at(QLatin1String(row.name));
        }
        page->setObjectName(QLatin1String(row.name));
        m_tabs->addTab(page, viewTitle(row));
    }
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_exportAction)
            m_exportAction->setEnabled(qobject_cast<AnalysisView*>(m_tabs->currentWidget()) != nullptr);
    });

    // The bar that says the open files changed on disk, above the views.
    m_changedBar = new QFrame(this);
    m_changedBar->setObjectName(QStringLiteral("changedOnDiskBar"));
    static_cast<QFrame*>(m_changedBar)->setFrameShape(QFrame::StyledPanel);
    m_changedBar->setAutoFillBackground(true);
    auto* barLayout = new QHBoxLayout(m_changedBar);
    barLayout->setContentsMargins(8, 4, 8, 4);
    m_changedLabel = new QLabel(m_changedBar);
    m_changedLabel->setWordWrap(true);
    m_changedLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    barLayout->addWidget(m_changedLabel, 1);
    auto* reloadButton = new QPushButton(tr("Reload"), m_changedBar);
    reloadButton->setObjectName(QStringLiteral("reloadChanged"));
    connect(reloadButton, &QPushButton::clicked, this, &MainWindow::reload);
    barLayout->addWidget(reloadButton);
    m_changedBar->hide();
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_changedBar);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_fileWatcher = new QFileSystemWatcher(this);
    m_changedTimer = new QTimer(this);
    m_changedTimer->setSingleShot(true);
    m_changedTimer->setInterval(300);
    connect(m_changedTimer, &QTimer::timeout, this, &MainWindow::checkChangedOnDisk);
    connect(m_fileWatcher, &QFileSystemWatcher::fileChanged, m_changedTimer, qOverload<>(&QTimer::start));
}

void MainWindow::reload()
{
    if (m_snapshot) {
        const int w = selectedWeight();
        m_reloadWeight = m_snapshot->weightName(w);
    }
    if (m_isDemo)
        openDemo();
    else if (m_snapshot)
        openPath(m_snapshot->path);
}

QString MainWindow::changedOnDisk() const
{
    return m_changedWhy;
}

void MainWindow::checkChangedOnDisk()
{
    const std::optional<std::string> why = m_checkpoint ? m_checkpoint->changedOnDisk() : std::nullopt;
    m_changedWhy = why ? QString::fromStdString(*why) : QString();
    if (m_changedWhy.isEmpty()) {
        m_changedBar->hide();
        return;
    }
    m_changedLabel->setText(tr("Changed on disk: %1. What the views show was read from the file as it was, or from "
                               "what is left of it; reload to see it as it is now.")
                                .arg(m_changedWhy));
    // The theme's warning colour, a quarter strength over the background.
    const QColor w = m_theme.warning, b = m_theme.background;
    QPalette palette = m_changedBar->palette();
    palette.setColor(
        QPalette::Window,
        QColor((w.red() + 3 * b.red()) / 4, (w.green() + 3 * b.green()) / 4, (w.blue() + 3 * b.blue()) / 4));
    m_changedBar->setPalette(palette);
    m_changedBar->show();
}

// The open checkpoint's mapped files; a converter that rewrites one (or renames a new one over
// it) makes the watcher fire.
void MainWindow::watchFiles()
{
    if (const QStringList watched = m_fileWatcher->files(); !watched.isEmpty())
        m_fileWatcher->removePaths(watched);
    if (m_snapshot && !m_snapshot->files.isEmpty())
        m_fileWatcher->addPaths(m_snapshot->files);
}

void MainWindow::createDocks()
{
    m_weightView = new QTreeView(this);
    m_weightView->setObjectName(QStringLiteral("weightBrowser"));
    m_weightView->setModel(m_weightProxy);
    m_weightView->setUniformRowHeights(true);
    m_weightView->setSortingEnabled(true);
    m_weightView->sortByColumn(-1, Qt::AscendingOrder);
    m_weightView->setAlternatingRowColors(true);
    m_weightView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_weightView->header()->setMinimumSectionSize(m_weightView->fontMetrics().averageCharWidth() * 4);
    keepNamesReadable(m_weightView, {WeightTreeModel::NameColumn});
    m_weightView->setIndentation(m_weightView->fontMetrics().averageCharWidth() * 2); // names keep the room
    connect(m_weightView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::onWeightSelectionChanged);

    auto* browserDock = new QDockWidget(tr("Tensor browser"), this);
    browserDock->setObjectName(QStringLiteral("browserDock"));
    QWidget* browser = withFilter(
        browserDock, m_weightView, m_weightProxy,
        tr("Filter by name or format (%1)").arg(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)),
        &m_filter);
    // The views keep showing a weight the filter hides; the browser says so.
    m_hiddenSelectionNote = new QLabel(browser);
    m_hiddenSelectionNote->setObjectName(QStringLiteral("hiddenSelectionNote"));
    m_hiddenSelectionNote->setWordWrap(true);
    m_hiddenSelectionNote->hide();
    qobject_cast<QVBoxLayout*>(browser->layout())->insertWidget(1, m_hiddenSelectionNote);
    connect(m_hiddenSelectionNote, &QLabel::linkActivated, this, [this] {
        if (m_snapshot && m_context->weight() >= 0)
            selectWeight(m_snapshot->weightName(m_context->weight()));
    });
    connect(m_filter, &QLineEdit::textChanged, this, &MainWindow::updateHiddenSelectionNote);
    browserDock->setWidget(browser);
    addDockWidget(Qt::LeftDockWidgetArea, browserDock);

    m_inspector = new Inspector(this);
    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    inspectorDock->setWidget(m_inspector);
    // Below the browser, at its full width: a side column beside the views left the
    // inspector's tables a few characters wide at 1600 px.
    addDockWidget(Qt::LeftDockWidgetArea, inspectorDock);
    splitDockWidget(browserDock, inspectorDock, Qt::Vertical);
    // A dock narrower than this showed names and the inspector a letter or two a line.
    for (QDockWidget* dock : {browserDock, inspectorDock})
        dock->widget()->setMinimumWidth(2 * readableNameWidth(this));
    resizeDocks({browserDock}, {600}, Qt::Horizontal);
    resizeDocks({browserDock, inspectorDock}, {560, 380}, Qt::Vertical);
}

void MainWindow::createActions()
{
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    auto* toolbar = addToolBar(tr("Main toolbar"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);

    auto* open = fileMenu->addAction(tr("&Open File…"), this, &MainWindow::openFileDialog);
    open->setShortcuts(QKeySequence::Open);
    auto* openFolder = fileMenu->addAction(tr("Open &Folder…"), this, &MainWindow::openFolderDialog);
    openFolder->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_O);
    auto* openUrl = fileMenu->addAction(tr("Open &URL…"), this, &MainWindow::openUrlDialog);
    openUrl->setObjectName(QStringLiteral("openUrl"));
    openUrl->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_U);
    m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
    auto* demo = fileMenu->addAction(tr("Open &Demo Checkpoint"), this, &MainWindow::openDemo);
    m_reloadAction = fileMenu->addAction(tr("Re&load"), this, &MainWindow::reload);
    m_reloadAction->setShortcuts(QKeySequence::Refresh);
    fileMenu->addSeparator();
    m_exportAction = fileMenu->addAction(tr("&Export View…"), this, &MainWindow::exportViewDialog);
    m_exportAction->setShortcut(Qt::CTRL | Qt::Key_E);
    m_exportAction->setEnabled(qobject_cast<AnalysisView*>(m_tabs->currentWidget()) != nullptr);
    m_exportTableAction = fileMenu->addAction(tr("Export &Table as CSV…"), this, &MainWindow::exportTableDialog);
    m_exportTableAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_E);
    m_exportTableAction->setToolTip(
        tr("The table of the current tab: stored tensors, metadata, the Diff list, Verify's findings, the Recipe's "
           "weights or the Error view's statistics"));
    // Enabled while the current tab has a table (checked when the menu opens: a view's
    // table comes and goes with its results).
    connect(fileMenu, &QMenu::aboutToShow, this,
            [this] { m_exportTableAction->setEnabled(!currentTableCsv().isEmpty()); });
    fileMenu->addAction(tr("Export &Report…"), this, [this] {
        if (!m_checkpoint)
            return;
        // Which weights: all, or the one selected in the browser.
        QString weight;
        if (const WeightRow* row = m_context->weightRow()) {
            const QStringList choices{tr("Every weight"), tr("Only %1").arg(shownText(row->name))};
            bool ok = false;
            const QString choice =
                QInputDialog::getItem(this, tr("Export Report"), tr("Weights in the report:"), choices, 0, false, &ok);
            if (!ok)
                return;
            if (choice == choices[1])
                weight = row->name;
        }
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Report"), QStringLiteral("report.html"),
            tr("HTML page (*.html);;Markdown with PNG figures (*.md);;PDF document (*.pdf)"));
        if (!path.isEmpty())
            exportReport(path, weight);
    });
    fileMenu->addSeparator();
    m_clearReferenceAction =
        fileMenu->addAction(tr("Clear Re&ference"), this, [this] { m_context->setReference(nullptr); });
    m_clearReferenceAction->setToolTip(tr("Close the Error view's reference checkpoint and unmap its files"));
    m_closeBAction = fileMenu->addAction(tr("Close &B"), this, [this] { m_context->setComparison(nullptr); });
    m_closeBAction->setToolTip(tr("Close the Diff view's checkpoint B and unmap its files"));
    // Ctrl+W closes the checkpoint (as a document), not the application.
    m_closeCheckpointAction = fileMenu->addAction(tr("&Close Checkpoint"), this, &MainWindow::closeCheckpoint);
    m_closeCheckpointAction->setShortcuts(QKeySequence::Close);
    auto* close = fileMenu->addAction(tr("Close &Window"), this, &QWidget::close);
    close->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_W);
    auto* quit = fileMenu->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows, Qt::QueuedConnection);
    quit->setShortcuts(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    toolbar->addAction(open);
    toolbar->addAction(openFolder);
    toolbar->addAction(openUrl);
    toolbar->addAction(demo);
    connect(m_context, &ViewContext::referenceChanged, this, &MainWindow::updateSessionActions);
    connect(m_context, &ViewContext::comparisonChanged, this, &MainWindow::updateSessionActions);
    connect(m_context, &ViewContext::checkpointChanged, this, &MainWindow::updateSessionActions);
    connect(m_context, &ViewContext::checkpointChanged, this, &MainWindow::updateHiddenSelectionNote);
    connect(m_context, &ViewContext::weightChanged, this, &MainWindow::updateHiddenSelectionNote);
    updateSessionActions();

    auto* editMenu = menuBar()->addMenu(tr("&Edit"));
    auto* find = editMenu->addAction(tr("&Find Weight"), this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    find->setShortcuts(QKeySequence::Find);
    auto* copy = editMenu->addAction(tr("&Copy Weight Name"), this, &MainWindow::copySelectedName);
    copy->setShortcuts(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_weightView->addAction(copy);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
    m_viewMenu->addAction(toolbar->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(tr("E&xpand All Layers"), this, [this] {
        if (!expandLayers(m_weightView))
            statusBar()->showMessage(tr("%n layer(s): too many to expand at once; expand the ones you need.", nullptr,
                                        m_weightProxy->rowCount()),
                                     8000);
    });
    m_viewMenu->addAction(tr("C&ollapse All Layers"), m_weightView, &QTreeView::collapseAll);
    m_viewMenu->addSeparator();
    auto* themeMenu = m_viewMenu->addMenu(tr("&Theme"));
    auto* themeGroup = new QActionGroup(this);
    const QString themeNames[] = {tr("&System"), tr("&Light"), tr("&Dark")};
    for (int i = 0; i < 3; ++i) {
        m_themeActions[i] = themeMenu->addAction(themeNames[i], this, [this, i] { setThemeMode(ThemeMode(i)); });
        m_themeActions[i]->setCheckable(true);
        themeGroup->addAction(m_themeActions[i]);
    }
    auto* fullScreen = m_viewMenu->addAction(tr("&Full Screen"), this, [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
    });
    fullScreen->setCheckable(true);
    fullScreen->setShortcuts(QKeySequence::FullScreen);
    m_viewMenu->addSeparator();
    // Ctrl+Tab and Ctrl+PgDown as in browsers and IDEs, wherever the focus is.
    auto* nextView = m_viewMenu->addAction(tr("&Next View"), this, [this] { stepView(1); });
    nextView->setObjectName(QStringLiteral("nextView"));
    nextView->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    auto* previousView = m_viewMenu->addAction(tr("&Previous View"), this, [this] { stepView(-1); });
    previousView->setObjectName(QStringLiteral("previousView"));
    // Shift+Tab arrives as Backtab; the menu shows the first, which says what is pressed.
    previousView->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab),
                                QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab),
                                QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    for (QAction* a : {nextView, previousView})
        a->setShortcutContext(Qt::WindowShortcut);

    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    auto* guide = helpMenu->addAction(tr("Quantscope &Guide"), this, &MainWindow::showGuide);
    guide->setShortcuts(QKeySequence::HelpContents);
    helpMenu->addSeparator();
    helpMenu->addAction(tr("&About Quantscope"), this, &MainWindow::showAbout);
    helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createStatusBar()
{
    m_fileLabel = new QLabel(this);
    m_countLabel = new QLabel(this);
    m_sizeLabel = new QLabel(this);
    m_mappedLabel = new QLabel(this);
    m_fileLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_fileLabel, 1);

    // Background jobs: the latest job's title and progress, and a cancel button.
    m_jobLabel = new QLabel(this);
    m_jobProgress = new QProgressBar(this);
    m_jobProgress->setObjectName(QStringLiteral("jobProgress"));
    m_jobProgress->setMaximumWidth(160);
    m_jobProgress->setRange(0, 1000);
    m_jobProgress->setTextVisible(false);
    m_jobCancel = new QToolButton(this);
    m_jobCancel->setObjectName(QStringLiteral("jobCancel"));
    m_jobCancel->setText(tr("Cancel"));
    m_jobCancel->setToolTip(tr("Cancel the background job"));
    connect(m_jobCancel, &QToolButton::clicked, m_context->jobs(), &JobRunner::cancelAll);
    statusBar()->addPermanentWidget(m_jobLabel);
    statusBar()->addPermanentWidget(m_jobProgress);
    statusBar()->addPermanentWidget(m_jobCancel);
    m_jobTimer = new QTimer(this);
    m_jobTimer->setInterval(100);
    connect(m_jobTimer, &QTimer::timeout, this, &MainWindow::updateJobStatus);
    connect(m_context->jobs(), &JobRunner::activityChanged, this, &MainWindow::updateJobStatus);
    // A job may have read past the end of a file cut under it (it read zeros there): say so.
    connect(m_context->jobs(), &JobRunner::activityChanged, this, &MainWindow::checkChangedOnDisk);
    // Jobs that still held a closed checkpoint's results free them when they end: return that too.
    connect(m_context->jobs(), &JobRunner::activityChanged, this, [this] {
        if (m_returnMemoryWhenIdle && !m_context->jobs()->isBusy()) {
            m_returnMemoryWhenIdle = false;
            qs::platform::returnFreedMemory();
        }
    });
    connect(m_context->jobs(), &JobRunner::failed, this,
            [this](const QString&, const QString& message) { statusBar()->showMessage(message, 10000); });
    updateJobStatus();
    statusBar()->addPermanentWidget(m_countLabel);
    statusBar()->addPermanentWidget(m_sizeLabel);
    statusBar()->addPermanentWidget(m_mappedLabel);
    m_residentLabel = new QLabel(this);
    m_residentLabel->setObjectName(QStringLiteral("residentLabel"));
    statusBar()->addPermanentWidget(m_residentLabel);
    m_fetchedLabel = new QLabel(this);
    m_fetchedLabel->setObjectName(QStringLiteral("fetchedLabel"));
    m_fetchedLabel->setToolTip(tr("Bytes of the remote checkpoint held in the cache (%1), against the size of its "
                                  "files: a weight's bytes are fetched when a view needs them")
                                   .arg(QString::fromStdString(qs::remote::cacheRoot())));
    m_fetchedLabel->hide();
    statusBar()->addPermanentWidget(m_fetchedLabel);
    m_memoryLabel = new QLabel(this);
    m_memoryLabel->setObjectName(QStringLiteral("memoryLabel"));
    m_memoryLabel->setToolTip(tr("Memory this process holds for itself (private resident memory), mapped checkpoint "
                                 "pages not counted"));
    statusBar()->addPermanentWidget(m_memoryLabel);
    auto* memoryTimer = new QTimer(this);
    memoryTimer->setInterval(2000);
    connect(memoryTimer, &QTimer::timeout, this, &MainWindow::updateMemory);
    memoryTimer->start();
    updateMemory();
}

void MainWindow::updateMemory()
{
    const qint64 bytes = qint64(qs::platform::privateResidentBytes());
    m_memoryLabel->setVisible(bytes > 0);
    if (bytes > 0)
        m_memoryLabel->setText(tr("%1 private").arg(localBytes(uint64_t(bytes))));
    // The open checkpoint, its reference and B: pages the system may drop again at any time.
    qint64 resident = 0;
    QStringList parts;
    for (const auto& c : {m_checkpoint, m_context->reference(), m_context->comparison()})
        if (c) {
            const qint64 r = qint64(c->residentBytes());
            resident += r;
            parts << tr("%1: %2").arg(QFileInfo(QString::fromStdString(c->path)).fileName(), localBytes(uint64_t(r)));
        }
    updateFetched();
    m_residentLabel->setVisible(!parts.isEmpty());
    m_residentLabel->setText(tr("%1 of the checkpoint in RAM").arg(localBytes(uint64_t(resident))));
    m_residentLabel->setToolTip(tr("Pages of the mapped checkpoint files that have been read and are held in the page "
                                   "cache (the system drops them when it needs the memory):\n%1")
                                    .arg(parts.join(QLatin1Char('\n'))));
}

void MainWindow::updateFetched()
{
    if (!m_fetchedLabel)
        return; // the status bar is being built
    const qs::Checkpoint::RemoteBytes bytes =
        m_checkpoint ? m_checkpoint->remoteBytes() : qs::Checkpoint::RemoteBytes();
    m_fetchedLabel->setVisible(bytes.any());
    if (bytes.any())
        m_fetchedLabel->setText(tr("%1 of %2 fetched").arg(localBytes(bytes.cached), localBytes(bytes.size)));
}

void MainWindow::openUrlDialog()
{
    auto* dialog = new OpenUrlDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { openPath(dialog->path()); });
    dialog->open();
}

void MainWindow::openPath(const QString& path)
{
    startLoad(path, false);
}

void MainWindow::openDemo()
{
    startLoad(QString(), true);
}

bool MainWindow::isLoading() const
{
    return m_context->jobs()->isRunning(kLoadJob);
}

bool MainWindow::isBusy() const
{
    return isLoading() || m_context->jobs()->isBusy()
        || std::any_of(m_views.begin(), m_views.end(), [](const AnalysisView* v) { return v->hasPendingWork(); });
}

bool MainWindow::waitForIdle(int timeoutMs)
{
    // A finished load selects a weight, which may start jobs and debounced recomputes.
    return JobRunner::waitUntilQuiet([this] { return isBusy(); }, timeoutMs);
}

JobRunner* MainWindow::jobRunner() const
{
    return m_context->jobs();
}

AnalysisView* MainWindow::analysisView(const QString& name) const
{
    for (AnalysisView* view : m_views)
        if (view->viewName() == name)
            return view;
    return nullptr;
}

bool MainWindow::exportCurrentView(const QString& path, QString* error)
{
    if (QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0)
        return exportCurrentTable(path, error);
    auto* view = qobject_cast<AnalysisView*>(m_tabs->currentWidget());
    if (!view) {
        *error = tr("The current tab is not an analysis view.");
        return false;
    }
    return exportView(view, path, error);
}

bool MainWindow::checkOutputFile(const QString& path, QString* error) const
{
    return qsw::checkOutputFile(path, m_context->inputs(), error);
}

bool MainWindow::saveScreenshot(const QString& path, QString* error)
{
    if (!checkOutputFile(path, error))
        return false;
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!grab().toImage().save(&buffer, "PNG")) {
        *error = tr("%1: cannot encode PNG").arg(path);
        return false;
    }
    return writeOutputFile(path, m_context->inputs(), bytes, error);
}

void MainWindow::exportViewDialog()
{
    auto* view = qobject_cast<AnalysisView*>(m_tabs->currentWidget());
    if (!view)
        return;
    QString selectedFilter;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export %1").arg(view->title()),
                                     view->viewName() + QStringLiteral(".png"), exportFilter(), &selectedFilter);
    if (path.isEmpty())
        return;
    QString error;
    if (exportView(view, path, &error))
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

QString MainWindow::currentTableCsv() const
{
    const QString tab = m_tabs->currentWidget() ? m_tabs->currentWidget()->objectName() : QString();
    if (tab == QLatin1String("tensors"))
        return m_snapshot ? modelCsv(*m_tensorProxy) : QString();
    if (tab == QLatin1String("metadata"))
        return m_snapshot ? modelCsv(*m_metadataProxy) : QString();
    if (auto* view = qobject_cast<AnalysisView*>(m_tabs->currentWidget()))
        return view->tableCsv();
    return {};
}

bool MainWindow::exportCurrentTable(const QString& path, QString* error)
{
    const QString csv = currentTableCsv();
    if (csv.isEmpty()) {
        *error = tr("The current tab shows no table to export.");
        return false;
    }
    return writeCsv(csv, path, m_context->inputs(), error);
}

void MainWindow::exportTableDialog()
{
    if (currentTableCsv().isEmpty())
        return;
    const QString name = m_tabs->currentWidget()->objectName();
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Table"), name + QStringLiteral(".csv"), tr("CSV table (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportCurrentTable(path, &error))
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::exportReport(const QString& path, const QString& weight)
{
    if (!m_checkpoint)
        return;
    const auto format = reportFormatFor(path);
    if (!format) {
        statusBar()->showMessage(tr("%1: use .html, .md or .pdf").arg(QDir::toNativeSeparators(path)), 8000);
        return;
    }
    // Three steps: the content on a worker, the figures on the GUI thread (QCustomPlot is a
    // widget), the file on a worker again. Each is the job "report", so Cancel stops any.
    const std::shared_ptr<const qs::Checkpoint> ckpt = m_checkpoint;
    const QPointer<MainWindow> self(this);
    const QString title = tr("Writing report");
    qs::report::CheckpointOptions options;
    options.ref = m_context->reference();
    options.weight = weight.toStdString();
    m_context->jobs()->start(
        QStringLiteral("report"), title,
        [ckpt, path, self, format, title, options](JobControl& job) -> JobRunner::Continuation {
            qs::Progress control;
            control.cancel = &job.cancelFlag();
            control.report = [&job](uint64_t done, uint64_t total, const std::string&) {
                job.setProgress(0.6 * double(done) / double(total));
            };
            auto doc =
                std::make_shared<const qs::report::Document>(qs::report::checkpointReport(*ckpt, options, control));
            return [self, doc, path, format, title] {
                if (!self)
                    return;
                std::vector<QImage> figures;
                try {
                    figures = renderReportFigures(*doc, *format);
                } catch (const qs::Error& e) {
                    self->statusBar()->showMessage(QString::fromStdString(e.what()), 10000);
                    return;
                }
                self->m_context->jobs()->start(
                    QStringLiteral("report"), title,
                    [self, doc, path, figures](JobControl& job) -> JobRunner::Continuation {
                        qs::Progress control;
                        control.cancel = &job.cancelFlag();
                        control.report = [&job](uint64_t done, uint64_t total, const std::string&) {
                            job.setProgress(0.7 + 0.3 * double(done) / double(total));
                        };
                        writeReport(*doc, path, figures, control);
                        return [self, path] {
                            if (!self)
                                return;
                            self->statusBar()->showMessage(
                                tr("Report written to %1").arg(QDir::toNativeSeparators(path)), 8000);
                            emit self->reportExported(path);
                        };
                    });
            };
        });
}

void MainWindow::updateJobStatus()
{
    const JobRunner* jobs = m_context->jobs();
    const bool busy = jobs->isBusy();
    m_jobLabel->setVisible(busy);
    m_jobProgress->setVisible(busy);
    m_jobCancel->setVisible(busy);
    updateFetched();
    if (!busy) {
        m_jobTimer->stop();
        return;
    }
    if (!m_jobTimer->isActive())
        m_jobTimer->start();
    // A job waiting for a remote weight's bytes shows the fetch (Cancel stops it too).
    if (const qs::remote::FetchStatus fetch = qs::remote::currentFetch(); fetch.active && fetch.total > 0) {
        m_jobProgress->setRange(0, 1000);
        m_jobProgress->setValue(int(1000.0 * double(fetch.done) / double(fetch.total)));
        m_jobLabel->setText(
            tr("Fetching %1: %2 of %3")
                .arg(QString::fromStdString(fetch.name), localBytes(fetch.done), localBytes(fetch.total)));
        return;
    }
    const int permille = jobs->currentPermille();
    if (permille < 0)
        m_jobProgress->setRange(0, 0);
    else {
        m_jobProgress->setRange(0, 1000);
        m_jobProgress->setValue(permille);
    }
    const int count = jobs->runningCount();
    m_jobLabel->setText(count > 1 ? tr("%1 (+%n more)", nullptr, count - 1).arg(jobs->currentTitle())
                                  : jobs->currentTitle());
}

void MainWindow::startLoad(const QString& path, bool demo, const std::vector<std::string>& chosen)
{
    JobRunner* jobs = m_context->jobs();
    if (jobs->isRunning(kLoadJob)) {
        // One load at a time; a folder of shards may take a moment.
        statusBar()->showMessage(tr("Still opening %1…").arg(m_loadingPath), 3000);
        return;
    }
    m_loadingPath = demo ? tr("the demo checkpoint") : QDir::toNativeSeparators(path);
    QPointer<MainWindow> self(this);
    // Listing and detecting is I/O: it runs beside a compute job, and Cancel (or a remote
    // fetch's cancel under it) drops it and what it mapped.
    jobs->start(
        kLoadJob, tr("Opening %1…").arg(m_loadingPath),
        [self, path, demo, chosen](JobControl&) -> JobRunner::Continuation {
            auto r = std::make_shared<LoadResult>();
            r->demo = demo;
            r->path = path;
            try {
                if (demo)
                    r->path = extractDemoCheckpoint();
                r->checkpoint = qs::openCheckpoint(r->path.toStdString(), chosen);
                r->snapshot = CheckpointSnapshot::fromCheckpoint(r->checkpoint);
            } catch (const qs::FolderChoiceError& e) {
                r->error = QString::fromStdString(e.what());
                r->candidates = e.candidates();
            } catch (const qs::Error& e) {
                r->error = qtext(e);
            } catch (const std::bad_alloc&) {
                r->error = tr("%1: out of memory").arg(r->path);
            } catch (const std::exception& e) {
                r->error = tr("%1: internal error: %2").arg(r->path, QString::fromStdString(e.what()));
            }
            return [self, r] {
                if (self)
                    self->loadFinished(*r);
            };
        },
        JobRunner::Kind::Io);
}

void MainWindow::loadFinished(const LoadResult& result)
{
    if (!result.candidates.empty()) {
        askFolderChoice(result);
        return;
    }
    if (!result.error.isEmpty()) {
        showError(result.demo ? tr("the demo checkpoint") : result.path, result.error);
        return;
    }
    showSnapshot(result);
}

void MainWindow::askFolderChoice(const LoadResult& result)
{
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("folderChoiceDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Which checkpoint?"));
    dialog->setLabelText(tr("%1 holds several checkpoints and no index or model.safetensors that says which one "
                            "to open. Open:")
                             .arg(QDir::toNativeSeparators(result.path)));
    QStringList items;
    for (const qs::FolderCandidate& c : result.candidates)
        items << (c.files.size() == 1
                      ? QString::fromStdString(c.label)
                      : tr("%1 (%n shards)", nullptr, int(c.files.size())).arg(QString::fromStdString(c.label)));
    dialog->setComboBoxItems(items);
    dialog->setOption(QInputDialog::UseListViewForComboBoxItems);
    dialog->resize(560, 320);
    const QString path = result.path;
    const std::vector<qs::FolderCandidate> candidates = result.candidates;
    connect(dialog, &QInputDialog::textValueSelected, this, [this, path, candidates, items](const QString& picked) {
        const qsizetype i = items.indexOf(picked);
        if (i >= 0)
            startLoad(path, false, candidates[size_t(i)].files);
    });
    dialog->open();
}

void MainWindow::showSnapshot(const LoadResult& result)
{
    m_checkpoint = result.checkpoint;
    m_snapshot = result.snapshot;
    m_isDemo = result.demo;
    m_lastError.clear();
    m_weightModel->setSnapshot(m_snapshot);
    m_tensorModel->setSnapshot(m_snapshot);
    m_metadataModel->setSnapshot(m_snapshot, m_checkpoint);
    m_inspector->setSnapshot(m_snapshot);
    // The reference and B belong to the previous checkpoint.
    std::shared_ptr<const qs::Checkpoint> oldReference = m_context->reference(),
                                          oldComparison = m_context->comparison();
    if (m_keepBox)
        m_keepBox->done(QMessageBox::Discard);
    m_context->setCheckpoint(m_checkpoint, m_snapshot, m_options.carry == SessionCarry::Keep);
    if (m_options.carry == SessionCarry::Ask && (oldReference || oldComparison))
        offerToKeepSession(std::move(oldReference), std::move(oldComparison));
    oldReference.reset();
    oldComparison.reset();
    expandLayers(m_weightView);
    fitWeightColumns();
    for (int c = 0; c < TensorTableModel::WeightColumn; ++c)
        m_tensorView->resizeColumnToContents(c);
    m_metadataView->resizeColumnToContents(MetadataModel::KeyColumn);
    m_metadataView->resizeColumnToContents(MetadataModel::TypeColumn);
    m_metadataView->setColumnWidth(MetadataModel::ValueColumn, 520);

    const QString shown = m_isDemo ? tr("Demo checkpoint") : QFileInfo(m_snapshot->path).fileName();
    setWindowTitle(tr("%1 — Quantscope").arg(shown));
    setWindowFilePath(m_snapshot->path);
    if (!m_isDemo && m_options.persistent)
        addRecentFile(m_snapshot->path);
    updateStatus();
    if (!m_snapshot->leftOut.isEmpty())
        statusBar()->showMessage(
            tr("Opened %1; left out: %2").arg(m_snapshot->openedAs, m_snapshot->leftOut.join(QStringLiteral(", "))));
    watchFiles();
    checkChangedOnDisk();
    const QString again = std::exchange(m_reloadWeight, QString());
    // After a reload, the weight that was selected; else a typical quantized layer, so that the
    // views have something to show (and the Error view in front does not start on token_embd).
    if (!again.isEmpty() && selectWeight(again)) {
    } else if (!m_snapshot->weights.isEmpty()) {
        selectWeight(m_snapshot->weightName(int(qs::firstWeightToShow(*m_checkpoint))));
    }
    if (const int walk = std::exchange(m_pendingWalkStep, -1); walk >= 0 && m_isDemo)
        showWalkStep(walk);
    emit checkpointOpened(m_snapshot->path);
}

void MainWindow::offerToKeepSession(std::shared_ptr<const qs::Checkpoint> reference,
                                    std::shared_ptr<const qs::Checkpoint> comparison)
{
    QStringList what;
    if (reference)
        what << tr("the reference %1").arg(QFileInfo(QString::fromStdString(reference->path)).fileName());
    if (comparison)
        what << tr("checkpoint B %1").arg(QFileInfo(QString::fromStdString(comparison->path)).fileName());
    m_keepBox =
        new QMessageBox(QMessageBox::Question, tr("Keep the comparison?"),
                        tr("Keep %1 for %2?").arg(what.join(tr(" and ")), QFileInfo(m_snapshot->path).fileName()),
                        QMessageBox::NoButton, this);
    m_keepBox->setObjectName(QStringLiteral("keepSessionBox"));
    m_keepBox->setInformativeText(tr("They were opened for the previous checkpoint. Closing them unmaps their files."));
    m_keepBox->addButton(tr("Keep"), QMessageBox::AcceptRole)->setObjectName(QStringLiteral("keep"));
    m_keepBox->addButton(tr("Close Them"), QMessageBox::RejectRole)->setObjectName(QStringLiteral("close"));
    m_keepBox->setAttribute(Qt::WA_DeleteOnClose);
    m_keepBox->setWindowModality(Qt::WindowModal);
    // The box holds the old checkpoints only until it is answered.
    const auto ckpt = m_checkpoint;
    connect(m_keepBox, &QMessageBox::buttonClicked, this, [this, ckpt, reference, comparison](QAbstractButton* button) {
        if (button->objectName() != QLatin1String("keep") || m_checkpoint != ckpt)
            return;
        if (reference)
            m_context->setReference(reference);
        if (comparison)
            m_context->setComparison(comparison);
    });
    connect(m_keepBox, &QMessageBox::finished, m_keepBox, [box = m_keepBox.data()] {
        // Drop the captured checkpoints with the connection, not with the deferred delete.
        box->disconnect();
    });
    m_keepBox->open();
}

void MainWindow::closeCheckpoint()
{
    if (!m_checkpoint)
        return;
    if (m_keepBox)
        m_keepBox->done(QMessageBox::Discard);
    m_context->setCheckpoint(nullptr, nullptr);
    m_checkpoint.reset();
    m_snapshot.reset();
    m_isDemo = false;
    m_weightModel->setSnapshot(nullptr);
    m_tensorModel->setSnapshot(nullptr);
    m_metadataModel->setSnapshot(nullptr);
    m_inspector->setSnapshot(nullptr);
    setWindowTitle(tr("Quantscope"));
    setWindowFilePath(QString());
    watchFiles();
    checkChangedOnDisk();
    // What the models and views freed after the checkpoint itself (whose destruction returns
    // what it held, base/platform.h) goes back too, and what running jobs free once they end.
    qs::platform::returnFreedMemory();
    m_returnMemoryWhenIdle = m_context->jobs()->isBusy();
    updateStatus();
}

void MainWindow::updateSessionActions()
{
    m_closeCheckpointAction->setEnabled(m_context->checkpoint() != nullptr);
    m_clearReferenceAction->setEnabled(m_context->reference() != nullptr);
    m_closeBAction->setEnabled(m_context->comparison() != nullptr);
    if (m_memoryLabel)
        updateMemory();
}

void MainWindow::showError(const QString& path, const QString& message)
{
    m_lastError = message;
    if (m_errorBox)
        m_errorBox->deleteLater();
    m_errorBox =
        new QMessageBox(QMessageBox::Critical, tr("Cannot open checkpoint"),
                        tr("Quantscope could not open %1.").arg(QDir::toNativeSeparators(path)), QMessageBox::Ok, this);
    m_errorBox->setObjectName(QStringLiteral("openErrorBox"));
    m_errorBox->setInformativeText(shownText(message, kMaxShownMessage));
    m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
    m_errorBox->setWindowModality(Qt::WindowModal);
    m_errorBox->open();
    if (m_snapshot)
        statusBar()->showMessage(tr("Kept %1 open.").arg(QFileInfo(m_snapshot->path).fileName()), 8000);
    emit openFailed(path, message);
}

void MainWindow::fitWeightColumns()
{
    // The figures keep their full width; the name takes what is left of the dock and elides
    // in the middle (its tooltip has it whole), so every column is in view without scrolling.
    for (int c = WeightTreeModel::FormatColumn; c < WeightTreeModel::ColumnCount; ++c)
        m_weightView->resizeColumnToContents(c);
    // Layer rows list every format they hold; let those elide rather than widen the column
    // past about 18 characters (most format ids fit).
    m_weightView->setColumnWidth(WeightTreeModel::FormatColumn,
                                 std::min(m_weightView->columnWidth(WeightTreeModel::FormatColumn),
                                          m_weightView->fontMetrics().averageCharWidth() * 18 + 24));
}

void MainWindow::fetchMoreMetadata()
{
    // The last row shown belongs to the innermost open node that has more to give.
    const QModelIndex last = m_metadataView->indexAt(QPoint(1, m_metadataView->viewport()->height() - 2));
    for (QModelIndex parent = last.isValid() ? last.parent() : QModelIndex(); parent.isValid();
         parent = parent.parent())
        if (m_metadataProxy->canFetchMore(parent)) {
            m_metadataProxy->fetchMore(parent);
            return;
        }
}

void MainWindow::updateStatus()
{
    if (!m_snapshot) {
        m_fileLabel->setText(tr("No checkpoint open"));
        m_countLabel->clear();
        m_sizeLabel->clear();
        m_mappedLabel->clear();
        m_reloadAction->setEnabled(false);
        return;
    }
    m_reloadAction->setEnabled(true);
    m_fileLabel->setText(m_isDemo ? tr("Demo: %1").arg(QDir::toNativeSeparators(m_snapshot->path))
                                  : QDir::toNativeSeparators(m_snapshot->path));
    m_countLabel->setText(tr("%n tensor(s), ", nullptr, int(m_snapshot->tensors.size()))
                          + tr("%n weight(s)", nullptr, int(m_snapshot->weights.size())));
    m_sizeLabel->setText(m_checkpoint && m_checkpoint->remoteBytes().any()
                             ? tr("%1 on the server").arg(localBytes(m_checkpoint->remoteBytes().size))
                             : tr("%1 on disk").arg(localBytes(m_snapshot->diskBytes)));
    m_mappedLabel->setText(
        tr("%1 mapped in %n file(s)", nullptr, int(m_snapshot->files.size())).arg(localBytes(m_snapshot->mappedBytes)));
    updateMemory();
}

QStringList MainWindow::updatedRecentFiles(QStringList list, const QString& path)
{
    const QString clean = isRemote(path) ? path : QFileInfo(path).absoluteFilePath();
    list.removeAll(clean);
    list.prepend(clean);
    list.erase(std::remove_if(list.begin(), list.end(),
                              [](const QString& p) { return !isRemote(p) && !QFileInfo::exists(p); }),
               list.end());
    while (list.size() > kRecentMax)
        list.removeLast();
    return list;
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    settings.setValue(QStringLiteral("recentFiles"), updatedRecentFiles(recentFiles(), path));
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    QStringList files = m_options.persistent ? recentFiles() : QStringList();
    const auto missing = std::remove_if(files.begin(), files.end(),
                                        [](const QString& p) { return !isRemote(p) && !QFileInfo::exists(p); });
    if (missing != files.end()) {
        files.erase(missing, files.end());
        QSettings().setValue(QStringLiteral("recentFiles"), files);
    }
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        // &1..&9 and &0 as accelerators for the first ten.
        const QString label = tr("&%1 %2").arg((i + 1) % 10).arg(QDir::toNativeSeparators(path));
        m_recentMenu->addAction(label, this, [this, path] { openPath(path); });
    }
    if (!files.isEmpty())
        m_recentMenu->addSeparator();
    auto* clear = m_recentMenu->addAction(tr("&Clear List"), this, [this] {
        QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    clear->setEnabled(!files.isEmpty());
}

QStringList MainWindow::viewNames() const
{
    QStringList names;
    for (int i = 0; i < m_tabs->count(); ++i)
        names << m_tabs->widget(i)->objectName();
    return names;
}

bool MainWindow::showView(const QString& name)
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->objectName() == name) {
            m_tabs->setCurrentIndex(i);
            return true;
        }
    return false;
}

QString MainWindow::currentView() const
{
    return m_tabs->currentWidget() ? m_tabs->currentWidget()->objectName() : QString();
}

bool MainWindow::selectWeight(const QString& name)
{
    if (!m_snapshot)
        return false;
    const int weight = m_snapshot->findWeight(name);
    if (weight < 0)
        return false;
    // The filter may hide it; clear the filter rather than select an invisible row.
    QModelIndex proxyIndex = m_weightProxy->mapFromSource(m_weightModel->indexOfWeight(weight));
    if (!proxyIndex.isValid()) {
        m_filter->clear();
        proxyIndex = m_weightProxy->mapFromSource(m_weightModel->indexOfWeight(weight));
    }
    m_weightView->setCurrentIndex(proxyIndex);
    m_weightView->scrollTo(proxyIndex);
    return true;
}

int MainWindow::selectedWeight() const
{
    return m_inspector->weight();
}

void MainWindow::updateHiddenSelectionNote()
{
    const int weight = m_context->weight();
    const bool hidden = m_snapshot && weight >= 0 && !m_filter->text().isEmpty()
        && !m_weightProxy->mapFromSource(m_weightModel->indexOfWeight(weight)).isValid();
    if (hidden)
        m_hiddenSelectionNote->setText(tr("The filter hides the selected weight %1. <a href=\"show\">Show it</a>")
                                           .arg(shownText(m_snapshot->weightName(weight)).toHtmlEscaped()));
    m_hiddenSelectionNote->setVisible(hidden);
}

void MainWindow::onWeightSelectionChanged()
{
    const QModelIndex current = m_weightView->currentIndex();
    // The filter took the row out of view: the weight stays selected (updateHiddenSelectionNote).
    if (!current.isValid() && !m_filter->text().isEmpty() && m_context->weight() >= 0)
        return;
    const int weight = current.isValid() ? current.data(WeightTreeModel::WeightIndexRole).toInt() : -1;
    m_inspector->showWeight(weight);
    m_context->setWeight(weight);
    // Show the weight's stored tensors in the stored-tensor view too.
    auto* selection = m_tensorView->selectionModel();
    selection->clearSelection();
    if (weight < 0 || !m_snapshot)
        return;
    QItemSelection rows;
    for (const auto& m : m_snapshot->weights[weight].members) {
        const QModelIndex idx = m_tensorProxy->mapFromSource(m_tensorModel->index(m.tensorIndex, 0));
        if (idx.isValid())
            rows.select(idx, idx.siblingAtColumn(TensorTableModel::ColumnCount - 1));
    }
    selection->select(rows, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    if (!rows.isEmpty())
        m_tensorView->scrollTo(rows.first().topLeft());
}

void MainWindow::setThemeMode(ThemeMode mode)
{
    m_themeMode = mode;
    m_themeActions[int(mode)]->setChecked(true);
    if (m_options.persistent) {
        static const char* names[] = {"system", "light", "dark"};
        QSettings().setValue(QStringLiteral("theme"), QLatin1String(names[int(mode)]));
    }
    applyTheme();
}

void MainWindow::applyTheme()
{
    const bool dark = m_themeMode == ThemeMode::Dark || (m_themeMode == ThemeMode::System && isDark(systemPalette()));
    m_applyingTheme = true;
    QApplication::setPalette(dark ? darkPalette() : lightPalette());
    m_applyingTheme = false;
    // The PaletteChange event may not have reached us yet; take the new palette now.
    m_theme = Theme::fromPalette(QApplication::palette());
    m_weightModel->setTheme(m_theme);
    m_tensorModel->setTheme(m_theme);
    m_inspector->setTheme(m_theme);
    m_context->setTheme(m_theme);
}

void MainWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange && !m_applyingTheme && m_inspector) {
        m_theme = Theme::fromPalette(palette());
        m_weightModel->setTheme(m_theme);
        m_tensorModel->setTheme(m_theme);
        m_inspector->setTheme(m_theme);
        m_context->setTheme(m_theme);
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_options.persistent) {
        QSettings settings;
        settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
        settings.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
    }
    m_context->jobs()->cancelAll();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && isCheckpointUrl(urls.first()))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && isCheckpointUrl(urls.first())) {
        event->acceptProposedAction();
        openPath(urls.first().toLocalFile());
    }
}

void MainWindow::openFileDialog()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastDir")).toString();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Checkpoint"), dir,
                                     tr("Checkpoints (*.gguf *.safetensors *.safetensors.index.json *.bin *.pt "
                                        "*.pth);;GGUF (*.gguf);;safetensors (*.safetensors);;PyTorch (*.bin *.pt "
                                        "*.pth);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    openPath(path);
}

void MainWindow::openFolderDialog()
{
    QSettings settings;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Checkpoint Folder"),
                                                          settings.value(QStringLiteral("lastDir")).toString());
    if (dir.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDir"), dir);
    openPath(dir);
}

void MainWindow::copySelectedName()
{
    const QModelIndex current = m_weightView->currentIndex();
    if (current.isValid())
        QGuiApplication::clipboard()->setText(current.data(WeightTreeModel::FullNameRole).toString());
}

void MainWindow::stepView(int step)
{
    const int n = m_tabs->count();
    if (n > 0)
        m_tabs->setCurrentIndex(((m_tabs->currentIndex() + step) % n + n) % n);
}

void MainWindow::showGuide()
{
    if (m_options.persistent)
        QSettings().setValue(QStringLiteral("guideShown"), true);
    if (!m_guide) {
        m_guide = new GuideDialog(this);
        connect(m_guide, &GuideDialog::viewRequested, this, [this](const QString& name) { showView(name); });
        connect(m_guide, &GuideDialog::walkStepRequested, this, &MainWindow::showWalkStep);
    }
    m_guide->show();
    m_guide->raise();
    m_guide->activateWindow();
}

void MainWindow::showWalkStep(int step)
{
    if (step < 0 || size_t(step) >= walkSteps().size())
        return;
    if (!m_isDemo || !m_snapshot) {
        m_pendingWalkStep = step;
        openDemo();
        return;
    }
    const WalkStep& s = walkSteps()[size_t(step)];
    if (!selectWeight(QString::fromLatin1(s.weight)))
        return;
    m_context->setSelected({selectedWeight(), s.row, s.col});
    showView(QString::fromLatin1(s.view));
}

GuideDialog* MainWindow::guide() const
{
    return m_guide;
}

bool MainWindow::guideShownBefore() const
{
    return QSettings().value(QStringLiteral("guideShown"), false).toBool();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Quantscope"),
                       tr("<h3>Quantscope %1</h3><p>See and check how quantized LLM weights are laid out in memory: "
                          "GGUF, GPTQ, AWQ, bitsandbytes, compressed-tensors and MLX.</p>")
                           .arg(QCoreApplication::applicationVersion().toHtmlEscaped()));
}

} // namespace qsw
