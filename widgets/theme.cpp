#include "theme.h"

#include <algorithm>
#include <cmath>

namespace qsw {

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

QColor textOn(const QColor& fill)
{
    return fill.lightness() > 140 ? QColor(0x10, 0x10, 0x10) : QColor(0xf4, 0xf4, 0xf4);
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

Theme Theme::fromPalette(const QPalette& palette)
{
    Theme t;
    t.dark = isDark(palette);
    t.text = palette.color(QPalette::Text);
    t.background = palette.color(QPalette::Base);
    t.mutedText = mix(t.text, t.background, 0.45);
    t.alternate = palette.color(QPalette::AlternateBase);
    t.accent = palette.color(QPalette::Highlight);
    t.groupHeader = mix(t.background, t.accent, t.dark ? 0.22 : 0.12);
    // Hues fixed by meaning (ImHex diff colours), lightness adapted to the background.
    t.ok = t.dark ? QColor(0x6c, 0xc6, 0x7a) : QColor(0x38, 0x8b, 0x42);
    t.warning = t.dark ? QColor(0xf1, 0xc4, 0x0f) : QColor(0x9a, 0x6b, 0x00);
    t.error = t.dark ? QColor(0xff, 0x6b, 0x5b) : QColor(0xc0, 0x39, 0x2b);
    t.floatFormat = t.dark ? QColor(0x9a, 0xb8, 0xd8) : QColor(0x2f, 0x5f, 0x8f);
    t.integerFormat = t.dark ? QColor(0xe0, 0x9f, 0x5a) : QColor(0xa0, 0x52, 0x0a);
    t.blockFormat = t.dark ? QColor(0xb4, 0x9a, 0xe6) : QColor(0x5e, 0x3c, 0x99);
    t.codebookFormat = t.dark ? QColor(0x5f, 0xc9, 0xbd) : QColor(0x00, 0x7a, 0x6e);
    t.clipped = t.dark ? QColor(0xff, 0x6b, 0x5b, 60) : QColor(0xc0, 0x39, 0x2b, 40);
    t.plotGrid = mix(t.background, t.text, t.dark ? 0.18 : 0.12);
    return t;
}

QColor Theme::codeColor(double fraction) const
{
    // Viridis at five stops; on dark backgrounds the darkest end is lifted to stay visible.
    static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x91, 0x8c),
                                   QColor(0x5e, 0xc9, 0x62), QColor(0xfd, 0xe7, 0x25)};
    const double f = std::clamp(fraction, 0.0, 1.0) * 4.0;
    const int i = std::min(int(f), 3);
    const QColor c = mix(stops[i], stops[i + 1], f - i);
    return dark ? mix(c, QColor(Qt::white), 0.18 * (1.0 - fraction)) : c;
}

QColor Theme::elementColor(int index, double codeFraction) const
{
    // Golden-angle hues keep neighbouring elements apart for any tile size.
    const int hue = int(std::lround(std::fmod(200.0 + 137.508 * std::max(index, 0), 360.0)));
    if (codeFraction < 0)
        return QColor::fromHslF(hue / 360.0f, dark ? 0.50f : 0.62f, dark ? 0.50f : 0.72f);
    const double t = std::clamp(codeFraction, 0.0, 1.0);
    // Dark = low code on both palettes; the ends stay apart from the background.
    const double light = dark ? 0.22 + 0.56 * t : 0.30 + 0.55 * t;
    return QColor::fromHslF(hue / 360.0f, 0.62f, float(light));
}

QColor Theme::fieldColor(int field) const
{
    return mix(background, blockFormat, field % 3 == 0 ? 0.42 : field % 3 == 1 ? 0.26 : 0.56);
}

QColor Theme::byteColor(int index) const
{
    return mix(background, elementColor(index), dark ? 0.5 : 0.42);
}

QColor Theme::formatColor(qs::ColourRole role) const
{
    switch (role) {
    case qs::ColourRole::Float: return floatFormat;
    case qs::ColourRole::Integer: return integerFormat;
    case qs::ColourRole::Block: return blockFormat;
    case qs::ColourRole::Codebook: return codebookFormat;
    case qs::ColourRole::None: break;
    }
    return mutedText;
}

QColor Theme::formatColor(const QString& formatId) const
{
    const qs::FormatInfo* info = qs::findFormat(formatId.toStdString());
    return formatColor(info ? info->colour : qs::ColourRole::None);
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80), highlight(0x3d, 0x7e, 0xc9);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3c, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x5b));
    p.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4c));
    p.setColor(QPalette::Midlight, QColor(0x38, 0x3a, 0x3f));
    p.setColor(QPalette::Mid, QColor(0x24, 0x25, 0x28));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6e, 0xa8, 0xf0));
    p.setColor(QPalette::LinkVisited, QColor(0xa8, 0x8e, 0xe6));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x52, 0x56));
    return p;
}

QPalette lightPalette()
{
    QPalette p;
    const QColor window(0xef, 0xf0, 0xf1), base(Qt::white), text(0x23, 0x26, 0x29);
    const QColor disabled(0xa0, 0xa0, 0xa0), highlight(0x30, 0x8c, 0xc6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0xf5, 0xf6, 0xf7));
    p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe8));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xc0, 0x39, 0x2b));
    p.setColor(QPalette::Light, Qt::white);
    p.setColor(QPalette::Midlight, QColor(0xf6, 0xf7, 0xf8));
    p.setColor(QPalette::Mid, QColor(0xc4, 0xc9, 0xcd));
    p.setColor(QPalette::Dark, QColor(0x88, 0x8e, 0x93));
    p.setColor(QPalette::Shadow, QColor(0x47, 0x4a, 0x4c));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x29, 0x80, 0xb9));
    p.setColor(QPalette::LinkVisited, QColor(0x7f, 0x8c, 0x8d));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

} // namespace qsw
