#pragma once
// Writers that take a checkpoint one tensor at a time, so that repack and quantize hold one
// weight's output in memory, never the whole checkpoint. Both write through an AtomicFile:
// finish() completes the temporary file (tempPath(), to read back before it counts), commit()
// renames it into place; destroyed uncommitted (an exception on the way), they leave nothing
// behind.
//   GgufStreamWriter: the tensor infos are known up front (name, type, ne), so the header is
//     laid out first (layoutGguf) and each tensor's data follows, padded, in the given order.
//   SafetensorsStreamWriter: the header space is reserved up front (an upper bound from the
//     names and ranks to come), the data appended in the order given, and the header written
//     last into the reserved space, padded with spaces (valid JSON whitespace, as the
//     reference writer pads to 8). Tensors stay in the order given, contiguous, as the
//     format requires; they are not sorted by dtype as the reference writer sorts them.
#include "base/atomicfile.h"
#include "base/outputpath.h"
#include "container/gguf.h"

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace qs {

class GgufStreamWriter {
public:
    // `tensors` data spans are ignored; append() brings each tensor's data, in this order.
    GgufStreamWriter(const std::string& path, const GgufMetadata& metadata, const std::vector<GgufTensor>& tensors,
                     uint32_t version = 3);
    void append(std::span<const uint8_t> data);
    // Throws naming the first tensor laid out whose data never came.
    void finish() const;
    const std::string& tempPath() const { return m_file.tempPath(); }
    void commit();

private:
    AtomicFile m_file;
    GgufLayout m_layout;
    std::vector<std::string> m_names;
    size_t m_next = 0;
};

class SafetensorsStreamWriter {
public:
    // The most header bytes one entry can take: its name and a shape of `rank` dimensions.
    static uint64_t entryBound(std::string_view name, size_t rank);
    // `headerReserve`: the sum of entryBound over the tensors to come plus the metadata's length
    // (metadataBound).
    static uint64_t metadataBound(const std::map<std::string, std::string>& metadata);
    SafetensorsStreamWriter(const std::string& path, uint64_t headerReserve);
    void append(const std::string& name, DType dtype, const std::vector<uint64_t>& shape,
                std::span<const uint8_t> data);
    // Writes the header into its reserved space.
    void finish(const std::map<std::string, std::string>& metadata = {});
    const std::string& tempPath() const { return m_file.tempPath(); }
    void commit();

private:
    struct Entry {
        std::string name;
        DType dtype;
        std::vector<uint64_t> shape;
        uint64_t begin, end;
    };
    AtomicFile m_file;
    uint64_t m_reserve = 0;
    uint64_t m_data = 0;
    bool m_finished = false;
    std::vector<Entry> m_entries;
    std::set<std::string> m_names;
};

} // namespace qs
