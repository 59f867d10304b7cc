#pragma once
// Structural checks of a checkpoint's packed weights: the stored words equal what the
// oracle packers make of the unpacked codes and zeros (catches nonzero padding and
// sign-extended fields), shapes and g_idx agree with the layout, scales are finite, and
// zero points are plausible for the declared GPTQ convention (v1 stores z - 1, v2 z).
// Covered: GPTQ (gptq-v1, gptq-v2) and AWQ GEMM; other formats are listed as unchecked.
#include "container/checkpoint.h"

#include <string>
#include <vector>

namespace qs {

struct VerifyFinding {
    std::string weight;
    std::string check;   // "shape", "qweight-roundtrip", "qzeros-roundtrip", "g_idx", "scale", "zero-convention", "v1-zero-spill"
    std::string message;
};

struct VerifyReport {
    std::vector<VerifyFinding> findings;
    std::vector<std::string> checked;   // weights every check ran on
    std::vector<std::string> unchecked; // quantized weights of formats verify does not cover
};

VerifyReport verifyCheckpoint(const Checkpoint& ckpt);
// One weight; appends to `report`.
void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report);

} // namespace qs
