#include "container/npy.h"

#include "container/mappedfile.h"
#include "base/atomicfile.h"
#include "base/error.h"

#include <cstdio>
#include <cstring>
#include <string_view>

namespace qs::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string shapeTuple(const std::vector<uint64_t>& shape)
{
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i)
        s += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    return s + ")";
}

// The value after 'key': in the header dict (a Python literal); returns its text.
std::string_view dictValue(std::string_view header, std::string_view key, const std::string& path)
{
    const std::string quoted = "'" + std::string(key) + "'";
    const size_t at = header.find(quoted);
    if (at == std::string_view::npos)
        fail(path, "npy header has no '" + std::string(key) + "'");
    size_t p = header.find(':', at + quoted.size());
    if (p == std::string_view::npos)
        fail(path, "npy header: no ':' after '" + std::string(key) + "'");
    ++p;
    while (p < header.size() && header[p] == ' ')
        ++p;
    size_t end = p;
    if (p < header.size() && header[p] == '(') {
        end = header.find(')', p);
        if (end == std::string_view::npos)
            fail(path, "npy header: unterminated shape");
        ++end;
    } else if (p < header.size() && header[p] == '\'') {
        end = header.find('\'', p + 1);
        if (end == std::string_view::npos)
            fail(path, "npy header: unterminated string");
        ++end;
    } else {
        while (end < header.size() && header[end] != ',' && header[end] != '}')
            ++end;
    }
    return header.substr(p, end - p);
}

} // namespace

unsigned descrItemSize(const std::string& descr)
{
    if (descr == "<f4" || descr == "<i4" || descr == "<u4")
        return 4;
    if (descr == "<f2" || descr == "<i2" || descr == "<u2")
        return 2;
    if (descr == "|u1" || descr == "|i1" || descr == "|b1")
        return 1;
    if (descr == "<f8" || descr == "<i8" || descr == "<u8")
        return 8;
    return 0;
}

uint64_t Array::count() const
{
    uint64_t n = 1;
    for (uint64_t d : shape)
        n *= d;
    return n;
}

void write(const std::string& path, const std::string& descr, const std::vector<uint64_t>& shape,
           std::span<const uint8_t> data)
{
    const unsigned item = descrItemSize(descr);
    if (!item)
        fail(path, "npy: unsupported dtype '" + descr + "'");
    uint64_t count = 1;
    for (uint64_t d : shape)
        count *= d;
    if (count * item != data.size())
        fail(path, "npy: " + std::to_string(data.size()) + " bytes do not match shape " + shapeTuple(shape));
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeTuple(shape) + ", }";
    // Pad with spaces so that data starts on a 64-byte boundary; the header ends in '\n'.
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 65535)
        fail(path, "npy: header too long");
    const uint16_t len = uint16_t(header.size());
    const std::string head = std::string(kMagic, 6) + '\x01' + '\x00' + char(len & 0xFF) + char(len >> 8) + header;
    writeFileAtomically(path, {{reinterpret_cast<const uint8_t*>(head.data()), head.size()}, data});
}

Array read(const std::string& path)
{
    const MappedFile f(path);
    const auto bytes = f.bytes();
    if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
        fail(path, "not a .npy file (bad magic)");
    const uint8_t major = bytes[6];
    uint64_t headerLen, headerStart;
    if (major == 1) {
        headerLen = uint64_t(bytes[8]) | uint64_t(bytes[9]) << 8;
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12)
            fail(path, "npy: truncated header length");
        headerLen =
            uint64_t(bytes[8]) | uint64_t(bytes[9]) << 8 | uint64_t(bytes[10]) << 16 | uint64_t(bytes[11]) << 24;
        headerStart = 12;
    } else {
        fail(path, "npy: unsupported format version " + std::to_string(major));
    }
    if (headerLen > bytes.size() - headerStart)
        fail(path, "npy: header length " + std::to_string(headerLen) + " runs past the end of the file");
    const std::string_view header(reinterpret_cast<const char*>(bytes.data() + headerStart), headerLen);
    Array a;
    std::string_view descr = dictValue(header, "descr", path);
    if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
        fail(path, "npy: descr is not a string");
    a.descr = std::string(descr.substr(1, descr.size() - 2));
    const unsigned item = descrItemSize(a.descr);
    if (!item)
        fail(path, "npy: unsupported dtype '" + a.descr + "'");
    if (dictValue(header, "fortran_order", path) != "False")
        fail(path, "npy: Fortran order is not supported");
    std::string_view shape = dictValue(header, "shape", path);
    if (shape.size() < 2 || shape.front() != '(')
        fail(path, "npy: shape is not a tuple");
    shape = shape.substr(1, shape.size() - 2);
    uint64_t count = 1;
    while (!shape.empty()) {
        while (!shape.empty() && (shape.front() == ' ' || shape.front() == ','))
            shape.remove_prefix(1);
        if (shape.empty())
            break;
        uint64_t d = 0;
        size_t i = 0;
        for (; i < shape.size() && shape[i] >= '0' && shape[i] <= '9'; ++i) {
            if (d > (UINT64_MAX - 9) / 10)
                fail(path, "npy: shape dimension overflows");
            d = d * 10 + uint64_t(shape[i] - '0');
        }
        if (i == 0)
            fail(path, "npy: bad shape '" + std::string(shape) + "'");
        if (d != 0 && count > UINT64_MAX / d)
            fail(path, "npy: shape product overflows");
        count *= d;
        a.shape.push_back(d);
        shape.remove_prefix(i);
    }
    const uint64_t dataStart = headerStart + headerLen;
    if (count > (bytes.size() - dataStart) / item || count * item != bytes.size() - dataStart)
        fail(path,
             "npy: " + std::to_string(bytes.size() - dataStart) + " data bytes, the shape needs "
                 + std::to_string(count) + " items of " + std::to_string(item));
    a.data.assign(bytes.begin() + std::ptrdiff_t(dataStart), bytes.end());
    return a;
}

} // namespace qs::npy
