#pragma once
// The per-format steps of the statistics (analysis/stats.cpp), which a family's row gives
// (FamilyRow::weightTally, FamilyRow::requantizer) as ggml's type_traits give to_float and
// from_float_ref: the driver streams row chunks and merges; the family reads its own bytes.
#include "base/simd.h"
#include "base/valuekeys.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;
struct FormatInfo;
struct RequantizeSpec;

// The code-domain steps of weightHistograms for one weight, read from its stored codes and
// scales rather than from dequantized values. Each is called on row ranges from several
// threads at once; `thread` is the OpenMP thread number (below the team size given at creation).
class WeightTally {
public:
    virtual ~WeightTally() = default;
    // Rows come in whole multiples of this (the packed kernels' blocks).
    virtual uint64_t rowAlign() const { return 1; }

    // Whether tallyValues replaces dequantizing and scanning the values.
    virtual bool talliesValues() const { return false; }
    // Rows [r0, r1)'s values: each code present adds its count to split[valueKey(value) *
    // kKeySplit + ...] and to the range bins when given, its finite value to t; the keys, range
    // bins, min and max come out as the dequantize-and-scan gives them (base/valuekeys.h).
    virtual void tallyValues(uint64_t, uint64_t, CodeTally&, uint32_t*, const RangeBins*, uint64_t*, SimdPath) const { }

    // The integer code histogram: codeBits() > 0 when the weight has one, 1 << codeBits() entries.
    virtual int codeBits() const { return 0; }
    virtual void countCodes(uint64_t, uint64_t, std::vector<uint64_t>&) const { }

    // The stored scales: addScales takes rows [r0, r1); visitScales then passes every scale of
    // the rows eachRows(0, N, f) passes to f(a, b) as visit(value, count).
    virtual bool hasScales() const { return false; }
    virtual void addScales(uint64_t, uint64_t, int) { }
    using RowRanges = std::function<void(uint64_t r0, uint64_t r1, const std::function<void(uint64_t, uint64_t)>& f)>;
    virtual void visitScales(const RowRanges&, const std::function<void(float value, uint64_t count)>&) const { }
};

// A format's reference round trip for compareRequantized: the groups its error is reported
// in, the rows a chunk is a whole multiple of, and the quantize-then-dequantize of rows.
struct Requantizer {
    uint64_t groupSize = 0;
    uint64_t rowAlign = 1;
    // q = the format's decoding of its quantization of r (rows x K floats each).
    std::function<void(const float* r, uint64_t rows, uint64_t K, float* q, SimdPath path)> roundTrip;
};

// The row hooks (formats/family.h): a weight's tally, nullptr when it has no code-domain step;
// a format's round trip at a spec for K input features, which throws (naming the format; the
// caller adds the checkpoint and weight) when the spec or K does not fit the format.
using WeightTallyFn = std::unique_ptr<WeightTally> (*)(const Checkpoint& ckpt, const LogicalWeight& weight,
                                                       int threads);
using RequantizeFn = Requantizer (*)(const FormatInfo& format, const RequantizeSpec& spec, uint64_t K);

} // namespace qs
