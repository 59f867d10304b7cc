#pragma once
// The dequantization dispatcher: a format id's family row (formats/family.h) gives its
// DequantRowsFn; plus whole-weight helpers (parallel over row chunks) and the logical
// codes/scales/zeros for `codes`.
#include "formats/codes.h"
#include "formats/kernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// The packed kernels' fast paths (GPTQ, AWQ GEMM and Marlin; AVX2 and AVX-512) work in blocks
// of this many rows and hand a rest to a slower path (fewer than 16 rows: no AVX-512 block at
// all). Whoever reads a weight in row chunks makes them whole blocks (dequantChunkRows).
inline constexpr uint64_t kDequantRowBlock = 16;

// Rows per chunk of a weight with `cols` columns: about `elements` floats, rounded up to a
// whole number of kDequantRowBlock rows and of `align` rows (permuted head blocks).
uint64_t dequantChunkRows(uint64_t cols, uint64_t elements, uint64_t align = 1);

// nullptr when no kernel handles the format.
DequantRowsFn dequantFunction(std::string_view formatId);
bool canDequantize(std::string_view formatId);
// Why `weight` is not dequantized, as the English text a message ends with ("" when it is):
// its refused shape (kRefusedShapeNote, detect.h) or its format without a dequantizer.
std::string whyNotDecoded(const LogicalWeight& weight);

// Rows [rowBegin, rowEnd) of the logical [outFeatures, inFeatures] matrix into `out`.
// Throws qs::Error (unknown format, bad rows, malformed tensors).
void dequantizeRows(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t rowBegin, uint64_t rowEnd, float* out,
                    SimdPath path);
// The whole weight into `out` (outFeatures * inFeatures floats), OpenMP across L2-sized row
// chunks; threads <= 0 uses the OpenMP default. Not for the GUI thread (see anchors.md).
void dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, float* out, SimdPath path, int threads = 0);
std::vector<float> dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, SimdPath path,
                                    int threads = 0);

// The plain float type of a reference tensor: safetensors F32/F16/BF16, or GGUF's F32, F16
// and BF16 ggml types; nullopt for anything else (formats/plain/plain_reference.cpp).
std::optional<DType> plainFloatType(const TensorEntry& t);
// Rows [r0, r1) of a plain float tensor of type `type` laid out [N, K] (F16 and BF16 through
// the float kernels' conversions).
void readFloatRows(const Checkpoint& ckpt, const TensorEntry& t, DType type, uint64_t K, uint64_t r0, uint64_t r1,
                   float* out, SimdPath path);

// Throws qs::Error for formats without integer codes.
WeightCodes extractCodes(const Checkpoint& ckpt, const LogicalWeight& weight);

} // namespace qs
