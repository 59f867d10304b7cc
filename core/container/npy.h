#pragma once
// NumPy .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read): little-endian, C order.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qs::npy {

// descr strings we write and read: "<f4", "<f2", "|u1", "<i4", "<i2", "<f8", "<i8".
unsigned descrItemSize(const std::string& descr); // 0 when unsupported

// Writes atomically (temporary file, then rename). `data` holds product(shape) items.
void write(const std::string& path, const std::string& descr, const std::vector<uint64_t>& shape,
           std::span<const uint8_t> data);

template <typename T>
void write(const std::string& path, const std::string& descr, const std::vector<uint64_t>& shape,
           const std::vector<T>& v)
{
    write(path, descr, shape,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)));
}

struct Array {
    std::string descr;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> data; // C order, little-endian
    uint64_t count() const;
};
// Reads and validates (magic, version, header syntax, dtype, C order, size against the
// file); throws qs::Error naming the file and what is wrong.
Array read(const std::string& path);

} // namespace qs::npy
