#pragma once
// File names on Linux are bytes, not text: a name that is not valid UTF-8 must still reach the
// file system byte for byte. Between bytes and QString (the command line, messages), each byte
// that does not decode as UTF-8 is kept as the lone code unit U+DC80 + byte, as Python's
// surrogateescape does; encoding turns those back into the bytes and everything else into UTF-8.
#include <QString>

#include <string>
#include <string_view>

namespace qs {

QString decodeLocalBytes(std::string_view bytes);
std::string encodeLocalBytes(const QString& text);

} // namespace qs
