#include "base/localpath.h"

namespace qs {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 (an overlong form, a surrogate, a
// code point past U+10FFFF or a cut sequence are not valid).
size_t validSequence(std::string_view s, size_t i)
{
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = at(i);
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((at(i + k) & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (at(i + k) & 0x3F);
    }
    const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return n;
}

} // namespace

QString decodeLocalBytes(std::string_view bytes)
{
    QString out;
    size_t i = 0;
    while (i < bytes.size()) {
        const size_t start = i;
        while (i < bytes.size()) {
            const size_t n = validSequence(bytes, i);
            if (n == 0)
                break;
            i += n;
        }
        out += QString::fromUtf8(bytes.data() + start, qsizetype(i - start));
        if (i < bytes.size())
            out += QChar(char16_t(0xDC00 + static_cast<unsigned char>(bytes[i++])));
    }
    return out;
}

std::string encodeLocalBytes(const QString& text)
{
    std::string out;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t u = text[i].unicode();
        const bool escaped = u >= 0xDC80 && u <= 0xDCFF && (i == 0 || !text[i - 1].isHighSurrogate());
        if (!escaped)
            continue;
        out += text.mid(start, i - start).toStdString();
        out += char(u - 0xDC00);
        start = i + 1;
    }
    out += text.mid(start).toStdString();
    return out;
}

} // namespace qs
