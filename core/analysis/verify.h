#pragma once
// Structural checks of a checkpoint's quantized weights: the stored words equal what the
// oracle packers make of the unpacked fields (catches nonzero padding and sign-extended
// fields), shapes and g_idx agree with the layout, scales are finite, zero points are
// plausible for the declared convention (GPTQ v1 stores z - 1, v2 z), the config declares the
// layout the tensors have, and recorded input permutations exist. GPTQ/AWQ/Marlin,
// compressed-tensors, MLX, bitsandbytes and GGUF blocks have format checks; other decodable
// formats are dequantized and checked for sizes and finite values (with a warning saying
// why there is no round trip); weights without a decoder are listed as unchecked.
// The format checks live in the family folders (<family>_verify.cpp, FamilyRow::verify); the
// report types in formats/findings.h.
#include "analysis/healthscan.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/findings.h"

namespace qs {

// Besides the format checks, every decodable weight, float ones included, goes through the
// health scan (analysis/healthscan.h). The cancel is polled between weights and between the
// scan's row chunks (a cancelled run throws Cancelled: no partial report); progress hears the
// elements done, of all, in elements, each weight counting one more, and the weight.
VerifyReport verifyCheckpoint(const Checkpoint& ckpt, const Progress& progress = {});
// One weight; appends to `report`. Throws Cancelled when `health.progress` is cancelled.
void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report,
                  const HealthOptions& health = {});

} // namespace qs
