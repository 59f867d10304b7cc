#pragma once
// The importance matrix llama-imatrix writes, in both its formats (llama.cpp tools/imatrix):
// - GGUF (the default since mid 2025): general.type "imatrix", imatrix.datasets (string array),
//   imatrix.chunk_count and imatrix.chunk_size (u32); per weight `<name>.in_sum2` F32
//   [columns, matrices] (the sums of x^2 per input channel), `<name>.counts` F32 [1, matrices]
//   (the activation rows each matrix saw) and, from newer writers, `<name>.in_sum` (the sums
//   of x, not needed here and skipped).
// - legacy .dat: int32 entry count; per entry int32 name length, the name, int32 ncall,
//   int32 nval, nval float32 (mean x^2 times ncall); then int32 last-call count, int32 dataset
//   name length and the name (the trailer is optional: upstream writes it, older files lack it).
// The importance is what llama-quantize passes its quantizers: in_sum2 / counts per matrix (a
// matrix that saw no rows gets 1 per channel), or the legacy values / ncall.
// Each weight of a checkpoint is matched to its entry by GGUF tensor name (Hugging Face names
// through the GGUF name table) and the lengths checked weight by weight.
#include "analysis/stats.h"
#include "container/checkpoint.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

enum class ImatrixFormat { Gguf, Legacy };

struct ImatrixEntry {
    std::string name; // the GGUF tensor name llama-imatrix saw: "blk.0.attn_q.weight"
    uint64_t columns = 0; // input channels of one matrix
    // Experts (in_sum2's second dimension). Legacy files do not say: 1, with the experts'
    // channels back to back (columns = experts x input channels).
    uint64_t matrices = 1;
    std::vector<float> importance; // matrices x columns, matrix-major: the mean of x^2 per channel
    std::vector<float> counts; // per matrix: GGUF counts; legacy: ncall, once
};

struct Imatrix {
    std::string path;
    ImatrixFormat format = ImatrixFormat::Gguf;
    std::vector<std::string> datasets;
    uint64_t chunkCount = 0; // GGUF imatrix.chunk_count; legacy: the trailing last-call count
    uint64_t chunkSize = 0; // GGUF imatrix.chunk_size; legacy files do not store it (0)
    std::vector<ImatrixEntry> entries; // sorted by name
    const ImatrixEntry* find(std::string_view name) const;
};

// Reads either format (GGUF by its magic, else legacy). Throws qs::Error naming the file and
// the entry or field for a truncated or inconsistent file; every length is checked against
// the bytes left before anything is allocated.
Imatrix readImatrix(const std::string& path);
// The same from bytes in memory (the fuzz target), read as the file `name`.
Imatrix readImatrixMemory(const std::string& name, std::span<const uint8_t> bytes);

std::string_view imatrixFormatName(ImatrixFormat f); // "GGUF", "legacy .dat"

// One matrix weight (two or more dimensions) of a checkpoint against the imatrix.
struct ImatrixWeightMatch {
    const LogicalWeight* weight = nullptr;
    const ImatrixEntry* entry = nullptr; // the entry of its name; nullptr: none
    std::string problem; // "" when the entry fits: no entry, or lengths that differ
    bool fits() const { return entry && problem.empty(); }
    bool lengthMismatch() const { return entry && !problem.empty(); }
};

struct ImatrixMatch {
    std::vector<ImatrixWeightMatch> weights; // the checkpoint's matrix weights, in its order
    std::vector<std::string> unusedEntries; // entries no weight of the checkpoint took
    size_t fitting() const;
    size_t mismatched() const; // an entry found whose lengths do not fit
    const ImatrixWeightMatch* find(std::string_view weightName) const;
};

// By name: the weight's own name (with and without ".weight"), else its GGUF name from
// hfToGguf. A fitting entry has matrices x columns = experts x input features (an expert
// weight [E, N, K] needs E matrices of K channels; a legacy entry E x K channels).
// The match points into `imatrix` and `ckpt`: both must outlive it (hence no temporaries).
ImatrixMatch matchImatrix(const Imatrix& imatrix, const Checkpoint& ckpt);
ImatrixMatch matchImatrix(Imatrix&&, const Checkpoint&) = delete;
// The same for one weight of `ckpt` (what the Error view asks for the selected weight).
ImatrixWeightMatch matchImatrixWeight(const Imatrix& imatrix, const Checkpoint& ckpt, const LogicalWeight& weight);
ImatrixWeightMatch matchImatrixWeight(Imatrix&&, const Checkpoint&, const LogicalWeight&) = delete;

// Per tensor: the mean, largest and smallest importance of its channels.
struct ImportanceSummary {
    double mean = 0, max = 0, min = 0;
};
ImportanceSummary summarizeImportance(const ImatrixEntry& e);

// "Where more bits would help most": each matched weight's importance-weighted squared error
// (StatsOptions::importance) against the reference, largest first.
struct ImportanceRankRow {
    std::string weight;
    std::string format;
    uint64_t elements = 0;
    double bitsPerWeight = 0;
    double mse = 0; // the plain mean squared error
    double weightedSumSq = 0; // sum of importance[column] * error^2 (ErrorStats::weightedSumSq)
    double share = 0; // of the ranked weights' weightedSumSq
};
struct ImportanceRanking {
    std::vector<ImportanceRankRow> rows;
    std::vector<std::string> skipped; // "<weight>: why" (no reference, not requantizable, ...)
};
// With `ref`: against its matched float weight (findReference); else with `spec`: against
// the weight requantized (compareRequantized). Only matched weights are ranked.
ImportanceRanking rankByImportance(const Checkpoint& ckpt, const ImatrixMatch& match, const Checkpoint* ref,
                                   const RequantizeSpec* spec, const StatsOptions& opt);

} // namespace qs
