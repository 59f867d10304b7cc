#pragma once
// The registry of stable format identifiers: what format detection writes into
// LogicalWeight::format and what command-line options such as --to and --format accept.
// Ids are lowercase ASCII and never change once published (the README lists them).
#include "container/dtype.h"

#include <span>
#include <string>
#include <string_view>

namespace qs {

enum class FormatFamily : uint8_t {
    Plain,             // an unquantized tensor: f16, bf16, i32, ...
    Gguf,              // a ggml block or plain type stored in GGUF
    Gptq,
    Awq,
    Marlin,
    Bitsandbytes,
    CompressedTensors,
    Mlx,
    Hqq,
    Fp8,
    Other,             // named by detection only (EXL2, AQLM, ...): listed, never decoded
    Unknown,
};

struct FormatInfo {
    std::string id;          // "gptq-v1", "gguf-q4_k", "f16"
    std::string description; // one line, for --help, the README and tooltips
    FormatFamily family = FormatFamily::Unknown;
    int bits = 0;            // nominal code width (float width for plain formats); 0 = varies
    bool quantized = false;  // false for plain element types
};

// Every registered id, in a stable order: plain types, GGUF types (ggml id order), then
// the safetensors quantization formats, then "unknown".
std::span<const FormatInfo> formatInfos();
// Exact lookup (ids are lowercase; the lookup ignores case). nullptr when unknown.
const FormatInfo* findFormat(std::string_view id);

// "f16", "bf16", "f8_e4m3", "i32" ... for a safetensors dtype; "" for DType::Ggml.
std::string plainFormatId(DType dtype);
// "gguf-q4_k" for a ggml type name ("Q4_K"); "" when the name is not a storable ggml type.
std::string ggufFormatId(std::string_view ggmlTypeName);

// Parses an id typed by a user (case and surrounding blanks ignored). Throws qs::Error
// "<option>: unknown format 'x'" plus the closest ids when it is not registered.
const FormatInfo& parseFormatId(std::string_view text, std::string_view option = "format");

} // namespace qs
