#pragma once
// Slot order view ("slots"): the slot-order diagram and the word/block bit map of the
// selected weight's format (bits and shape from the weight), or of any registered layout
// spec picked in the format box; fitted to the view or zoomed; exports as vector (SVG/PDF) through renderExport.
#include "analysisview.h"

#include "formats/layoutspec.h"

class QComboBox;
class QLabel;
class QScrollArea;
class QSlider;
class QToolButton;

namespace qsw {

class SlotOrderCanvas;

class SlotOrderView : public AnalysisView {
    Q_OBJECT
public:
    explicit SlotOrderView(ViewContext* context, QWidget* parent = nullptr);
    QSize exportSize() const override;
    void renderExport(QPainter& painter, const QRect& target) override;

    // Shown spec and parameters; nullptr when nothing is shown.
    const qs::LayoutSpec* spec() const { return m_spec; }
    qs::LayoutParams params() const { return m_params; }
    // Picks a registered spec by id (as the format box does); false when unknown.
    bool showFormat(const QString& id);
    double zoom() const;
    // Turns fitting off.
    void setZoom(double zoom);
    // On by default: the zoom follows the view's size so the diagrams fill it.
    bool fitsToView() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void followWeight();
    void rebuildBits();
    void refresh();

    QComboBox* m_format = nullptr;
    QComboBox* m_bits = nullptr;
    QSlider* m_zoom = nullptr;
    QToolButton* m_fit = nullptr;
    bool m_fitting = false;
    QLabel* m_note = nullptr;
    QScrollArea* m_scroll = nullptr;
    SlotOrderCanvas* m_canvas = nullptr;
    const qs::LayoutSpec* m_spec = nullptr;
    qs::LayoutParams m_params;
};

} // namespace qsw
