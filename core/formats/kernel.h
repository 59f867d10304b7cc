#pragma once
// The contract between the dequantization dispatcher and each format's kernels.
// Every format has a plain scalar reference (the oracle) and a fast path; both write the
// same float32 bits. Output is row-major [rows, inFeatures()] of the logical weight.
#include "base/simd.h"
#include "container/checkpoint.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace qs {

// The resolved stored tensors of one logical weight.
struct WeightData {
    const Checkpoint& ckpt;
    const LogicalWeight& weight;

    bool has(std::string_view role) const { return weight.member(role) >= 0; }
    const TensorEntry& entry(std::string_view role) const; // throws naming the weight and role
    std::span<const uint8_t> bytes(std::string_view role) const; // throws naming the weight and role
};

// Dequantizes logical rows [rowBegin, rowEnd) (out_features axis) into `out`, which holds
// (rowEnd - rowBegin) * weight.inFeatures() floats.
using DequantRowsFn = void (*)(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

} // namespace qs
