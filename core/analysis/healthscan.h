#pragma once
// verify's health scan: what a broken upstream checkpoint looks like whatever its format. One
// streaming pass over a weight's dequantized values (row chunks of whole kernel blocks,
// dequantChunkRows, through the fast kernels on every core, runChunks) and one over the
// scales, zeros or absmax values its family's group scale reader takes from the stored side
// tensors (FamilyRow::groupScales): non-finite values, scales, zeros and absmax; all-zero
// weights, rows and groups or blocks; zero scales that zero a whole group. Each finding names
// the first few places (formats/findings.h: FindingPlace) and the count. Severities: a
// non-finite value, scale, zero or absmax and an all-zero quantized matrix are errors (the
// layer computes NaN or nothing); an all-zero row, group or block, a zero scale and an all-zero
// float tensor or vector are warnings (padded vocabulary rows, all-zero input blocks, a LoRA B
// before training and zero biases are real).
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/findings.h"

#include <cstdint>

namespace qs {

struct HealthOptions {
    // Cancel polled before each row chunk (a cancelled scan throws Cancelled); progress: the
    // weight's elements scanned so far, of its N x K, and its name.
    Progress progress;
    int threads = 0; // <= 0: OpenMP's default
    uint64_t rowChunk = 0; // rows per chunk; 0: about 1 MiB of floats (tests set it)
};

// How many places a finding lists.
inline constexpr size_t kHealthPlaces = 5;

// Appends the findings about `weight` to `report`. Throws Cancelled when cancelled (nothing is
// appended then) and qs::Error on tensors the kernel refuses; a scale grid the family's reader
// refuses is a finding ("scales") beside what the values show.
void scanWeightHealth(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report,
                      const HealthOptions& options = {});

} // namespace qs
