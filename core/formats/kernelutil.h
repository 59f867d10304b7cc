#pragma once
// Small helpers shared by the bnb, compressed-tensors, MLX, HQQ and float kernels:
// unaligned little-endian loads from mapped bytes, typed float views over scale tensors,
// checked shape arithmetic and the one row dispatch of their kernels (dispatchRows).
#include "container/checkpoint.h"
#include "base/error.h"
#include "base/half.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "formats/kernel.h"
#include "formats/statecache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace qs {

// Exact decoders of the 8-bit float dtypes (floats.cpp); F16 and BF16 are in half.h.
float f8e4m3ToF32(uint8_t v); // float8_e4m3fn: no inf, S.1111.111 = NaN
float f8e5m2ToF32(uint8_t v); // float8_e5m2: IEEE-style inf/NaN
float f8e4m3fnuzToF32(uint8_t v); // bias 8, 0x80 = the only NaN, no -0, no inf
float f8e5m2fnuzToF32(uint8_t v); // bias 16, 0x80 = the only NaN, no -0, no inf
float f8e8m0ToF32(uint8_t v); // 2^(v-127), 0xFF = NaN

// Rounds an f32 to `t` (F16 or BF16, RNE) and back; other dtypes pass through unchanged.
float roundToDtype(float f, DType t);

template <typename T>
inline T loadLE(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v); // x86 is little-endian; memcpy tolerates any alignment
    return v;
}

// A read-only view of a floating-point tensor of any stored float dtype, read as f32.
class FloatView {
public:
    FloatView() = default;
    FloatView(std::span<const uint8_t> bytes, DType dtype, const std::string& what);
    uint64_t size() const { return m_count; }
    DType dtype() const { return m_dtype; }
    const uint8_t* data() const { return m_data; }
    float at(uint64_t i) const;
    // at(first + j) for j < count into out, the dtype dispatched once.
    void read(uint64_t first, uint64_t count, float* out) const;

private:
    const uint8_t* m_data = nullptr;
    uint64_t m_count = 0;
    DType m_dtype = DType::F32;
};

// Reads every element of an integer tensor (I8..I64, U8..U64) as int64.
int64_t readInt(std::span<const uint8_t> bytes, DType dtype, uint64_t i);
bool dtypeIsInteger(DType t);

// "weight 'x' (fmt): message"
[[noreturn]] void failWeight(const LogicalWeight& w, const std::string& what);

// Rows per parallel chunk so that a chunk covers about 64k output elements.
inline uint64_t rowsPerChunkFor(uint64_t inFeatures)
{
    return inFeatures >= 65536 ? 1 : 65536 / (inFeatures ? inFeatures : 1);
}

// How a family's kernel is given its rows: fn(state, r0, r1, out), or the flat elements they
// hold, fn(state, r0 * cols, (r1 - r0) * cols, out). `out` holds the first of them.
enum class RowSpan { Rows, Elements };

// The one DequantRowsFn body of the families whose kernels read parsed state (bnb, compressed-
// tensors, MLX, HQQ, plain floats): the State (with `rows` and `cols`) parsed once per thread and
// weight (cachedState), the row range checked against it, then `scalar` over the whole range
// when `fast` is nullptr (the path has no kernel), else `fast` over chunks of about 64k elements
// in parallel (base/parallel.h: a kernel's exception reaches the caller).
template <typename State, RowSpan Span, typename Fn>
void dispatchRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out,
                  State (*parse)(const WeightData&), Fn scalar, Fn fast)
{
    const State& s = cachedState<State>(w, parse);
    if (rowBegin > rowEnd || rowEnd > s.rows)
        failWeight(w.weight, "row range out of bounds");
    const uint64_t K = s.cols;
    const auto run = [&](Fn fn, uint64_t r0, uint64_t r1) {
        float* o = out + (r0 - rowBegin) * K;
        if constexpr (Span == RowSpan::Rows)
            fn(s, r0, r1, o);
        else
            fn(s, r0 * K, (r1 - r0) * K, o);
    };
    if (!fast) {
        run(scalar, rowBegin, rowEnd);
        return;
    }
    const uint64_t rowsPerChunk = rowsPerChunkFor(K);
    const uint64_t chunks = ceilDiv(rowEnd - rowBegin, rowsPerChunk);
    if (chunks <= 1) { // an inactive parallel region still costs a team set-up per call
        if (chunks == 1)
            run(fast, rowBegin, rowEnd);
        return;
    }
    parallelFor(chunks, true, [&](uint64_t c) {
        const uint64_t r0 = rowBegin + c * rowsPerChunk;
        run(fast, r0, std::min(r0 + rowsPerChunk, rowEnd));
    });
}

} // namespace qs
