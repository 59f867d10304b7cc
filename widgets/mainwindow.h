#pragma once
// The main window: a tensor browser dock, an inspector dock, and central tabs (stored
// tensors, metadata; the bit-map and analysis views join as further tabs). Checkpoints
// open on a worker thread; the window shows immutable snapshots of what they hold.
#include "snapshot.h"
#include "theme.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include <memory>
#include <string>
#include <vector>

class QFileSystemWatcher;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QSortFilterProxyModel;
class QTabWidget;
class QTimer;
class QToolButton;
class QTreeView;

namespace qs {
class Checkpoint;
struct FolderCandidate;
} // namespace qs

namespace qsw {

class AnalysisView;
class GuideDialog;
class Inspector;
class JobRunner;
class MetadataModel;
class NaturalSortProxy;
class TensorTableModel;
class ViewContext;
class WeightTreeModel;

enum class ThemeMode { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // What happens to the reference and checkpoint B when another checkpoint opens.
    enum class SessionCarry {
        Ask, // close them, and offer to keep them (keepSessionBox)
        Keep, // keep them for the new checkpoint
        Close, // close them
    };
    struct Options {
        bool persistent = true; // read and write settings: geometry, state, theme, recent files (off for screenshots)
        SessionCarry carry = SessionCarry::Ask;
    };
    static const QString kLoadJob; // the job that opens a checkpoint (JobRunner::Kind::Io)
    explicit MainWindow(QWidget* parent = nullptr);
    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens on a worker thread; emits checkpointOpened or openFailed. On failure the
    // previous checkpoint stays open.
    void openPath(const QString& path);
    void openDemo();
    bool isLoading() const;
    // Loading, any background job running, or a view's debounced work pending.
    bool isBusy() const;
    // Waits (processing events) until nothing runs in the background; false on timeout.
    bool waitForIdle(int timeoutMs);

    std::shared_ptr<const qs::Checkpoint> checkpoint() const { return m_checkpoint; }
    std::shared_ptr<const CheckpointSnapshot> snapshot() const { return m_snapshot; }
    bool isDemo() const { return m_isDemo; }
    // Closes the checkpoint with its reference and B (Ctrl+W); the window stays open and
    // every mapped file is released once the last job on it has finished.
    void closeCheckpoint();
    // The offer to keep the previous checkpoint's reference and B (SessionCarry::Ask);
    // nullptr when none is shown. Its "Keep" button restores them.
    QMessageBox* keepSessionBox() const { return m_keepBox; }

    // Central views by stable name, the tabs in the order of viewRows() (views/viewregistry.h);
    // false when unknown.
    QStringList viewNames() const;
    bool showView(const QString& name);
    QString currentView() const;
    // Selects a logical weight (by name or a member tensor's name); false when absent.
    bool selectWeight(const QString& name);
    int selectedWeight() const;

    // Reopens the checkpoint from its path (File > Reload), keeping the selected weight (when it is
    // still there) and the view.
    void reload();
    // Why the open checkpoint's files can no longer be trusted (they changed on disk while open),
    // shown in a bar above the views with a Reload button; empty while they are as opened.
    QString changedOnDisk() const;

    // The in-app guide (Help > Guide, F1); a "view:NAME" link in it shows that view.
    void showGuide();
    // Step N of the guide's walk (walkSteps()): opens the demo first when another checkpoint (or
    // none) is open, then selects the step's weight and element and shows its view.
    void showWalkStep(int step);
    GuideDialog* guide() const;
    // Whether the guide was shown in an earlier session (the application shows it on the first start).
    bool guideShownBefore() const;

    void setThemeMode(ThemeMode mode);
    ThemeMode themeMode() const { return m_themeMode; }
    const Theme& theme() const { return m_theme; }

    QStringList recentFiles() const;
    QString lastError() const { return m_lastError; }
    QMessageBox* errorBox() const { return m_errorBox; }

    WeightTreeModel* weightModel() const { return m_weightModel; }
    QSortFilterProxyModel* weightProxy() const;
    TensorTableModel* tensorModel() const { return m_tensorModel; }
    MetadataModel* metadataModel() const { return m_metadataModel; }
    QTreeView* weightView() const { return m_weightView; }
    QLineEdit* filterEdit() const { return m_filter; }
    ViewContext* viewContext() const { return m_context; }
    JobRunner* jobRunner() const;
    AnalysisView* analysisView(const QString& name) const; // nullptr when unknown
    // Exports the current analysis view (PNG, SVG or PDF by extension), or the current tab's
    // table for .csv (exportCurrentTable).
    bool exportCurrentView(const QString& path, QString* error);
    // Whether a file may be written at `path` (the output guard, outputfile.h): never over or
    // into what the window has open (the checkpoint with every file it read, the Error view's
    // reference, the Diff view's B, the imatrix), never over anything but a regular file.
    // False with `error` naming the path and why.
    bool checkOutputFile(const QString& path, QString* error) const;
    // The window as a PNG at `path` (--screenshot), through the same guard. False with `error` set.
    bool saveScreenshot(const QString& path, QString* error);
    // Exports the current tab's table as CSV (tablecsv.h: for a parser, in any UI language): the
    // stored tensors (as filtered and sorted), the metadata, the Diff view's list, Verify's
    // findings, the Recipe's weights, the Error view's statistics. Atomic, never over an input.
    bool exportCurrentTable(const QString& path, QString* error);
    // Writes the open checkpoint's report (.html, .md, .pdf) as a background job "report"
    // with progress and cancel; atomic. Emits reportExported or shows the failure. The
    // Error view's reference, when one is loaded, gives the error statistics; `weight`
    // (a name) restricts the report to that weight, empty: every weight.
    void exportReport(const QString& path, const QString& weight = {});

    // Adds `path` to a recent-files list: most recent first, no duplicates, missing
    // paths pruned, at most 10.
    static QStringList updatedRecentFiles(QStringList list, const QString& path);

signals:
    void checkpointOpened(const QString& path);
    void openFailed(const QString& path, const QString& message);
    void reportExported(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct LoadResult {
        std::shared_ptr<const qs::Checkpoint> checkpoint;
        std::shared_ptr<const CheckpointSnapshot> snapshot;
        QString path;
        QString error;
        bool demo = false;
        std::vector<qs::FolderCandidate> candidates; // a folder of several checkpoints: the user picks one
    };

    void createActions();
    void createDocks();
    void createCentralViews();
    void createStatusBar();
    void startLoad(const QString& path, bool demo, const std::vector<std::string>& chosen = {});
    // Lists a folder's checkpoints (a non-blocking dialog) and opens the one the user picks.
    void askFolderChoice(const LoadResult& result);
    void loadFinished(const LoadResult& result);
    void showSnapshot(const LoadResult& result);
    void showError(const QString& path, const QString& message);
    void updateStatus();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void onWeightSelectionChanged();
    void updateHiddenSelectionNote();
    void applyTheme();
    void openFileDialog();
    void openFolderDialog();
    void copySelectedName();
    void showAbout();
    void stepView(int step);
    void exportViewDialog();
    void exportTableDialog();
    QString currentTableCsv() const;
    void updateJobStatus();
    void updateMemory();
    void updateFetched(); // a remote checkpoint's bytes in the cache against its size
    void openUrlDialog();
    void updateSessionActions();
    void fetchMoreMetadata();
    void fitWeightColumns();
    void offerToKeepSession(std::shared_ptr<const qs::Checkpoint> reference,
                            std::shared_ptr<const qs::Checkpoint> comparison);
    // Shows or hides the changed-on-disk bar from what the open checkpoint's mappings say.
    void checkChangedOnDisk();
    void watchFiles();

    Options m_options;
    std::shared_ptr<const qs::Checkpoint> m_checkpoint;
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    bool m_isDemo = false;
    QString m_loadingPath;
    QString m_lastError;
    QPointer<QMessageBox> m_errorBox;
    QPointer<QMessageBox> m_keepBox;
    QPointer<GuideDialog> m_guide;

    ThemeMode m_themeMode = ThemeMode::System;
    Theme m_theme;
    bool m_applyingTheme = false;

    WeightTreeModel* m_weightModel = nullptr;
    NaturalSortProxy* m_weightProxy = nullptr;
    TensorTableModel* m_tensorModel = nullptr;
    NaturalSortProxy* m_tensorProxy = nullptr;
    MetadataModel* m_metadataModel = nullptr;
    NaturalSortProxy* m_metadataProxy = nullptr;

    QTreeView* m_weightView = nullptr;
    QTreeView* m_tensorView = nullptr;
    QTreeView* m_metadataView = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_hiddenSelectionNote = nullptr; // under the filter when it hides the selected weight
    Inspector* m_inspector = nullptr;
    QTabWidget* m_tabs = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_fileLabel = nullptr;
    QLabel* m_countLabel = nullptr;
    QLabel* m_sizeLabel = nullptr;
    QLabel* m_mappedLabel = nullptr;
    QLabel* m_memoryLabel = nullptr; // private memory of the process
    QLabel* m_residentLabel = nullptr; // checkpoint pages in RAM
    QLabel* m_fetchedLabel = nullptr; // a remote checkpoint's bytes fetched
    ViewContext* m_context = nullptr;
    QList<AnalysisView*> m_views;
    QLabel* m_jobLabel = nullptr;
    QProgressBar* m_jobProgress = nullptr;
    QToolButton* m_jobCancel = nullptr;
    QTimer* m_jobTimer = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_exportTableAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_closeCheckpointAction = nullptr;
    QAction* m_closeBAction = nullptr;
    QAction* m_clearReferenceAction = nullptr;
    QAction* m_themeActions[3] = {};
    // A converter rewriting the open files: the watcher notices, a short pause lets the writes
    // settle, then checkChangedOnDisk.
    QFileSystemWatcher* m_fileWatcher = nullptr;
    QTimer* m_changedTimer = nullptr;
    QWidget* m_changedBar = nullptr;
    QLabel* m_changedLabel = nullptr;
    QString m_changedWhy;
    QString m_reloadWeight; // the weight to select again once a reload has opened
    bool m_returnMemoryWhenIdle = false; // a checkpoint closed while jobs ran (closeCheckpoint)
    int m_pendingWalkStep = -1; // the guide's walk step to show once the demo has opened
};

} // namespace qsw
