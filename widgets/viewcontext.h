#pragma once
// What every analysis view observes: the open checkpoint, the selected weight, the theme,
// the hovered and selected logical element (linked views: hovering in one highlights in all)
// and the background job runner. Views never talk to each other, only to this.
#include "snapshot.h"
#include "theme.h"

#include <QObject>
#include <QSet>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qs {
class Checkpoint;
struct Imatrix;
struct LogicalWeight;
} // namespace qs

namespace qsw {

class JobRunner;

// A logical element of a weight: (row, col) of its [out, in] matrix. col may be -1 for a
// whole row; row and col -1 for nothing.
struct ElementRef {
    int weight = -1;
    int64_t row = -1;
    int64_t col = -1;
    bool isValid() const { return weight >= 0 && row >= 0; }
    bool operator==(const ElementRef&) const = default;
};

class ViewContext : public QObject {
    Q_OBJECT
public:
    explicit ViewContext(QObject* parent = nullptr);

    std::shared_ptr<const qs::Checkpoint> checkpoint() const { return m_checkpoint; }
    std::shared_ptr<const CheckpointSnapshot> snapshot() const { return m_snapshot; }
    // Index into snapshot()->weights and checkpoint()->weights (the same order); -1 for none.
    int weight() const { return m_weight; }
    const qs::LogicalWeight* logicalWeight() const;
    const WeightRow* weightRow() const;
    const Theme& theme() const { return m_theme; }
    ElementRef hovered() const { return m_hovered; }
    ElementRef selected() const { return m_selected; }
    JobRunner* jobs() const { return m_jobs; }
    // The session of the open checkpoint: the float reference the Error view compares with
    // and checkpoint B the Diff view compares against. Both belong to the open checkpoint:
    // a new checkpoint clears them unless the window keeps them, and dropping the last
    // holder unmaps them.
    std::shared_ptr<const qs::Checkpoint> reference() const { return m_reference; }
    std::shared_ptr<const qs::Checkpoint> comparison() const { return m_comparison; }
    // Where the file dialogs for a reference or B start: the open checkpoint's folder (the
    // folder itself when it was opened as one); empty without a checkpoint.
    QString checkpointFolder() const;
    // The importance matrix the Recipe view opened (analysis/imatrix.h). It stays when another
    // checkpoint opens: one imatrix serves every quantization of the same model.
    std::shared_ptr<const qs::Imatrix> imatrix() const { return m_imatrix; }
    // The weights Verify found errors in (indices of checkpoint()->weights), which the browser
    // marks; cleared with the checkpoint.
    const QSet<int>& flaggedWeights() const { return m_flagged; }
    void setFlaggedWeights(const QSet<int>& weights);
    // Every file the session reads (checkpoint, reference, B, imatrix): what an export must not overwrite.
    std::vector<std::string> inputs() const;

    // Set by the main window. `keepSession`: the reference and B stay (the user chose to
    // keep them for the new checkpoint); otherwise both are cleared.
    void setCheckpoint(std::shared_ptr<const qs::Checkpoint> checkpoint,
                       std::shared_ptr<const CheckpointSnapshot> snapshot, bool keepSession = false);
    // Set by the views that open them and by the window's Close B / Clear Reference.
    void setReference(std::shared_ptr<const qs::Checkpoint> reference);
    void setComparison(std::shared_ptr<const qs::Checkpoint> comparison);
    void setImatrix(std::shared_ptr<const qs::Imatrix> imatrix);
    void setWeight(int weight);
    void setTheme(const Theme& theme);
    // Set by any view; a change of weight clears both.
    void setHovered(const ElementRef& element);
    void setSelected(const ElementRef& element);
    // Asks the window to bring view `name` to the front (e.g. a heatmap click opens the bit map).
    void requestView(const QString& name);
    // Asks the window to select `weight` (an index of checkpoint()->weights) in the browser,
    // which answers with setWeight() (e.g. a row of the diff list).
    void requestWeight(int weight);

signals:
    void checkpointChanged();
    void referenceChanged();
    void comparisonChanged();
    void imatrixChanged();
    void weightChanged(int weight);
    void themeChanged();
    void hoveredChanged(const ElementRef& element);
    void selectedChanged(const ElementRef& element);
    void viewRequested(const QString& name);
    void weightRequested(int weight);
    void flaggedWeightsChanged();

private:
    std::shared_ptr<const qs::Checkpoint> m_checkpoint;
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    std::shared_ptr<const qs::Checkpoint> m_reference;
    std::shared_ptr<const qs::Checkpoint> m_comparison;
    std::shared_ptr<const qs::Imatrix> m_imatrix;
    int m_weight = -1;
    // weightRow()'s row: of weight m_rowOf in the snapshot m_rowSnapshot.
    mutable std::unique_ptr<WeightRow> m_row;
    mutable int m_rowOf = -1;
    mutable const CheckpointSnapshot* m_rowSnapshot = nullptr;
    Theme m_theme;
    ElementRef m_hovered;
    ElementRef m_selected;
    JobRunner* m_jobs = nullptr;
    QSet<int> m_flagged;
};

} // namespace qsw
