#pragma once
// One stored word (or one GGUF block) as a bit map with its fields labelled: for block
// formats the spec's blockFields, byte by byte with bit ticks; for word formats the codes
// that locate() places in the first word, slot by slot. Drawn from the LayoutSpec only.
#include "figures/slotorderfigure.h"

namespace qsw {

class WordFigure {
public:
    WordFigure(const qs::LayoutSpec& spec, const qs::LayoutParams& params);
    QSizeF naturalSize() const;
    void paint(QPainter& painter, const QRectF& target, const Theme& theme) const;
    bool isBlock() const { return !m_spec.blockFields.empty() && m_blockBytes > 0; }

private:
    void paintBlock(QPainter& painter, const Theme& theme) const;
    void paintWord(QPainter& painter, const Theme& theme) const;

    const qs::LayoutSpec& m_spec;
    qs::LayoutParams m_params;
    SlotDiagram m_diagram;
    uint32_t m_blockBytes = 0;
};

} // namespace qsw
