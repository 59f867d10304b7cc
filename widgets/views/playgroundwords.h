#pragma once
// The playground's packed words: each stored word as a row of 32 bit cells (bit 31 on the
// left), coloured by the element that owns the bits (hue by element, lightness by code),
// with the word's index and hex value and a label under every field. Padding bits are grey.
#include "analysis/playground.h"
#include "theme.h"

#include <QWidget>

#include <vector>

namespace qsw {

class PlaygroundWords : public QWidget {
    Q_OBJECT
public:
    struct Content {
        QString title;                        // what the words are
        QString note;                         // slot order, straddling, or why nothing is shown
        std::vector<qs::PlaygroundWord> words;
        int bits = 4;
        bool packsRows = false;               // fields belong to several output rows (AWQ)
        std::vector<QString> rowNames;        // label of each block row
        uint64_t focusBegin = 0, focusEnd = 0; // focus-row columns outlined
    };

    explicit PlaygroundWords(QWidget* parent = nullptr);
    void setContent(Content content);
    void setTheme(const Theme& theme);
    const Content& content() const { return m_content; }

    // Paints into `rect`; used by paintEvent and by vector export.
    void paint(QPainter& painter, const QRect& rect) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString fieldLabel(const qs::PlaygroundField& f) const;

    Content m_content;
    Theme m_theme;
};

} // namespace qsw
