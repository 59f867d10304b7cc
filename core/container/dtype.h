#pragma once
// Element types of stored tensors. safetensors names them by string; GGUF stores a ggml
// type id (see ggmltype.h), for which DType::Ggml is used and TensorEntry::ggmlType holds the id.
#include <cstdint>
#include <optional>
#include <string_view>

namespace qs {

enum class DType : uint8_t {
    BOOL,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    BF16,
    F32,
    F64,
    C64,
    F8_E4M3,
    F8_E5M2,
    F8_E4M3FNUZ,
    F8_E5M2FNUZ,
    F8_E8M0,
    F4,
    F6_E2M3,
    F6_E3M2,
    Ggml, // a ggml block or plain type: see TensorEntry::ggmlType
};

// The safetensors spelling ("F16", "F8_E4M3", ...); for Ggml, "GGML".
std::string_view dtypeName(DType t);
// Parses a safetensors dtype string; nullopt when unknown.
std::optional<DType> dtypeFromName(std::string_view name);
// Bits per element (4 for F4, 6 for F6_*); 0 for Ggml.
unsigned dtypeBits(DType t);
bool dtypeIsFloat(DType t);

} // namespace qs
