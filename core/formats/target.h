#pragma once
// Writing a family's formats: what `quantize` (float weights -> a checkpoint of the target
// format), `repack` (another format's logical codes -> the target's tensors) and the budget
// table need from a family. A family that writes formats fills one FamilyTargets in
// <folder>/<folder>_targets.cpp and its FamilyRow points at it; the drivers
// (analysis/quantize_checkpoint, analysis/repack, analysis/budget) reach the per-format
// pieces only through it, and pick targets by their traits (FormatInfo::quantizeTarget,
// repackTarget), never by id.
#include "container/dtype.h"
#include "formats/affinecodes.h"
#include "formats/formatid.h"
#include "formats/wordmap.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

class QJsonObject;
class QJsonValue;

namespace qs {

struct LogicalWeight;
struct WeightCodes;

// One tensor of a written weight, named "<module>.<suffix>" (safetensors targets; a GGUF
// target gives one tensor, the ggml blocks, which the driver names).
struct StoredTensor {
    std::string suffix; // appended to the module prefix: "qweight", "weight_scale", ...
    DType dtype = DType::I32;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes; // little-endian
};

// A StoredTensor holding `values` as they lie in memory (little-endian).
template <typename T>
StoredTensor storedTensor(std::string suffix, DType dtype, std::vector<uint64_t> shape, const std::vector<T>& values)
{
    StoredTensor t{std::move(suffix), dtype, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
    if (!values.empty())
        std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

// What the user asked `quantize` for; 0 (-1 for symmetric) takes the target's default.
struct QuantizeRequest {
    int bits = 0;
    int64_t groupSize = 0; // -1: one group per row (per channel)
    int symmetric = -1;
    float clipRatio = 1.0f;
    bool doubleQuant = false; // bnb nested absmax
};

// The parameters a quantized checkpoint's config describes (and the quantizer uses).
struct QuantScheme {
    const FormatInfo* format = nullptr; // the target
    int bits = 4;
    int64_t groupSize = 128; // -1: one group per row (per channel)
    bool symmetric = false;
    bool actOrder = false; // GPTQ desc_act / compressed-tensors actorder "group"
    uint32_t blocksize = 64; // bnb
    bool nested = false; // bnb double quant
    float clipRatio = 1.0f; // quantize only; not in the config
    DType modelDtype = DType::F16;
    std::vector<std::string> skipped; // module names left unquantized (AWQ / bnb / CT lists)
    // Modules whose K columns were permuted into contiguous groups (repack of act-order into a
    // layout without g_idx): "<module>.input_perm" holds the gather the layer input needs.
    std::vector<std::string> inputPermutations;
};

// A weight repacked into the target.
struct PackedWeight {
    std::vector<StoredTensor> tensors;
    std::string note; // how the target holds the weight when it cannot be exact
    std::string inexactNote; // why the read-back can differ; added when it does
};

// How prominent a budget row is, each level including the ones below it: the Budget view's
// "common" filter shows the Common rows (what people usually choose between), the layout
// report's comparison table the Headline rows, and the view starts on the Default row (one
// in the whole table: the format most people run).
enum class BudgetPreset : uint8_t { None, Common, Headline, Default };

// The part of a format's cost a stored tensor counts in, in the order budgetBreakdown names them.
enum class BudgetPart : uint8_t { Codes, Scales, Zeros, Index, Tables };

// One tensor a budget row stores: a role of the row's LayoutSpec, which gives its shape and
// dtype; the part it counts in and what the breakdown calls that part when not the part's own
// name ("absmax", "bias", "shape/g_idx"); its dtype when the row stores it otherwise than the
// spec's default (bnb's nested absmax: U8 codes).
struct BudgetTensor {
    BudgetTensor(std::string role_, BudgetPart part_, std::string label_ = {}, std::string dtype_ = {})
        : role(std::move(role_))
        , part(part_)
        , label(std::move(label_))
        , dtype(std::move(dtype_))
    {
    }
    std::string role;
    BudgetPart part;
    std::string label;
    std::string dtype;
};

// One row of the budget table: a LayoutSpec (that of the format the row stores) at a code
// width and group size, with the tensors the row stores. Its bytes are the spec's tensors'
// (analysis/budget.h), the same count the layout report prints.
struct BudgetFormat {
    std::string id; // the row's name: "gguf-q4_k", "gptq-4-g128", "awq-4-g128", "bnb-nf4-nested", ...
    const FormatInfo* info = nullptr; // the format the row stores (its spec, family, colour)
    int bits = 16; // LayoutParams::bits
    uint64_t groupSize = 0; // LayoutParams::groupSize; 0: one group per row (per channel)
    int codebooks = 1; // LayoutParams::codebooks
    std::vector<BudgetTensor> tensors;
    // The formats whose layout report compares its own count with this row at the same bits and
    // group size (GGUF specs find their row by id).
    std::vector<std::string> reportedBy;
    BudgetPreset preset = BudgetPreset::None;
};
BudgetFormat budgetRow(std::string id, const FormatInfo* info, int bits, uint64_t group,
                       std::vector<BudgetTensor> tensors);
// Sets the preset of the rows named in `presets` (a family marks its own rows).
void markBudgetPresets(std::vector<BudgetFormat>& rows,
                       std::initializer_list<std::pair<std::string_view, BudgetPreset>> presets);

// A reference requantization of a weight (analysis/stats.h compareRequantized): a format id
// or alias whose RequantizeRule says how (Ggml: ggml's quantize_row_*_ref of that type;
// GptqAffine / Awq: affine round to nearest with that tool's scale and zero rule, scales in
// f16, `bits`, `groupSize`, `symmetric`; Bnb4: blocks of 64 of the f16-rounded weight).
struct RequantizeSpec {
    std::string format;
    int bits = 4;
    uint64_t groupSize = 128;
    bool symmetric = false;
};
// A requantization the views offer by name. `label` is marked with
// QT_TRANSLATE_NOOP("qs::RequantizePreset", ...): views translate it in that context.
struct RequantizePreset {
    const char* label = "";
    RequantizeSpec spec;
    bool forFloat = false; // what the Error view costs a float weight in (it has no format of its own)
};
// Every family's presets, the families in FormatFamily order.
std::vector<RequantizePreset> requantizePresets();
// The requantization that reproduces a weight of `format` with these parameters (the Error
// view's "its own format"); nullopt when the format has no reference quantizer or an affine
// format's width is outside 2..8.
std::optional<RequantizeSpec> ownRequantizeSpec(const FormatInfo& format, int bits, uint64_t groupSize, bool symmetric);

// A block format the Playground quantizes with the format's own quantizer (analysis/playground.h).
struct PlaygroundBlockFormat {
    const FormatInfo* format = nullptr;
    uint32_t blockWeights =
        0; // elements per block (per d, per absmax) by default: LogicalWeight::groupSize of a stored weight
    // The block sizes the format takes, ascending, the default among them; empty: fixed.
    std::vector<uint32_t> blocksizes;
    // Set when the block scales can be stored nested (bitsandbytes double quant): whether a
    // stored weight's are.
    bool (*nestedOf)(const LogicalWeight& weight) = nullptr;
    // What the format's tool quantizes in place of the values as given, changed in place
    // (bitsandbytes: the model's f16 weight); nullptr: the values themselves. The Playground's
    // error stays against the values as given.
    void (*toolInput)(std::vector<float>& values) = nullptr;
};

// What `quantize` wrote for a block of rows of a PlaygroundBlockFormat, decoded by the family:
// each element's stored code, the value each code stands for, the decoded block fields.
struct PlaygroundBlocks {
    std::vector<float> dequantized; // [rows * cols], as the format's dequantizer reads the tensors
    uint32_t blockWeights = 0; // elements per block
    uint32_t groupSize = 0; // consecutive elements sharing one level table (a k-quant sub-block, else the block)
    uint32_t codeCount = 0; // entries per table (16, 256)
    std::vector<float> levels; // [groups * codeCount]: the value stored code c stands for in group g
    std::vector<uint8_t> codes; // [rows * cols]: each element's stored code, as the LayoutSpec locates it
    std::vector<BlockValues> blocks; // each block's fields (d, dmin, sub-block scales and mins; absmax), whole block
    std::string formula; // how a code becomes a value, e.g. "w = d * (q - 8)"
};

// What the Playground's affine formats return for a block of rows: the codes the format's
// tool chooses, the values they stand for, and the tensors it writes (or why it cannot).
struct PlaygroundAffineRun {
    AffineQuantized quantized;
    std::vector<float> dequantized; // [rows, cols]
    std::vector<StoredTensor> stored; // empty when packError is set
    std::string packError;
};

// An affine format the Playground quantizes to (analysis/playground.h), in menu order.
struct PlaygroundAffineFormat {
    const FormatInfo* format = nullptr;
    // The menu's name, marked QT_TRANSLATE_NOOP("qs::PlaygroundFormat", ...).
    const char* label = "";
    AffineRule rule = AffineRule::Gptq; // the rounding of the format's tool
    uint64_t blockRows = 1; // rows quantized together: 8 for AWQ GEMM (one word holds 8 output rows)
    // Quantizes rows x cols values with `options` (its rule is `rule`) and packs them as the
    // format's tool does, scales rounded once to `scaleType`. Throws qs::Error on options the
    // quantizer refuses; a format that cannot hold the codes sets packError.
    PlaygroundAffineRun (*run)(const FormatInfo& format, const float* values, uint64_t rows, uint64_t cols,
                               const AffineOptions& options, DType scaleType) = nullptr;
};

// How a target is written into a GGUF file (the ggml family's rules): its ggml type, the
// weights of one of its blocks along K, llama.cpp's general.file_type for a model of it, the
// type a converted weight of K columns is stored as, and the GGUF type that stores a dtype
// element for element (-1: none), for the tensors copied beside the weights.
struct GgufOutput {
    int type = -1; // -1: the target is written as a safetensors folder
    uint32_t blockWeights = 0;
    int fileType = -1; // LLAMA_FTYPE_MOSTLY_* (the _S mix for k-quants)
    int (*plainType)(DType dtype) = nullptr;
    // `type` when K is whole blocks; else F32 (llama.cpp checks every weight's ne against the
    // model, so a padded tensor would not load; its quantize keeps such a tensor in float too).
    int (*weightType)(int type, uint64_t k) = nullptr;
    bool on() const { return type >= 0; }
};

struct FamilyTargets {
    // ---- quantize (the formats whose FormatInfo::quantizeTarget is set) ----
    // Fills bits, groupSize and symmetric of `s` (s.format is the target) from the request;
    // throws qs::Error "quantize: ..." for an option the target does not take.
    void (*quantizeScheme)(const QuantizeRequest& request, QuantScheme& s) = nullptr;
    // One float weight [rows, cols] in the target's tensors (s.modelDtype: this weight's
    // dtype). Throws qs::Error when the weight does not fit the target.
    std::vector<StoredTensor> (*quantize)(const QuantScheme& s, const float* weight, uint64_t rows, uint64_t cols,
                                          bool parallel) = nullptr;
    // Inserts the target's quantization config into config.json's object, as the upstream
    // tool writes it. nullptr: GGUF targets (the metadata is the file's own).
    void (*config)(const QuantScheme& s, QJsonObject& config) = nullptr;
    // The side config file the upstream tool writes (quantize_config.json ...) into `side`,
    // returning its name; nullptr or "" when there is none.
    std::string (*sideConfig)(const QuantScheme& s, QJsonObject& side) = nullptr;

    // ---- repack (the formats whose FormatInfo::repackTarget is set) ----
    // Whether the target stores g_idx; without it an act-order weight's columns are sorted
    // into contiguous groups first (and the permutation written as input_perm).
    bool (*packKeepsGroupIndex)(const FormatInfo& target) = nullptr;
    // The logical codes (true integer zeros) in s.format's tensors. The driver has set s from
    // the codes (bits, groupSize, symmetric, ...); the target corrects what its config says
    // differently. Throws qs::Error when the target cannot hold the codes.
    PackedWeight (*pack)(const WeightCodes& codes, QuantScheme& s) = nullptr;

    // ---- the budget table ----
    // Appends the family's rows.
    void (*budget)(std::vector<BudgetFormat>& out) = nullptr;

    // ---- reference requantization (the Error view's "as" list) ----
    // Appends the family's presets.
    void (*requantizePresets)(std::vector<RequantizePreset>& out) = nullptr;

    // ---- the Playground's block formats (analysis/playground.h) ----
    // Appends the family's block formats the Playground offers, in menu order.
    void (*playgroundFormats)(std::vector<PlaygroundBlockFormat>& out) = nullptr;
    // Decodes what `quantize` wrote for rows x cols weights of one of those formats; throws
    // qs::Error when the tensors are not what it writes.
    PlaygroundBlocks (*playgroundDecode)(const FormatInfo& format, const std::vector<StoredTensor>& tensors,
                                         uint64_t rows, uint64_t cols) = nullptr;

    // ---- GGUF output (quantize, repack) ----
    // How a target is written into a GGUF file; nullptr: every target of the family is written
    // as a safetensors folder.
    GgufOutput (*gguf)(const FormatInfo& target) = nullptr;

    // ---- the Playground's affine formats (analysis/playground.h) ----
    // Appends the family's affine formats the Playground offers, in menu order.
    void (*playgroundAffineFormats)(std::vector<PlaygroundAffineFormat>& out) = nullptr;
};

// Every writing family's budget table rows, the families in FormatFamily order.
std::vector<BudgetFormat> familyBudgetRows();

// Every family's Playground block formats, the families in FormatFamily order.
std::vector<PlaygroundBlockFormat> playgroundBlockFormats();
// Every family's Playground affine formats, the families in FormatFamily order.
std::vector<PlaygroundAffineFormat> playgroundAffineFormats();

// The family's targets of a format; nullptr when its family writes nothing.
const FamilyTargets* familyTargets(const FormatInfo& format);

// The family's GgufOutput of a target; off (type -1) for a target written as a safetensors folder.
GgufOutput ggufOutput(const FormatInfo& target);

// "float16", "bfloat16", "float32": torch's name of a model dtype, as configs spell it.
std::string torchDtypeName(DType t);
// The skipped modules as a JSON list; null when there are none (AWQ / bnb configs).
QJsonValue skippedModulesJson(const QuantScheme& s);
// The request's bits when the target has fixed-width codes (GGUF, bnb 4-bit): throws qs::Error
// when --bits asks for another width.
int fixedCodeBits(const QuantizeRequest& request, const FormatInfo& target);

} // namespace qs
