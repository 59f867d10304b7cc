#pragma once
// Colours by meaning, derived once from the palette (Okteta's helper.hpp idea): views ask
// for "warning" or "quantized", never for a literal colour, so dark and light both work.
#include "formats/formatid.h"

#include <QColor>
#include <QPalette>
#include <QString>

namespace qsw {

struct Theme {
    bool dark = false;
    QColor text;
    QColor mutedText; // secondary labels, padding, units
    QColor background;
    QColor alternate; // alternating tint for groups and blocks
    QColor accent; // selection outline, links
    QColor groupHeader; // tree rows that group a layer
    QColor ok; // checks that passed
    QColor warning; // disagreements between config and tensors
    QColor error; // failed checks, unreadable tensors
    QColor floatFormat; // unquantized weights (f32, f16, bf16, f8)
    QColor integerFormat; // grouped integer codes (GPTQ, AWQ, MLX, compressed-tensors)
    QColor blockFormat; // GGUF block formats
    QColor codebookFormat; // NF4/FP4 and IQ grids

    QColor clipped; // values clamped to an end code, and the range beyond the grid
    QColor plotGrid; // plot grid lines, bucket edges

    static Theme fromPalette(const QPalette& palette);
    // Integer codes from low (0) to high (1): a perceptual ramp readable on both palettes.
    QColor codeColor(double fraction) const;
    // THE colour of a logical element in every view that draws stored bits (Bit map, Slot
    // order, the block figure, the Playground's words, the report's figures): hue by the
    // element's place in its layout's repeating tile (qs::WordMap::tileIndex; slot order
    // shows as a hue sequence), lightness by its code's fraction in [0, 1], or a mid tone
    // for diagrams that draw no code (codeFraction < 0).
    QColor elementColor(int index, double codeFraction = -1) const;
    // A block struct's field (d, dmin, scales, ...; qs::BlockField index) where no element's
    // code lies: muted tints of the block colour, apart from the element hues.
    QColor fieldColor(int field) const;
    // Behind hex digits (the Bit map's bytes mode): a block field's or a word slot's light tint of
    // elementColor(index), distinct for every index and readable under text in either theme.
    QColor byteColor(int index) const;
    // The colour of a format's colour role (qs::FormatInfo::colour), and of a registered
    // format id's role (mutedText when the id is not registered).
    QColor formatColor(qs::ColourRole role) const;
    QColor formatColor(const QString& formatId) const;
};

// Fusion's own palettes are grey; these are ours, used with the Fusion style.
QPalette darkPalette();
QPalette lightPalette();
// A palette is dark when its window colour has lightness below 128.
bool isDark(const QPalette& palette);
// Blends `a` towards `b` by t in [0, 1]; keeps derived colours readable on either palette.
QColor mix(const QColor& a, const QColor& b, double t);
// `c` with alpha `alpha` (0..255).
QColor withAlpha(QColor c, int alpha);
// Black or white, whichever reads better on `fill`.
QColor textOn(const QColor& fill);

} // namespace qsw
