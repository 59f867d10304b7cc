#pragma once
// The registry of stable format identifiers: what format detection writes into
// LogicalWeight::format and what command-line options such as --to and --format accept.
// Ids are lowercase ASCII and never change once published (the README lists them).
#include "container/dtype.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// The family a format belongs to: one folder under core/formats/ and one line of the family
// table (formats/families.def, which numbers the values: their order is that of every list the
// families fill, formats/target.h: the budget table, the presets, the Playground's formats).
// clang-format off
enum class FormatFamily : uint8_t {
#define QS_FAMILY(value, row, listed) value = listed,
#include "formats/families.def"
#undef QS_FAMILY
    // named by detection only (EXL3, AMD Quark, ...): listed, never decoded
    Other = 0
#define QS_FAMILY(value, row, listed) + 1
#include "formats/families.def"
#undef QS_FAMILY
    ,
    Unknown,
};
// clang-format on

// How a format's stored values become weights. Generic code asks this, never the id.
enum class StorageKind : uint8_t {
    None, // named only or unknown: listed, never decoded
    Float, // one stored float per element (float dtypes, GGUF F16/BF16/F32/F64)
    Integer, // plain integers, no scale (i32, GGUF I8, ...)
    GgmlBlock, // a ggml block struct with its own scales (GGUF quantized types)
    PackedLinear, // affine integer codes packed in words, read by PackedLinear (GPTQ, AWQ, Marlin)
    GroupAffine, // affine integer codes per group with the family's own reader (CT int, MLX affine, HQQ)
    Codebook, // a 4-bit codebook index per element and a block absmax (bnb NF4/FP4)
    RowInt8, // int8 rows with a per-row absmax (bnb LLM.int8)
    ScaledFloat, // float codes times stored scales (FP8 with weight_scale, FP4 microscaling)
};

// The colour role a view gives a format; the palette lives in the widgets (Theme).
enum class ColourRole : uint8_t { Float, Integer, Block, Codebook, None };

// What reproduces a format's codes from float weights (stats --requantize, the Error view's
// "requantized to its own format"): its own quantizer, or none.
enum class RequantizeRule : uint8_t {
    None,
    Ggml, // the ggml reference quantizer of the same type
    GptqAffine, // asymmetric/symmetric affine codes as GPTQ writes them (GPTQ, Marlin, MLX, CT, HQQ)
    Awq, // AutoAWQ's rounding
    Bnb4, // bitsandbytes 4-bit
};

struct FormatInfo {
    std::string id; // "gptq-v1", "gguf-q4_k", "f16"
    std::string description; // one line, for --help, the README and tooltips
    FormatFamily family = FormatFamily::Unknown;
    int bits = 0; // nominal code width (float width for plain formats); 0 = varies
    bool quantized = false; // false for plain element types
    StorageKind storage = StorageKind::None;
    ColourRole colour = ColourRole::None;
    bool integerCodes = false; // extractCodes gives its logical integer codes with their scales
    bool affineCodes = false; // w = s * (q - z) with integer zeros: a repack source, kept exactly
    RequantizeRule requantize = RequantizeRule::None;
    bool quantizeTarget = false; // `quantize --format` can write it from float weights
    bool repackTarget = false; // `repack --to` can write it from another format's codes
    std::string alias; // a shorter name users type ("gptq", "awq", "nf4", "q4_k"); may be empty
    // "unknown": detection recognised no format (listed, never decoded).
    bool unrecognised() const { return family == FormatFamily::Unknown; }
};

// A quantized format as its family's row gives it (FamilyRow::formats), as constants: the
// traits of FormatInfo in the order of its fields.
struct FormatRow {
    std::string_view id;
    int bits;
    StorageKind storage;
    ColourRole colour;
    bool integerCodes, affineCodes;
    RequantizeRule requantize;
    bool quantizeTarget, repackTarget;
    std::string_view alias;
    std::string_view description;
};

// Short names for the families' FormatRow tables (`using namespace formatrow;` inside the function
// that lists a family's formats: at namespace scope it would reach the other files of a unity batch).
namespace formatrow {
using enum StorageKind;
constexpr ColourRole Int = ColourRole::Integer, Flt = ColourRole::Float, Book = ColourRole::Codebook,
                     Named = ColourRole::None;
constexpr RequantizeRule NoRule = RequantizeRule::None, Ggml = RequantizeRule::Ggml,
                         GptqAffine = RequantizeRule::GptqAffine, Awq = RequantizeRule::Awq,
                         Bnb4 = RequantizeRule::Bnb4;
} // namespace formatrow

// What a row's FamilyRow::formats adds its ids to; formatInfos() lists them.
class FormatList {
public:
    explicit FormatList(FormatFamily family)
        : m_family(family)
    {
    }
    // One of the family's formats, listed with the family's others in the order added.
    void add(FormatInfo format);
    void add(const FormatRow& row);
    // One of the family's formats listed after every family's own ids (block FP8: where it was
    // published).
    void addAfterFamilies(const FormatRow& row);
    // A format detection names but nothing decodes (family Other), listed after the families' ids.
    void addNamedOnly(const FormatRow& row);

    std::vector<FormatInfo> own, afterFamilies;

private:
    FormatFamily m_family;
};

// Every registered id, in a stable order: plain types, GGUF types (ggml id order), then the
// other families' ids in table order (formats/families.def), then the ids rows list after those
// (FormatList::addAfterFamilies, addNamedOnly), then "unknown".
std::span<const FormatInfo> formatInfos();
// Exact lookup (ids are lowercase; the lookup ignores case). nullptr when unknown.
const FormatInfo* findFormat(std::string_view id);

// "f16", "bf16", "f8_e4m3", "i32" ... for a safetensors dtype; "" for DType::Ggml.
std::string plainFormatId(DType dtype);
// "gguf-q4_k" for a ggml type name ("Q4_K"); "" when the name is not a storable ggml type.
std::string ggufFormatId(std::string_view ggmlTypeName);

// The one parser of ids typed by users (--format, --to, --requantize ...): a registered id
// or a format's alias ("gptq" -> gptq-v1, "q4_k" -> gguf-q4_k), case and surrounding blanks
// ignored; ids win over aliases ("f16" is the plain type, not gguf-f16). nullptr when it
// names no format ("unknown" included).
const FormatInfo* resolveFormatId(std::string_view text);
// resolveFormatId, throwing qs::Error "<option>: unknown format 'x'" plus the closest ids
// when it names no format.
const FormatInfo& parseFormatId(std::string_view text, std::string_view option = "format");

} // namespace qs
