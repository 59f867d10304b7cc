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
#include "container/checkpoint.h"
#include "formats/findings.h"

#include <atomic>
#include <functional>

namespace qs {

// Besides the format checks, every decodable weight, float ones included, goes through the
// health scan (analysis/healthscan.h). `cancel` is polled between weights and between the
// scan's row chunks (a cancelled run returns what it has; the caller knows it cancelled);
// `progress` hears (done, in all) in elements, each weight counting one more.
VerifyReport verifyCheckpoint(const Checkpoint& ckpt, const std::atomic<bool>* cancel = nullptr,
                              const std::function<void(size_t, size_t)>& progress = {});
// One weight; appends to `report`. False when `health.cancel` stopped its scan.
bool verifyWeight(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report,
                  const HealthOptions& health = {});

} // namespace qs
