#pragma once
// The slot-order diagram: which logical element of a format goes to which slot, nibble or
// bit range of its stored words, drawn from LayoutSpec::locate() alone (no per-format code):
// logical elements on top, the words' bit cells below (MSB left, as the Bit map draws them),
// a curve from each element to each of its bit pieces, colour by element (Theme::elementColor
// of its tile index, as every view), bit numbers and a legend. A small block (Q4_0, Q8_0) is
// drawn whole; of a large one the first elements and the words holding them, and the figure
// says what it leaves out. Vector-friendly (QPainter only): exports to SVG and PDF as PNG.
#include "formats/layoutspec.h"
#include "theme.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

class QPainter;

namespace qsw {

// The elements and words a diagram shows, chosen from the spec's locate() answers.
struct SlotDiagram {
    struct Element {
        uint64_t row = 0, col = 0;
        QString label;
        int slot = -1;
        int colour = 0; // its tile index (qs::WordMap::tileIndex): Theme::elementColor's index
        std::vector<qs::BitPiece> pieces;
    };
    QString tensor; // role of the tensor holding the codes
    int wordBits = 32;
    std::vector<uint64_t> words; // shown words, ascending
    std::vector<Element> elements; // in logical order along the pack axis
    QString error; // non-empty when the spec cannot be drawn at these params
    QString elided; // what a large block's diagram leaves out; empty when whole
    uint32_t blockBytes = 0; // block formats: bytes per block (fields are coloured), else 0

    static SlotDiagram build(const qs::LayoutSpec& spec, const qs::LayoutParams& params);
    // Index in `elements` of the element owning bit `bit` of word `word`, or -1.
    int elementAt(uint64_t word, int bit) const;
    // Index in spec.blockFields of the field holding bit `bit` of word `word`, or -1.
    int fieldAt(const qs::LayoutSpec& spec, uint64_t word, int bit) const;
};

class SlotOrderFigure {
public:
    SlotOrderFigure(const qs::LayoutSpec& spec, const qs::LayoutParams& params);
    const SlotDiagram& diagram() const { return m_diagram; }
    // The natural size in logical pixels; paint() scales uniformly to fit any target.
    QSizeF naturalSize() const;
    void paint(QPainter& painter, const QRectF& target, const Theme& theme) const;
    // The cell of bit `bit` of shown word `word` in natural coordinates (MSB on the left);
    // empty when the word is not shown.
    QRectF bitRect(uint64_t word, int bit) const;

private:
    double stripWidth() const;
    std::vector<double> wordLefts() const;
    static QFont baseFont(); // the labels' and legend's font
    QString slotOrderText() const;
    QStringList legendLines() const;
    double legendHeight(double width) const;
    // The stored words' cells, pieces and labels; the logical elements above them with their curves.
    void paintStrip(QPainter& painter, const Theme& theme, const QFont& base, const QFont& small) const;
    void paintElements(QPainter& painter, const Theme& theme, const QFont& base, const QFont& small) const;

    const qs::LayoutSpec& m_spec;
    qs::LayoutParams m_params;
    SlotDiagram m_diagram;
    double m_cell = 14;
};

} // namespace qsw
