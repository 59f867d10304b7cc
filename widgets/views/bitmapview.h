#pragma once
// View 1, the bit map: what each bit of each stored word means. Words (GGUF: blocks, field by
// field) are rows of bit cells coloured by logical element; hovering names the word, bit
// range, element (row, col), code, group, scale, zero and dequantized value, and is shared
// with every other view through the ViewContext. Toggles between stored and logical order.
#include "analysisview.h"
#include "bitmapcanvas.h"

#include <memory>
#include <vector>

class QBoxLayout;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace qs {
class WordMap;
}

namespace qsw {

class MessageStack;

struct ElementRef;

class BitMapView : public AnalysisView {
    Q_OBJECT
public:
    explicit BitMapView(ViewContext* context, QWidget* parent = nullptr);
    ~BitMapView() override;

    BitMapCanvas* canvas() const { return m_canvas; }
    // "as stored" (true) or "logical matrix" order; the toggle in the tool row.
    void setStoredOrder(bool stored);
    // Accepts a word index ("1234") or an element ("row, col"); false when it cannot parse or
    // lies outside the weight, and goToProblem() (shown beside the box) says which.
    bool goTo(const QString& text);
    QString goToProblem() const;
    // The text of the side panel and of the message shown instead of the map (for tests).
    QString detailsText() const;
    QString messageText() const;

    // Exports draw the canvas's figure alone: whole rows (every bit of every word, every column
    // of the matrix), the whole tensor when it is small, else the rows in view.
    QSize exportSize() const override;
    void renderExport(QPainter& painter, const QRect& target) override;
    QString exportCaption() const override;
    QString exportProblem() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void onHovered(std::optional<BitMapHit> hit);
    void onClicked(const BitMapHit& hit);
    void showElement(const ElementRef& element);
    void stepSelection(int rows, int cols);
    void setGoToProblem(const QString& problem);
    // Panel rows: a stored word in hex and binary, and a block's decoded fields.
    QString wordLines(uint64_t word) const;
    QString blockLines(uint64_t row, uint64_t col, bool wholeBlock, const QString& onlyField) const;
    void applyTheme();
    // The rows an export draws: [first, first + count).
    std::pair<uint64_t, uint64_t> exportRows() const;

    BitMapCanvas* m_canvas;
    MessageStack* m_stack;
    QBoxLayout* m_body = nullptr;
    QLabel* m_details;
    QLabel* m_summary;
    QComboBox* m_order;
    QSpinBox* m_zoom;
    QLineEdit* m_goTo;
    QLabel* m_goToMessage;
    std::shared_ptr<const qs::WordMap> m_map;
    BitMapHit m_lastHit;
    bool m_hasHit = false;
    // One dequantized row for the hover text; the rest of the tensor is never decoded here.
    uint64_t m_cachedRow = ~uint64_t(0);
    std::vector<float> m_rowValues;
    QString m_rowError;
};

} // namespace qsw
