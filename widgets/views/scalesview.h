#pragma once
// Group scales (issue 5, view 3): a heatmap of the selected weight's scales or zeros,
// [groups x output rows], with a colour scale, min/max decimation for huge weights, a
// tooltip naming group, row, scale and zero, and a click that selects the group's first
// element and opens the bit map.
#include "analysisview.h"

#include "analysis/groupscales.h"
#include "figures/scaleheatmap.h"
#include "viewcontext.h"

#include <map>
#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QCPItemRect;

namespace qsw {

class MessageStack;

class ScalesView : public AnalysisView {
    Q_OBJECT
public:
    explicit ScalesView(ViewContext* context, QWidget* parent = nullptr);

    void renderExport(QPainter& painter, const QRect& target) override;
    QString exportCaption() const override;

    // For tests: the plot, the grid it shows, and the scales it came from (null until loaded).
    QCustomPlot* plot() const { return m_plot; }
    const ScaleHeatmap& heatmap() const { return m_heatmap; }
    std::shared_ptr<const qs::GroupScales> scales() const { return m_scales; }
    QString message() const;
    void setField(ScaleField field);
    // The element a plot position points at, as a click would select it.
    ElementRef elementAt(const QPointF& pixel) const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void reload();
    void showScales(int weight, std::shared_ptr<const qs::GroupScales> scales);
    void showMessage(const QString& text);
    void rebuild();
    void updateSelection();
    void hover(QMouseEvent* event);
    void click(QMouseEvent* event);
    bool cellAt(const QPointF& pixel, uint64_t* group, uint64_t* row) const;
    qs::GgufScaleLevel level() const;

    QLabel* m_caption;
    QString m_captionText; // without the decimation note
    QComboBox* m_field;
    QComboBox* m_reduce;
    QComboBox* m_level;
    MessageStack* m_stack;
    QCustomPlot* m_plot;
    QCPItemRect* m_marker = nullptr;
    ScaleHeatmap m_heatmap;
    int m_weight = -1;
    bool m_dirty = true;
    std::shared_ptr<const qs::GroupScales> m_scales;
    // Per weight and GGUF level; cleared with the checkpoint.
    std::map<std::pair<int, int>, std::shared_ptr<const qs::GroupScales>> m_cache;
};

} // namespace qsw
