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
#include "container/checkpoint.h"
#include "formats/findings.h"

#include <atomic>
#include <cstdint>
#include <functional>

namespace qs {

struct HealthOptions {
    const std::atomic<bool>* cancel = nullptr; // polled before each chunk
    // On the calling thread after each of its chunks: the elements scanned since the last call.
    std::function<void(uint64_t)> progress;
    int threads = 0; // <= 0: OpenMP's default
    uint64_t rowChunk = 0; // rows per chunk; 0: about 1 MiB of floats (tests set it)
};

// How many places a finding lists.
inline constexpr size_t kHealthPlaces = 5;

// Appends the findings about `weight` to `report`; false when cancelled (nothing is appended
// then). Throws qs::Error on tensors the kernel refuses.
bool scanWeightHealth(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report,
                      const HealthOptions& options = {});

} // namespace qs
