#pragma once
// Structural checks of a checkpoint's quantized weights: the stored words equal what the
// oracle packers make of the unpacked fields (catches nonzero padding and sign-extended
// fields), shapes and g_idx agree with the layout, scales are finite, zero points are
// plausible for the declared convention (GPTQ v1 stores z - 1, v2 z), the config declares the
// layout the tensors have, and recorded input permutations exist. GPTQ/AWQ/Marlin,
// compressed-tensors, MLX, bitsandbytes and GGUF blocks have format checks; other decodable
// formats are dequantized and checked for sizes and finite values (with a warning saying
// why there is no round trip); weights without a decoder are listed as unchecked.
#include "container/checkpoint.h"

#include <string>
#include <vector>

namespace qs {

struct VerifyFinding {
    std::string weight;
    // "shape", "qweight-roundtrip", "qzeros-roundtrip", "scales-roundtrip", "g_idx", "scale", "zero-convention",
    // "v1-zero-spill", "quant_map", "codes", "config", "input-perm", "roundtrip-not-applicable",
    // "zero-convention-mixed" (a warning: detection found GPTQ v1 and v2 zeros mixed)
    std::string check;
    std::string message;
    // Warnings describe data that upstream tools really write and read (the GPTQ v1 zero-0 spill):
    // reported, not a failed check.
    bool warning = false;
};

struct VerifyReport {
    std::vector<VerifyFinding> findings;
    std::vector<std::string> checked;   // weights every check ran on
    std::vector<std::string> unchecked; // quantized weights of formats verify does not cover
    size_t errors() const;              // findings that are not warnings
};

VerifyReport verifyCheckpoint(const Checkpoint& ckpt);
// One weight; appends to `report`.
void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report);

} // namespace qs
