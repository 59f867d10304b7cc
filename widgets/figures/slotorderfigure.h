#pragma once
// The slot-order diagram: which logical element of a format goes to which slot, nibble or
// bit range of its stored words, drawn from LayoutSpec::locate() alone (no per-format code):
// logical elements on top, the words' bit cells below, a curve from each element to each of
// its bit pieces, colour by element, bit numbers and a legend. Vector-friendly (QPainter
// only), so it exports to SVG and PDF as well as PNG.
#include "formats/layoutspec.h"
#include "theme.h"

#include <QColor>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <cstdint>
#include <vector>

class QPainter;

namespace qsw {

// Distinct colours by index (golden-ratio hue steps), readable on the theme's background.
QColor itemColor(int index, const Theme& theme);
// Black or white, whichever reads better on `fill`.
QColor textOn(const QColor& fill);

// The elements and words a diagram shows, chosen from the spec's locate() answers.
struct SlotDiagram {
    struct Element {
        uint64_t row = 0, col = 0;
        QString label;
        int slot = -1;
        std::vector<qs::BitPiece> pieces;
    };
    QString tensor;           // role of the tensor holding the codes
    int wordBits = 32;
    std::vector<uint64_t> words;   // shown words, ascending
    std::vector<Element> elements; // in logical order along the pack axis
    QString error;                 // non-empty when the spec cannot be drawn at these params

    static SlotDiagram build(const qs::LayoutSpec& spec, const qs::LayoutParams& params);
    // Index in `elements` of the element owning bit `bit` of word `word`, or -1.
    int elementAt(uint64_t word, int bit) const;
};

class SlotOrderFigure {
public:
    SlotOrderFigure(const qs::LayoutSpec& spec, const qs::LayoutParams& params);
    const SlotDiagram& diagram() const { return m_diagram; }
    // The natural size in logical pixels; paint() scales uniformly to fit any target.
    QSizeF naturalSize() const;
    void paint(QPainter& painter, const QRectF& target, const Theme& theme) const;

private:
    const qs::LayoutSpec& m_spec;
    qs::LayoutParams m_params;
    SlotDiagram m_diagram;
    double m_cell = 14;
};

} // namespace qsw
