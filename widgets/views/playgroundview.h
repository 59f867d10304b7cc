#pragma once
// The quantization playground (issue 5, view 7): a row of real weights or a synthetic
// distribution, quantized and packed as a chosen storage format does it. Shows the affine
// map (bucket edges, code levels, clamped range, scale and zero), the buckets (values
// coloured by code), the codes of the row, the packed words and the error, updating live.
// Every number comes from core/analysis/playground.h; this view only draws.
// A weight selected in the browser sets the target, bits, group size and symmetry to its own
// (when a target writes its format), and the summary says whether the codes computed from the
// row reproduce the stored ones. Every packed word of the inspected group is shown (scrolling).
// Block formats (GGUF Q4_0, Q4_1, Q8_0, Q4_K, bnb NF4/FP4) come from core's quantizer of the format:
// their levels, the block's fields decoded and the block's bytes as the Bit map draws them; bnb's
// at any blocksize it takes, with plain or nested absmax.
#include "analysisview.h"

#include "analysis/playground.h"
#include "formats/codes.h"
#include "viewcontext.h"

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPAxisRect;
class QCPTextElement;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QTimer;

namespace qsw {

class PlaygroundWords;

class PlaygroundView : public AnalysisView {
    Q_OBJECT
public:
    enum class Source { WeightRow, Normal, NormalOutliers, Uniform, Laplace };

    explicit PlaygroundView(ViewContext* context, QWidget* parent = nullptr);
    ~PlaygroundView() override;

    QSize exportSize() const override;
    void renderExport(QPainter& painter, const QRect& target) override;
    bool hasPendingWork() const override;

    // The settings; each setter schedules a (debounced) recomputation.
    void setSource(Source source);
    void setRow(int row);
    void setSeed(int seed);
    void setLength(int length);
    // The affine format the Playground quantizes to (one of playgroundAffineFormats()).
    void setTarget(const qs::FormatInfo& format);
    // A block format of qs::playgroundBlockFormats() (GGUF Q4_0 ..., bnb NF4/FP4) as the target.
    void setBlockFormat(const qs::FormatInfo* format);
    // The block format chosen; nullptr for an affine target.
    const qs::FormatInfo* blockFormat() const;
    void setBits(int bits);
    void setGroupSize(int groupSize); // 0: the whole row
    void setSymmetric(bool symmetric);
    // Block formats that offer them (bitsandbytes): elements per block and nested absmax.
    void setBlocksize(int blocksize);
    void setNested(bool nested);
    void setClipRatio(double ratio); // 0.05 .. 1
    void setInspectedGroup(int group);

    // Computes now instead of after the debounce (tests, screenshots). Big inputs still run
    // as a background job.
    void recompute();
    // The result on screen; null before the first computation or after a failure.
    std::shared_ptr<const qs::PlaygroundResult> result() const { return m_result; }
    int inspectedGroup() const;
    QString errorText() const;
    // The codes check of the result on screen: matching codes of the focus row, and the row
    // length; matched < 0 when they were not compared (settings not the weight's own).
    // Affine formats also compare the row's scales with the stored ones (storedScales: one per
    // group of the row, as the file holds them).
    struct CodeCheck {
        qint64 matched = -1;
        uint64_t total = 0;
        std::vector<float> storedScales;
        uint64_t scalesMatched = 0;
    };
    CodeCheck codeCheck() const { return m_codeCheck; }
    // The settings match the selected weight's own format, bits, group size and symmetry.
    bool matchesWeight() const;
    // Below this many values a synthetic source is computed on the GUI thread.
    static constexpr uint64_t kSyncLimit = 65536;
    // The most values a weight's rows may give the playground: as many as a synthetic source.
    static constexpr uint64_t kMaxRowValues = uint64_t(1) << 26;

    // Hovering the row plot or a packed field of row `blockRow` (0: the focus row), column
    // `col`; -1 for nothing. When the rows come from the selected weight this sets the
    // context's hovered element, so the bit map outlines the same element.
    void hoverElement(qint64 blockRow, qint64 col);
    PlaygroundWords* words() const { return m_words; }
    // An act-order weight's row at its own settings is quantized in g_idx order, so that the
    // playground's group g is the stored group g: the weight column at each position of the row
    // shown (empty: position k is column k).
    const std::vector<uint64_t>& shownColumns() const { return m_shownColumns; }

signals:
    void resultChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    ElementRef weightElement(qint64 blockRow, qint64 col) const;
    // Position <-> weight column of the row shown (m_shownColumns).
    uint64_t weightColumn(uint64_t position) const;
    std::optional<uint64_t> positionOf(uint64_t column) const;
    // Follows an element selected in another view: its row, and the group holding it.
    void followSelection(const ElementRef& element);
    void showLinkedHover(const ElementRef& element);
    void buildControls();
    QGridLayout* buildPlots();
    void connectControls();
    void scheduleRecompute();
    void setResult(std::shared_ptr<const qs::PlaygroundResult> result);
    void showError(const QString& message);
    void updateSourceControls();
    void updateWeight();
    void matchWeight();
    void applyTheme();
    void redraw();
    void replotVisible();
    void drawMap(const qs::PlaygroundGroup& group);
    void drawBuckets(const qs::PlaygroundGroup& group);
    void drawRow();
    void updateWords();
    void updateSummary();
    qs::PlaygroundOptions options() const;
    // The block format chosen, as playgroundBlockFormats() lists it; nullptr for an affine target.
    const qs::PlaygroundBlockFormat* blockChoice() const;
    const qs::PlaygroundAffineFormat* affineChoice() const; // nullptr: a block format is chosen
    // Shows the block size and nested controls the chosen block format offers (its sizes listed).
    void updateBlockControls();
    QString settingsCaption() const;
    QString rowName(uint64_t blockRow) const;
    // "group 3", "block 2", "sub-block 3 of block 0"; the group's block fields decoded.
    QString groupName(const qs::PlaygroundGroup& group) const;
    QString blockFieldsText(const qs::PlaygroundGroup& group, bool rich) const;

    QComboBox* m_source = nullptr;
    QSpinBox* m_row = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_length = nullptr;
    QLabel* m_rowLabel = nullptr;
    QLabel* m_seedLabel = nullptr;
    QLabel* m_lengthLabel = nullptr;
    QComboBox* m_target = nullptr;
    QSpinBox* m_bits = nullptr;
    QComboBox* m_groupSize = nullptr;
    QCheckBox* m_symmetric = nullptr;
    QLabel* m_groupSizeLabel = nullptr;
    QComboBox* m_blocksize = nullptr; // in the group size's place when the block format offers sizes
    QLabel* m_blocksizeLabel = nullptr;
    QCheckBox* m_nested = nullptr; // in the symmetric box's place when it offers nested scales
    QSlider* m_clip = nullptr;
    QLabel* m_clipValue = nullptr;
    QSpinBox* m_group = nullptr;
    QLabel* m_groupLabel = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_error = nullptr;
    QCustomPlot* m_map = nullptr;
    QCustomPlot* m_buckets = nullptr;
    QCustomPlot* m_row_plot = nullptr;
    QCPAxisRect* m_codesRect = nullptr;
    QCPAxisRect* m_errorRect = nullptr;
    QCPTextElement* m_mapTitle = nullptr;
    QCPTextElement* m_bucketsTitle = nullptr;
    QCPTextElement* m_rowTitle = nullptr;
    PlaygroundWords* m_words = nullptr;
    QWidget* m_wordsArea = nullptr; // the scroll area around m_words
    QTimer* m_debounce = nullptr;

    std::shared_ptr<const qs::PlaygroundResult> m_result;
    // The rows of the result on screen: weight index (-1: synthetic), first row, row count.
    int m_shownWeight = -1;
    uint64_t m_shownBlockStart = 0;
    uint64_t m_shownWeightRows = 0;
    std::vector<uint64_t> m_shownColumns;
    ElementRef m_ownHover; // the context's hovered element when this view set it
    uint64_t m_blockStart = 0; // first weight row of the block (weight source)
    uint64_t m_blockRowsOfWeight = 0;
    bool m_building = false;
    bool m_stale = true; // a recompute was asked for while hidden
    int m_wantedGroup = 0; // kept while the spin box's range is smaller
    int m_matchedWeight = -1; // the weight whose settings were taken
    CodeCheck m_codeCheck;
    // The stored codes of the weight m_codesWeight, read once for the codes check.
    std::shared_ptr<const qs::WeightCodes> m_codes;
    int m_codesWeight = -1;
    std::vector<qs::PlaygroundAffineFormat> m_affineFormats; // the format box's affine formats, data 0, 1, ...
    std::vector<qs::PlaygroundBlockFormat> m_blockFormats; // the format box's block formats
};

} // namespace qsw
