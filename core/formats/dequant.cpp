#include "formats/dequant.h"

#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/bnb/bnb.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/plain/floats.h"
#include "formats/ggml/ggml.h"
#include "formats/gptq/gptq.h"
#include "formats/hqq/hqq.h"
#include "formats/mlx/mlx.h"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <mutex>

namespace qs {

namespace {

struct Entry {
    std::string_view id;
    DequantRowsFn fn;
};

// One line per format id. A trailing '*' matches a prefix (e.g. "gguf-*").
constexpr Entry kTable[] = {
    {"gptq-v1", dequantPackedWeightRows},
    {"gptq-v2", dequantPackedWeightRows},
    {"gptq-planar", dequantPackedWeightRows},
    {"gptq-marlin", dequantPackedWeightRows},
    {"awq-gemm", dequantPackedWeightRows},
    {"awq-gemv", dequantPackedWeightRows},
    {"awq-gemv-fast", dequantPackedWeightRows},
    {"awq-marlin", dequantPackedWeightRows},
    {"bnb-nf4", dequantBnb4Rows},
    {"bnb-fp4", dequantBnb4Rows},
    {"bnb-int8", dequantBnbInt8Rows},
    {"compressed-tensors", dequantCtRows},
    {"compressed-tensors-int", dequantCtRows},
    {"compressed-tensors-fp8", dequantCtRows},
    {"mlx-affine", dequantMlxRows},
    {"hqq", dequantHqqRows},
    {"f32", dequantFloatRows},
    {"f16", dequantFloatRows},
    {"bf16", dequantFloatRows},
    {"f64", dequantFloatRows},
    {"f8_e4m3", dequantFloatRows},
    {"f8_e5m2", dequantFloatRows},
    {"f8_e4m3fnuz", dequantFloatRows},
    {"f8_e5m2fnuz", dequantFloatRows},
    {"f8_e8m0", dequantFloatRows},
    {"gguf-*", dequantGgufWeightRows},
};

// Rows per chunk: about 256 KiB of output (an L2-sized piece), at least 8 rows.
uint64_t chunkRows(uint64_t cols)
{
    const uint64_t rows = (256 * 1024 / 4) / std::max<uint64_t>(cols, 1);
    return std::max<uint64_t>(8, rows / 8 * 8);
}

// The kernels name the weight and tensor; a message must also name the checkpoint.
template <typename F>
auto namingCheckpoint(const Checkpoint& ckpt, F&& f)
{
    try {
        return f();
    } catch (const Error& e) {
        if (std::string_view(e.what()).find(ckpt.path) != std::string_view::npos)
            throw;
        throw Error(ckpt.path + ": " + e.what());
    }
}

} // namespace

DequantRowsFn dequantFunction(std::string_view formatId)
{
    for (const Entry& e : kTable) {
        if (!e.id.empty() && e.id.back() == '*') {
            if (formatId.substr(0, e.id.size() - 1) == e.id.substr(0, e.id.size() - 1))
                return e.fn;
        } else if (e.id == formatId) {
            return e.fn;
        }
    }
    return nullptr;
}

bool canDequantize(std::string_view formatId)
{
    return dequantFunction(formatId) != nullptr;
}

std::vector<std::string> dequantFormats()
{
    std::vector<std::string> ids;
    for (const Entry& e : kTable)
        ids.emplace_back(e.id);
    return ids;
}

void dequantizeRows(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t rowBegin, uint64_t rowEnd,
                    float* out, SimdPath path)
{
    const DequantRowsFn fn = dequantFunction(weight.format);
    if (!fn)
        throw Error(ckpt.path + ": weight '" + weight.name + "': no dequantizer for format '" + weight.format + "'");
    if (rowBegin > rowEnd || rowEnd > weight.outFeatures())
        throw Error(ckpt.path + ": weight '" + weight.name + "': rows " + std::to_string(rowBegin) + ".."
                    + std::to_string(rowEnd) + " outside 0.." + std::to_string(weight.outFeatures()));
    // Nothing to write: an empty weight's spans may be null, and memcpy(null, null, 0) is UB.
    if (rowBegin == rowEnd || weight.inFeatures() == 0)
        return;
    const WeightData data{ckpt, weight};
    namingCheckpoint(ckpt, [&] { fn(data, rowBegin, rowEnd, out, path); });
}

void dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, float* out, SimdPath path, int threads)
{
    const uint64_t rows = weight.outFeatures(), cols = weight.inFeatures();
    if (rows == 0 || cols == 0) // else 2^40 rows of nothing still loop over every chunk
        return;
    const uint64_t step = chunkRows(cols);
    const int64_t chunks = int64_t((rows + step - 1) / step);
    if (chunks <= 1) {
        dequantizeRows(ckpt, weight, 0, rows, out, path);
        return;
    }
    std::exception_ptr error;
    std::mutex errorLock;
    const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(team)
    for (int64_t c = 0; c < chunks; ++c) {
        const uint64_t b = uint64_t(c) * step, e = std::min(rows, b + step);
        try {
            dequantizeRows(ckpt, weight, b, e, out + b * cols, path);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(errorLock);
            if (!error)
                error = std::current_exception();
        }
    }
    if (error)
        std::rethrow_exception(error);
}

std::vector<float> dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, SimdPath path, int threads)
{
    if (!canDequantize(weight.format))
        throw Error(ckpt.path + ": weight '" + weight.name + "': no dequantizer for format '" + weight.format + "'");
    std::vector<float> out(weight.elementCount());
    dequantizeWeight(ckpt, weight, out.data(), path, threads);
    return out;
}

namespace {

// Groups along K of `groupSize` flat elements when they tile every row; else no per-row
// groups exist (blocks straddle rows): codes only, g_idx -1.
void rowGroups(WeightCodes& c, uint64_t groupSize, const std::function<float(uint64_t flatGroup)>& scale)
{
    if (groupSize == 0 || c.cols % groupSize != 0) {
        c.gIdx.assign(c.cols, -1);
        return;
    }
    const uint64_t perRow = c.cols / groupSize;
    c.groups = perRow;
    c.scales.resize(perRow * c.rows);
    for (uint64_t g = 0; g < perRow; ++g)
        for (uint64_t n = 0; n < c.rows; ++n)
            c.scales[g * c.rows + n] = scale(n * perRow + g);
    c.gIdx.resize(c.cols);
    for (uint64_t k = 0; k < c.cols; ++k)
        c.gIdx[k] = int32_t(k / groupSize);
}

// bnb, compressed-tensors, MLX and HQQ codes, read through each kernel's own state accessors.
// Codes are unsigned (signed q as q + 2^(b-1)), zeros in the same code space.
bool extractOtherCodes(const WeightData& data, WeightCodes& c)
{
    const std::string& f = data.weight.format;
    if (f == "bnb-nf4" || f == "bnb-fp4") {
        const Bnb4 s = bnb4State(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = (e & 1) ? (s.packed[e / 2] & 0x0F) : (s.packed[e / 2] >> 4);
        rowGroups(c, s.blocksize, [&](uint64_t b) { return s.blockAbsmax(b); });
        return true;
    }
    if (f == "bnb-int8") {
        const BnbInt8 s = bnbInt8State(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = uint8_t(s.q[e] ^ 0x80);
        rowGroups(c, s.cols, [&](uint64_t n) { return s.scb.at(n); });
        c.zeros.assign(s.rows, 128);
        return true;
    }
    if (f == "compressed-tensors" || f == "compressed-tensors-int") {
        const CtPacked s = ctPackedState(data);
        if (s.source == CtPacked::Source::Fp8)
            return false;
        const int offset = 1 << (s.bits - 1);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t n = 0; n < s.rows; ++n)
            for (uint64_t k = 0; k < s.cols; ++k)
                c.codes[n * s.cols + k] = uint8_t(s.code(n, k) + offset);
        c.groups = s.groups;
        c.scales.resize(s.groups * s.rows);
        c.zeros.resize(s.groups * s.rows);
        for (uint64_t g = 0; g < s.groups; ++g)
            for (uint64_t n = 0; n < s.rows; ++n) {
                c.scales[g * s.rows + n] = s.scaleAt(n, g);
                c.zeros[g * s.rows + n] = s.zeroAt(n, g) + offset;
            }
        c.gIdx.resize(s.cols);
        for (uint64_t k = 0; k < s.cols; ++k)
            c.gIdx[k] = int32_t(s.group(k));
        return true;
    }
    if (f == "mlx-affine") {
        const MlxAffine s = mlxState(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t n = 0; n < s.rows; ++n)
            for (uint64_t k = 0; k < s.cols; ++k)
                c.codes[n * s.cols + k] = uint8_t(s.code(n, k));
        rowGroups(c, s.groupSize, [&](uint64_t g) { return s.scales.at(g); });
        c.biases.resize(c.scales.size());
        for (uint64_t g = 0; g < s.groups; ++g)
            for (uint64_t n = 0; n < s.rows; ++n)
                c.biases[g * s.rows + n] = s.biases.at(n * s.groups + g);
        return true;
    }
    if (f == "hqq") {
        const Hqq s = hqqState(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = uint8_t(s.code(e / s.viewCols, e % s.viewCols));
        // Axis 1 groups are runs of viewCols flat elements; axis 0 groups are strided.
        rowGroups(c, s.axis == 1 ? s.viewCols : 0, [&](uint64_t r) { return s.scale.at(r); });
        return true;
    }
    return false;
}

} // namespace

WeightCodes extractCodes(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    static constexpr std::string_view packed[] = {"gptq-v1", "gptq-v2", "gptq-planar", "gptq-marlin",
                                                  "awq-gemm", "awq-gemv", "awq-gemv-fast", "awq-marlin"};
    const WeightData data{ckpt, weight};
    if (std::find(std::begin(packed), std::end(packed), weight.format) == std::end(packed)) {
        WeightCodes c;
        if (namingCheckpoint(ckpt, [&] { return extractOtherCodes(data, c); }))
            return c;
        throw Error(ckpt.path + ": weight '" + weight.name + "': format '" + weight.format
                    + "' has no integer codes to extract here");
    }
    const PackedLinear p = namingCheckpoint(ckpt, [&] { return describePacked(data); });
    WeightCodes c;
    c.rows = p.N;
    c.cols = p.K;
    c.groups = p.groups;
    c.codes.resize(p.N * p.K);
    for (uint64_t n = 0; n < p.N; ++n)
        for (uint64_t k = 0; k < p.K; ++k)
            c.codes[n * p.K + k] = uint8_t(p.codeAt(n, k));
    c.scales.resize(p.groups * p.N);
    if (p.zeros == ZeroConvention::FloatBias)
        c.biases.resize(p.groups * p.N);
    else
        c.zeros.resize(p.groups * p.N);
    for (uint64_t g = 0; g < p.groups; ++g)
        for (uint64_t n = 0; n < p.N; ++n) {
            c.scales[g * p.N + n] = p.scaleAt(g, n);
            if (p.zeros == ZeroConvention::FloatBias)
                c.biases[g * p.N + n] = p.biasAt(g, n);
            else
                c.zeros[g * p.N + n] = p.zeroAt(g, n);
        }
    c.gIdx.resize(p.K);
    for (uint64_t k = 0; k < p.K; ++k)
        c.gIdx[k] = int32_t(p.groupOf(k));
    return c;
}

} // namespace qs
