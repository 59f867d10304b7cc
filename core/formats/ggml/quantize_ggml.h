#pragma once
// ggml's reference quantizers (quantize_row_*_ref, no importance matrix), reproduced bit for
// bit: the same float operations in the same order, the same rounding helpers. Output bytes
// equal what ggml_quantize_chunk(type, src, dst, 0, nrows, rowElems, NULL) writes.
#include "base/simd.h"
#include "container/dtype.h"

#include <cstdint>
#include <span>
#include <vector>

namespace qs {

struct FormatInfo;
// The ggml type id a GGUF format id stands for (gguf-q4_k: Q4_K); -1 for other families.
int ggufFormatType(const FormatInfo& format);
// The GGUF type that stores a dtype element for element (F32, F16, BF16, F64, I8 .. I64); -1
// when there is none.
int ggufPlainType(DType dtype);
// llama.cpp's general.file_type (LLAMA_FTYPE_MOSTLY_*) for a model whose 2-D weights are all of
// `ggmlType` (the _S mix for k-quants); -1 when there is none.
int llamaFileType(int ggmlType);

// The ggml type ids this file can produce: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K.
bool ggmlCanQuantize(int ggmlType);
std::span<const int> ggmlQuantizableTypes();
// The GGUF block types `quantize --format` writes (the quantizable ones but F32, F16 and BF16),
// and those `repack --to` writes (the ones holding affine codes with a float min: Q4_1, Q5_1,
// and Q8_0): the traits' quantizeTarget and repackTarget (ggml_family.cpp's ids).
bool ggmlQuantizeTarget(int ggmlType);
bool ggmlRepackTarget(int ggmlType);

// Weights per block and bytes per block of the quantizable types (1 and the element size
// for F32/F16/BF16); 0 for a type this file does not produce.
uint32_t ggmlQuantBlockWeights(int ggmlType);
uint32_t ggmlQuantBlockBytes(int ggmlType);

// Bytes of nrows rows of rowElems weights; throws qs::Error when the type is not
// quantizable, rowElems is not a whole number of blocks, or the size overflows.
uint64_t ggmlQuantizedBytes(int ggmlType, uint64_t nrows, uint64_t rowElems);

// Quantizes nrows x rowElems float32 weights (row-major, ne0 = rowElems contiguous).
// `parallel` spreads blocks over OpenMP threads; the bytes are the same either way.
std::vector<uint8_t> quantizeGgml(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems,
                                  bool parallel = true);
// Same, into dst (ggmlQuantizedBytes bytes).
void quantizeGgmlInto(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems, uint8_t* dst,
                      bool parallel = true);
// Same, on the given SIMD path (bestSimdPath() above): every path writes the same bytes; the
// k-quant searches and F16 have AVX2 code, the rest take the scalar loops.
void quantizeGgmlInto(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems, uint8_t* dst, bool parallel,
                      SimdPath path);

} // namespace qs
