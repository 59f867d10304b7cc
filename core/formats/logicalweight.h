#pragma once
// One logical weight matrix as format detection found it: a format id, its parameters,
// and which stored tensors (members) make it up.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs {

struct LogicalWeight {
    std::string name;     // HF module prefix ("model.layers.0.mlp.down_proj") or the GGUF tensor name
    std::string format;   // stable id: "gptq-v1", "gguf-q4_k", "bnb-nf4", ... (see formats/formatid.h)
    int bits = 0;         // code width; for float formats the float width
    int64_t groupSize = 0; // weights sharing one scale along the input axis; 0 = not grouped
    bool symmetric = true;
    bool descAct = false;   // as the config says
    bool actOrder = false;  // g_idx really is non-trivial
    std::vector<uint64_t> shape; // logical, row-major: [..., out_features, in_features]
    std::vector<std::pair<std::string, size_t>> members; // role -> index into Checkpoint::tensors
    uint64_t storedBytes = 0;   // every member's bytes: data, scales, zeros, indices, padding
    std::map<std::string, std::string> params; // format-specific: checkpoint_format, version, ...
    std::vector<std::string> evidence; // why this format: names, shapes, config keys
    std::vector<std::string> notes;    // disagreements and warnings

    uint64_t outFeatures() const; // product of all but the last logical dim
    uint64_t inFeatures() const;  // the last logical dim
    uint64_t elementCount() const;
    double bitsPerWeight() const; // storedBytes * 8 / elementCount
    int member(std::string_view role) const; // tensor index, or -1
};

} // namespace qs
