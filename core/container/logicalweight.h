#pragma once
// One logical weight matrix as format detection found it: a format id, its parameters,
// and which stored tensors (members) make it up.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/message.h"
#include "base/smallvector.h"

namespace qs {

// Format-specific key/value strings, sorted by key, with the std::map calls the code uses.
// A flat vector (~64 bytes an entry, where a std::map node cost ~112 bytes in an allocation
// each), shared between copies until one is changed: the weights of one GGUF type carry the
// same three, stored once however many tensors have that type.
class WeightParams {
public:
    using value_type = std::pair<std::string, std::string>;
    using const_iterator = std::vector<value_type>::const_iterator;

    std::string& operator[](std::string_view key); // inserts an empty value when absent
    const std::string& at(std::string_view key) const; // throws std::out_of_range when absent
    const_iterator find(std::string_view key) const; // end() when absent
    size_t count(std::string_view key) const { return find(key) == end() ? 0 : 1; }
    const_iterator begin() const { return items().begin(); }
    const_iterator end() const { return items().end(); }
    size_t size() const { return items().size(); }
    bool empty() const { return items().empty(); }
    void reserve(size_t n) { own().reserve(n); }

private:
    const std::vector<value_type>& items() const;
    std::vector<value_type>& own(); // this copy's own items, copied first when shared
    std::shared_ptr<std::vector<value_type>> m_items; // null: none
};

struct LogicalWeight {
    std::string name; // HF module prefix ("model.layers.0.mlp.down_proj") or the GGUF tensor name
    std::string format; // stable id: "gptq-v1", "gguf-q4_k", "bnb-nf4", ... (see formats/formatid.h)
    int bits = 0; // code width; for float formats the float width
    int64_t groupSize = 0; // weights sharing one scale along the input axis; 0 = not grouped
    bool symmetric = true;
    bool descAct = false; // as the config says
    bool actOrder = false; // g_idx really is non-trivial
    Shape shape; // logical, row-major: [..., out_features, in_features]
    // role -> index into Checkpoint::tensors; one held inline (every GGUF and plain weight)
    SmallVector<std::pair<std::string, size_t>, 1> members;
    uint64_t storedBytes = 0; // every member's bytes: data, scales, zeros, indices, padding
    WeightParams params; // format-specific: checkpoint_format, version, ...
    std::vector<Message> evidence; // why this format: names, shapes, config keys
    std::vector<Message> notes; // disagreements and warnings

    // The products are checked (qs::Error on overflow); detection gives no weight a shape whose
    // products overflow or exceed what its stored bytes can hold (kRefusedShapeNote, detect.h).
    uint64_t outFeatures() const; // product of all but the last logical dim
    uint64_t inFeatures() const; // the last logical dim
    uint64_t elementCount() const;
    double bitsPerWeight() const; // storedBytes * 8 / elementCount
    int member(std::string_view role) const; // tensor index, or -1
};

} // namespace qs
