#pragma once
// bitsandbytes 4-bit quantization (NF4, FP4) as bitsandbytes' device-independent kernels do
// it: per block of `blocksize` flattened elements, absmax = max |x|, x * (1 / absmax) clamped to
// [-1, 1], then the nearest entry of the 16-entry table (see quantize_bnb.cpp for how ties and
// FP4's two zeros go). Optional nested
// ("double quant") absmax: absmax - mean(absmax) quantized to the 8-bit signed dynamic map in
// blocks of 256. The caller rounds the weights to the model dtype first (bnb quantizes the
// float16/bfloat16 weight).
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace qs {

enum class Bnb4Type { Nf4, Fp4 };
struct FormatInfo;
// The 4-bit type of bnb-nf4 / bnb-fp4.
Bnb4Type bnb4TypeOf(const FormatInfo& format);

// The 4-bit table (get_4bit_type): what a file stores as quant_map, what the quantizer
// searches and what dequantization multiplies.
const std::array<float, 16>& bnb4CodeTable(Bnb4Type t);
// create_dynamic_map(signed=True): the 256-entry map of nested absmax.
const std::array<float, 256>& bnbDynamicMap();

struct Bnb4Quantized {
    uint64_t elements = 0;
    uint32_t blocksize = 64;
    std::vector<uint8_t> packed; // ceil(n/2) bytes; element 2i in the high nibble
    std::vector<float> absmax; // per block, float32 (the dequantized value when nested)
    bool nested = false;
    std::vector<uint8_t> absmaxCodes; // nested: per block, index into bnbDynamicMap()
    std::vector<float> nestedAbsmax; // nested: per 256 blocks
    float nestedOffset = 0; // nested: mean of the block absmax
};

// bitsandbytes quantizes the model's f16 weight: out[i] = in[i] rounded to f16 (in == out
// allowed). The reference round trip and the Playground quantize these values, not the input.
void roundToModelHalf(const float* in, float* out, uint64_t n);

// Quantizes n flattened weights. `offset` replaces the computed mean of the block absmax
// for the nested step (torch's float32 summation order is not reproduced here; pass the
// file's nested_offset to requantize bit for bit).
Bnb4Quantized quantizeBnb4(const float* src, uint64_t n, Bnb4Type type, uint32_t blocksize = 64, bool nested = false,
                           std::optional<float> offset = std::nullopt, bool parallel = true);

// quantize_blockwise: 8-bit codes of `code` per block of `blocksize`; absmax per block.
void quantizeBnbBlockwise(const float* src, uint64_t n, const std::array<float, 256>& code, uint32_t blocksize,
                          uint8_t* codes, float* absmax);

// Dequantized 4-bit weights, as float32 (one multiply: table value x block absmax).
std::vector<float> dequantizeBnb4(const Bnb4Quantized& q, Bnb4Type type);

} // namespace qs
