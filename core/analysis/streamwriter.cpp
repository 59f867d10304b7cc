#include "analysis/streamwriter.h"

#include "container/json.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "base/intmath.h"

namespace qs {

GgufStreamWriter::GgufStreamWriter(const std::string& path, const GgufMetadata& metadata,
                                   const std::vector<GgufTensor>& tensors, uint32_t version)
    : m_file(path)
    , m_layout(layoutGguf(path, metadata, tensors, version))
{
    for (const GgufTensor& t : tensors)
        m_names.push_back(t.name);
    m_file.write(m_layout.head);
}

void GgufStreamWriter::append(std::span<const uint8_t> data)
{
    const std::string& path = m_file.path();
    if (m_next >= m_names.size())
        fail(path, "more tensor data than the " + std::to_string(m_names.size()) + " tensors laid out");
    const size_t i = m_next++;
    if (data.size() != m_layout.sizes[i])
        throw Error(ErrorContext{path, {}, m_names[i]},
                    "data holds " + std::to_string(data.size()) + " bytes, its type and ne need "
                        + std::to_string(m_layout.sizes[i]));
    m_file.write(data);
    const uint64_t end = i + 1 < m_names.size() ? m_layout.head.size() + m_layout.offsets[i + 1] : m_layout.fileSize;
    m_file.writeZeros(end - m_file.size());
}

void GgufStreamWriter::finish() const
{
    if (m_next != m_names.size())
        fail(m_file.path(), "tensor '" + m_names[m_next] + "' was laid out but its data never came");
}

void GgufStreamWriter::commit()
{
    finish();
    m_file.commit();
}

uint64_t SafetensorsStreamWriter::entryBound(std::string_view name, size_t rank)
{
    // ,"<name escaped>":{"dtype":"XXXX","shape":[<rank x 20 digits + commas>],"data_offsets":[<20>,<20>]}
    return 6 * name.size() + 2 + 64 + rank * 21 + 42;
}

uint64_t SafetensorsStreamWriter::metadataBound(const std::map<std::string, std::string>& metadata)
{
    uint64_t n = 32;
    for (const auto& [k, v] : metadata)
        n += 6 * (k.size() + v.size()) + 8;
    return n;
}

SafetensorsStreamWriter::SafetensorsStreamWriter(const std::string& path, uint64_t headerReserve)
    : m_file(path)
    , m_reserve(ceilDiv(headerReserve + 2, 8) * 8)
{
    if (m_reserve > kSafetensorsMaxHeader)
        fail(path, "the header would need up to " + std::to_string(m_reserve) + " bytes, over the reference limit");
    m_file.writeZeros(8 + m_reserve);
}

void SafetensorsStreamWriter::append(const std::string& name, DType dtype, const std::vector<uint64_t>& shape,
                                     std::span<const uint8_t> data)
{
    const std::string& path = m_file.path();
    if (name.empty() || name == "__metadata__")
        fail(path, "tensor '" + name + "': not a valid tensor name");
    if (!m_names.insert(name).second)
        fail(path, "duplicate tensor name '" + name + "'");
    const unsigned bits = dtype == DType::Ggml ? 0 : dtypeBits(dtype);
    if (bits == 0 || bits % 8 != 0)
        throw Error(ErrorContext{path, {}, name},
                    "dtype " + std::string(dtypeName(dtype)) + " cannot be stored in safetensors");
    uint64_t count = 1;
    for (uint64_t d : shape)
        if (__builtin_mul_overflow(count, d, &count))
            throw Error(ErrorContext{path, {}, name}, "its shape overflows");
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, uint64_t(bits / 8), &bytes) || bytes != data.size())
        throw Error(ErrorContext{path, {}, name},
                    "data holds " + std::to_string(data.size()) + " bytes, its shape and "
                        + std::string(dtypeName(dtype)) + " need " + std::to_string(count) + " elements");
    m_file.write(data);
    m_entries.push_back({name, dtype, shape, m_data, m_data + bytes});
    m_data += bytes;
}

void SafetensorsStreamWriter::finish(const std::map<std::string, std::string>& metadata)
{
    const std::string& path = m_file.path();
    std::string header = "{";
    if (!metadata.empty()) {
        header += "\"__metadata__\":{";
        bool first = true;
        for (const auto& [k, v] : metadata) {
            header += first ? "" : ",";
            first = false;
            json::appendQuoted(header, k);
            header += ':';
            json::appendQuoted(header, v);
        }
        header += '}';
    }
    for (const Entry& e : m_entries) {
        if (header.size() > 1)
            header += ',';
        json::appendQuoted(header, e.name);
        header += ":{\"dtype\":\"" + std::string(dtypeName(e.dtype)) + "\",\"shape\":[";
        for (size_t i = 0; i < e.shape.size(); ++i)
            header += (i ? "," : "") + std::to_string(e.shape[i]);
        header += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]}";
    }
    header += '}';
    try {
        json::parse(header);
    } catch (const json::ParseError& e) {
        fail(path, std::string("tensor names or metadata are not valid UTF-8: ") + e.what());
    }
    if (header.size() > m_reserve)
        fail(path,
             "the header needs " + std::to_string(header.size()) + " bytes, " + std::to_string(m_reserve)
                 + " were reserved");
    header.append(m_reserve - header.size(), ' ');
    uint8_t length[8];
    uint64_t n = header.size();
    for (uint8_t& b : length) {
        b = uint8_t(n & 0xff);
        n >>= 8;
    }
    m_file.writeAt(0, {length, 8});
    m_file.writeAt(8, {reinterpret_cast<const uint8_t*>(header.data()), header.size()});
    m_finished = true;
}

void SafetensorsStreamWriter::commit()
{
    if (!m_finished)
        fail(m_file.path(), "committed before its header was written");
    m_file.commit();
}

} // namespace qs
