#pragma once
// The one way quantize and repack write a checkpoint: the input's tensors in their order, each
// copied unchanged or replaced by a converted weight's tensors, streamed one weight at a time
// (memory: the largest weight's output, not the checkpoint). Two implementations, picked by the
// target's family row (FamilyTargets::gguf):
//   a .gguf file: every tensor is laid out before any data (GgufStreamWriter), with the input's
//     metadata, general.file_type and general.quantization_version; a converted weight whose K
//     is not whole blocks is stored in float (GgufOutput::weightType, the ggml family's rule);
//   a safetensors folder: model.safetensors (SafetensorsStreamWriter, the header space reserved
//     from the names to come), then config.json with the target's quantization config and the
//     side config its tool writes, into the folder through writeIntoFolder.
// Both pass the output guard (checkOutputPath against everything the input read) when opened
// and write atomically: an exception on the way leaves nothing behind. A caller that reads the
// output back (repack's verification) reads the temporary files, before anything is renamed
// into place, so that a check that fails or a cancel there leaves nothing behind either.
#include "container/checkpoint.h"
#include "formats/target.h"

#include <QJsonObject>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace qs {

// A converted weight as planned, before any of its data is read.
struct ConvertedWeight {
    size_t source = 0; // the index in the input's tensors where its output stands (its first member)
    std::string module; // a safetensors output names its tensors "<module>.<suffix>"
    std::string ggufName; // a GGUF output's name for its block tensor; the others are "<module>.<suffix>"
    std::vector<uint64_t> shape; // [.., N, K], row-major
    size_t nameBound = 0; // the longest name its tensors can take (the safetensors header's reserve)
    // Whether an I32 [K] "<module>.input_perm" follows the block tensor: asked, in the input's
    // tensor order, only by a writer that lays out every tensor before any data (GGUF).
    std::function<bool()> permutes;
};

// Where a converted weight is found when the output is read back, and as what format.
struct ReadBack {
    std::string name;
    std::string format;
};

// The ids of the formats whose `trait` is set (FormatInfo::quantizeTarget, repackTarget), those
// written as safetensors folders first, then those written as GGUF files.
std::vector<std::string> writtenFormats(bool FormatInfo::*trait);

class CheckpointWriter {
public:
    // The writer of `target` at `out` (a .gguf file, or a folder for a safetensors target),
    // after the output guard. `force`: write into a non-empty output folder (replacing only the
    // files it writes). `inheritAnyMetadata`: a GGUF output carries the input's metadata from any
    // container (quantize), not only a GGUF input's (repack).
    static std::unique_ptr<CheckpointWriter> open(const Checkpoint& src, const std::string& out,
                                                  const FormatInfo& target, bool force, bool inheritAnyMetadata);
    virtual ~CheckpointWriter() = default;

    // Throws qs::Error naming the input when the output cannot take it: a safetensors folder
    // needs a safetensors input; a GGUF file from another container needs the names llama.cpp's
    // converters give (tensor names are kept: no HF -> GGUF naming is done, and llama.cpp
    // cannot load model.layers.N.* names).
    virtual void checkInput() const = 0;
    // 0 when a converted weight of `cols` columns is stored in the target; otherwise the block
    // width that `cols` is not a whole number of, and the weight is stored in float.
    virtual uint32_t floatFallback(uint64_t cols) const = 0;
    // Whether a converted weight's tensors are named "<module>.<suffix>" (safetensors, whose
    // tools list modules) rather than keeping the tensor's own name (GGUF).
    virtual bool namesByModule() const = 0;
    // Whether the output's tensors are fixed before any data (GGUF's header): a weight planned
    // as converted can then no longer be copied instead.
    virtual bool fixedLayout() const = 0;

    // The plan, in output order, before write(): a tensor of the input copied unchanged (throws
    // when the output has no type for it), or a converted weight (its index among the
    // converted ones is produce's argument below).
    virtual void copy(size_t tensor) = 0;
    virtual void convert(ConvertedWeight weight) = 0;

    // The converted weight's tensors (StoredTensor::suffix names them); empty: its source tensor
    // is copied instead (not after fixedLayout()).
    using Produce = std::function<std::vector<StoredTensor>(size_t converted)>;
    // Streams the plan; `finish` runs after the last tensor, before anything is committed (a
    // check there that throws leaves nothing behind). `scheme` is what the configs (safetensors)
    // say, read once the data is written; `baseConfig` the config.json they are inserted into.
    // `verify`, when given, gets the output as written (read from the temporary files, configs
    // included, weights detected) before anything is committed: what it throws leaves nothing.
    using Verify = std::function<void(const Checkpoint& written)>;
    virtual void write(const Produce& produce, const std::function<void()>& finish, const QuantScheme& scheme,
                       const QJsonObject& baseConfig, const Verify& verify = {}) = 0;

    // After write(): the input tensors written unchanged, the entries of an existing output
    // folder it left alone, and where each converted weight reads back.
    const std::vector<std::string>& copied() const { return m_copied; }
    const std::vector<std::string>& leftAlone() const { return m_leftAlone; }
    virtual ReadBack readBack(size_t converted) const = 0;

protected:
    CheckpointWriter(const Checkpoint& src, const std::string& out, const FormatInfo& target)
        : m_src(src)
        , m_out(out)
        , m_target(target)
    {
    }
    const Checkpoint& m_src;
    std::string m_out;
    const FormatInfo& m_target;
    // The plan: each item a copied input tensor or a converted weight, in output order.
    struct Item {
        size_t index; // into the input's tensors, or among the converted weights
        bool converted;
    };
    std::vector<Item> m_items;
    std::vector<ConvertedWeight> m_converted;
    std::vector<std::string> m_copied;
    std::vector<std::string> m_leftAlone;
};

} // namespace qs
