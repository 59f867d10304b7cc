#include "formats/dequant.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "container/checkpoint.h"
#include "formats/detect.h"
#include "formats/family.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace qs {

uint64_t dequantChunkRows(uint64_t cols, uint64_t elements, uint64_t align)
{
    const uint64_t block = std::lcm(kDequantRowBlock, std::max<uint64_t>(align, 1));
    const uint64_t rows = std::max<uint64_t>(1, elements / std::max<uint64_t>(cols, 1));
    return ceilDiv(rows, block) * block;
}

DequantRowsFn dequantFunction(std::string_view formatId)
{
    const FormatInfo* f = findFormat(formatId);
    const FamilyRow* row = f ? familyRow(f->family) : nullptr;
    return row && row->dequant ? row->dequant(*f) : nullptr;
}

bool canDequantize(std::string_view formatId)
{
    return dequantFunction(formatId) != nullptr;
}

std::string whyNotDecoded(const LogicalWeight& weight)
{
    if (const Message* refused = refusedShape(weight))
        return refused->text();
    if (!canDequantize(weight.format))
        return "no dequantizer for format '" + weight.format + "'";
    return {};
}

void dequantizeRows(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t rowBegin, uint64_t rowEnd, float* out,
                    SimdPath path)
{
    const DequantRowsFn fn = dequantFunction(weight.format);
    if (!fn || refusedShape(weight))
        throw Error(ErrorContext{ckpt.path, weight.name}, whyNotDecoded(weight));
    if (rowBegin > rowEnd || rowEnd > weight.outFeatures())
        throw Error(ErrorContext{ckpt.path, weight.name},
                    "rows " + std::to_string(rowBegin) + ".." + std::to_string(rowEnd) + " outside 0.."
                        + std::to_string(weight.outFeatures()));
    // Nothing to write: an empty weight's spans may be null, and memcpy(null, null, 0) is UB.
    if (rowBegin == rowEnd || weight.inFeatures() == 0)
        return;
    const WeightData data{ckpt, weight};
    // The kernels name the weight in their messages; the checkpoint is what they lack.
    withContext(ErrorContext{ckpt.path}, [&] { fn(data, rowBegin, rowEnd, out, path); });
}

void dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, float* out, SimdPath path, int threads)
{
    if (const std::string why = whyNotDecoded(weight); !why.empty())
        throw Error(ErrorContext{ckpt.path, weight.name}, why);
    const uint64_t rows = weight.outFeatures(), cols = weight.inFeatures();
    if (rows == 0 || cols == 0) // else 2^40 rows of nothing still loop over every chunk
        return;
    const uint64_t step = dequantChunkRows(cols, uint64_t(1) << 16); // about 256 KiB: an L2-sized piece
    const uint64_t chunks = ceilDiv(rows, step);
    if (chunks <= 1) {
        dequantizeRows(ckpt, weight, 0, rows, out, path);
        return;
    }
    runChunks(chunks, threads, nullptr, [&](uint64_t c, NoChunkState&) {
        const uint64_t b = c * step, e = std::min(rows, b + step);
        dequantizeRows(ckpt, weight, b, e, out + b * cols, path);
    });
}

std::vector<float> dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, SimdPath path, int threads)
{
    if (const std::string why = whyNotDecoded(weight); !why.empty())
        throw Error(ErrorContext{ckpt.path, weight.name}, why);
    std::vector<float> out(weight.elementCount());
    dequantizeWeight(ckpt, weight, out.data(), path, threads);
    return out;
}

WeightCodes extractCodes(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    if (const Message* refused = refusedShape(weight))
        throw Error(ErrorContext{ckpt.path, weight.name}, refused->text());
    const FormatInfo* f = findFormat(weight.format);
    const FamilyRow* row = f && f->integerCodes ? familyRow(f->family) : nullptr;
    WeightCodes c;
    const WeightData data{ckpt, weight};
    if (row && row->codes && withContext(ErrorContext{ckpt.path}, [&] { return row->codes(data, c, CodeParts::All); }))
        return c;
    throw Error(ErrorContext{ckpt.path, weight.name},
                "format '" + weight.format + "' has no integer codes to extract here");
}

} // namespace qs
