#include "analysis/repack.h"

#include "formats/affine/quantize_affine.h"
#include "analysis/quantize_checkpoint.h"
#include "analysis/streamwriter.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "base/parallel.h"
#include "formats/formatid.h"
#include "base/bitstream.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"
#include "formats/opencheckpoint.h"

#include <QDir>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <stdexcept>

namespace qs {

bool LogicalMatrix::symmetric() const
{
    const int32_t mid = int32_t(1u << (bits - 1));
    return std::all_of(zeros.begin(), zeros.end(), [mid](int32_t z) { return z == mid; });
}

bool LogicalMatrix::actOrder() const
{
    for (uint64_t k = 0; k < gIdx.size(); ++k)
        if (uint64_t(gIdx[k]) != k / groupSize)
            return true;
    return false;
}

namespace {

std::string weightError(const Checkpoint& c, const LogicalWeight& w, const std::string& what)
{
    return c.path + ": weight '" + w.name + "': " + what;
}

bool isGguf(const std::string& id) { return id.rfind("gguf-", 0) == 0; }

int ggmlOf(const std::string& id)
{
    return id == "gguf-q4_1" ? GgmlQ4_1 : id == "gguf-q5_1" ? GgmlQ5_1 : GgmlQ8_0;
}

DType scaleDtype(ScaleType t)
{
    return t == ScaleType::F16 ? DType::F16 : t == ScaleType::BF16 ? DType::BF16 : DType::F32;
}

uint16_t halfBitsOf(float v, DType t) { return t == DType::BF16 ? floatToBf16(v) : floatToHalf(v); }

struct Owned {
    std::string name;
    DType dtype;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes;
};

template <typename T>
Owned owned(std::string name, DType dtype, std::vector<uint64_t> shape, const std::vector<T>& v)
{
    Owned o{std::move(name), dtype, std::move(shape), std::vector<uint8_t>(v.size() * sizeof(T))};
    if (!v.empty())
        std::memcpy(o.bytes.data(), v.data(), o.bytes.size());
    return o;
}

// GPTQ v1 qzeros as AutoGPTQ's pack() writes them: each field is z - 1 converted to uint32 and
// OR-ed in after shifting, so a zero of 0 (-1) sets every higher bit of its word (a field that
// straddles into the next word contributes only its own bits there). Decoding that word with
// the reference v1 rule gives back the zeros it came from, so v1 -> v2 -> v1 keeps the bytes.
std::vector<uint32_t> gptqV1Zeros(const LogicalMatrix& m)
{
    const int b = m.bits;
    const uint64_t N = m.N, cols = (N * uint64_t(b) + 31) / 32;
    std::vector<uint32_t> out(m.groups * cols, 0);
    for (uint64_t g = 0; g < m.groups; ++g) {
        uint32_t* row = out.data() + g * cols;
        for (uint64_t n = 0; n < N; ++n) {
            const int32_t f = m.zeros[g * N + n] - 1;
            if (f >= (1 << b) || f < -1)
                throw Error("zero " + std::to_string(f + 1) + " (group " + std::to_string(g) + ", column " + std::to_string(n) +
                            ") does not fit a " + std::to_string(b) + "-bit GPTQ v1 field");
            const uint64_t bit = n * uint64_t(b);
            const unsigned shift = unsigned(bit % 32);
            const uint64_t word = bit / 32;
            row[word] |= uint32_t(f) << shift; // f = -1 spills ones into the higher fields, as upstream
            if (shift + unsigned(b) > 32)
                row[word + 1] |= (uint32_t(f) >> (32 - shift)) & ((1u << (shift + unsigned(b) - 32)) - 1u);
        }
    }
    return out;
}

// The permutation that makes the groups contiguous (stable sort by group) when the target has
// no g_idx; applies it to the codes. Throws when the groups are not all full.
std::vector<int32_t> makeContiguous(LogicalMatrix& m)
{
    std::vector<int32_t> perm(m.K);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int32_t a, int32_t b) { return m.gIdx[size_t(a)] < m.gIdx[size_t(b)]; });
    for (uint64_t i = 0; i < m.K; ++i)
        if (uint64_t(m.gIdx[size_t(perm[i])]) != i / m.groupSize)
            throw Error("act-order groups are not all " + std::to_string(m.groupSize) +
                        " channels: sorting by g_idx does not give contiguous groups");
    std::vector<uint8_t> codes(m.codes.size());
    for (uint64_t n = 0; n < m.N; ++n)
        for (uint64_t i = 0; i < m.K; ++i)
            codes[n * m.K + i] = m.codes[n * m.K + uint64_t(perm[i])];
    m.codes = std::move(codes);
    for (uint64_t i = 0; i < m.K; ++i)
        m.gIdx[i] = int32_t(i / m.groupSize);
    return perm;
}

// Codes of GPTQ qweight (column n: the LSB-first bitstream of row n's K codes) into
// codes[n * K + k], a block of 64 columns at a time: each word row of the block is one
// contiguous read, each column's pending bits held in a 64-bit buffer. The same codes as
// PackedLinear::codeAt (tests compare them on every fixture).
void gptqCodes(const PackedLinear& p, uint8_t* codes)
{
    const uint64_t N = p.N, K = p.K, bits = uint64_t(p.bits);
    const uint64_t wordRows = (K * bits + 31) / 32;
    if (p.qweight.size() / 4 / wordRows < N)
        throw Error(p.name + ": qweight holds fewer words than " + std::to_string(wordRows) + " x " + std::to_string(N));
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    runChunks((N + 63) / 64, 0, nullptr, [&](uint64_t b, NoChunkState&) {
        const uint64_t n0 = b * 64, w = std::min<uint64_t>(64, N - n0);
        uint64_t acc[64] = {};
        uint64_t have = 0, k = 0;
        for (uint64_t r = 0; r < wordRows && k < K; ++r) {
            const uint8_t* row = p.qweight.data() + 4 * (r * N + n0);
            for (uint64_t j = 0; j < w; ++j) {
                uint32_t word;
                std::memcpy(&word, row + 4 * j, 4);
                acc[j] |= uint64_t(word) << have; // have < bits: room for 32 more
            }
            have += 32;
            const uint64_t ready = std::min(have / bits, K - k);
            for (uint64_t j = 0; j < w; ++j) {
                uint64_t a = acc[j];
                uint8_t* dst = codes + (n0 + j) * K + k;
                for (uint64_t i = 0; i < ready; ++i, a >>= bits)
                    dst[i] = uint8_t(a & mask);
                acc[j] = a;
            }
            have -= ready * bits;
            k += ready;
        }
    });
}

std::vector<uint16_t> scaleBits(const LogicalMatrix& m, DType t)
{
    std::vector<uint16_t> s(m.scales.size());
    for (size_t i = 0; i < s.size(); ++i)
        s[i] = halfBitsOf(m.scales[i], t);
    return s;
}

AffineQuantized asAffine(const LogicalMatrix& m, AffineRule rule)
{
    AffineQuantized q;
    q.rows = m.N;
    q.cols = m.K;
    q.bits = m.bits;
    q.groupSize = m.groupSize;
    q.groups = m.groups;
    q.rule = rule;
    q.symmetric = m.symmetric();
    q.codes = m.codes;
    q.scales = m.scales;
    q.zeros.assign(m.zeros.begin(), m.zeros.end());
    return q;
}

std::vector<Owned> encodeSafetensors(const LogicalMatrix& m, const std::string& to, const std::string& prefix)
{
    std::vector<Owned> out;
    const DType st = m.scaleType == DType::BF16 ? DType::BF16 : DType::F16; // GPTQ/AWQ: half scales
    try {
        if (to == "gptq-v1" || to == "gptq-v2") {
            std::vector<int32_t> z = m.zeros;
            if (to == "gptq-v1")
                std::fill(z.begin(), z.end(), 1); // qzeros replaced below; packGptq(v1) refuses z = 0
            PackedOutput p = packGptq(m.codes, z, scaleBits(m, st), m.bits, m.K, m.N, m.groups, to == "gptq-v1", false);
            if (to == "gptq-v1") {
                const std::vector<uint32_t> zw = gptqV1Zeros(m);
                std::memcpy(p.qzeros.bytes.data(), zw.data(), p.qzeros.bytes.size());
            }
            out.push_back({prefix + ".qweight", DType::I32, p.qweight.shape, std::move(p.qweight.bytes)});
            out.push_back({prefix + ".qzeros", DType::I32, p.qzeros.shape, std::move(p.qzeros.bytes)});
            out.push_back({prefix + ".scales", st, p.scales.shape, std::move(p.scales.bytes)});
            out.push_back(owned(prefix + ".g_idx", DType::I32, {m.K}, m.gIdx));
        } else if (to == "awq-gemm") {
            if (m.bits > 4)
                throw Error(std::to_string(m.bits) + "-bit codes do not fit AWQ GEMM's 4-bit fields");
            // AutoAWQ's WQLinear_GEMM asserts both: a padded weight would not load as the model's layer.
            if (m.N % 8)
                throw Error("AWQ GEMM packs 8 output features per int32 (AutoAWQ asserts out_features % 8 == 0): N = " +
                            std::to_string(m.N) + " cannot be stored");
            if (m.K % m.groupSize)
                throw Error("AWQ needs whole groups (AutoAWQ asserts in_features % group_size == 0): group size " +
                            std::to_string(m.groupSize) + " does not divide K = " + std::to_string(m.K));
            // The packer (the bitstream oracle) on blocks of 64 rows in parallel: it gathers each
            // k's codes across the rows, which within a block stay in cache. A block's words
            // are columns [n0 / 8, n1 / 8) of qweight and qzeros.
            const std::vector<uint16_t> sb = scaleBits(m, st);
            const uint64_t words = m.N / 8, groups = m.groups;
            std::vector<uint8_t> qweight(m.K * words * 4), qzeros(groups * words * 4);
            runChunks((m.N + 63) / 64, 0, nullptr, [&](uint64_t b, NoChunkState&) {
                const uint64_t n0 = b * 64, nb = std::min<uint64_t>(64, m.N - n0);
                std::vector<int32_t> z(groups * nb);
                std::vector<uint16_t> sc(groups * nb);
                for (uint64_t g = 0; g < groups; ++g)
                    for (uint64_t j = 0; j < nb; ++j) {
                        z[g * nb + j] = m.zeros[g * m.N + n0 + j];
                        sc[g * nb + j] = sb[g * m.N + n0 + j];
                    }
                const PackedOutput p = packAwqGemm(std::span<const uint8_t>(m.codes).subspan(n0 * m.K, nb * m.K), z, sc, m.K,
                                                   nb, m.groupSize);
                const uint64_t bw = nb / 8 * 4; // bytes of the block per row of words
                for (uint64_t k = 0; k < m.K; ++k)
                    std::memcpy(qweight.data() + (k * words + n0 / 8) * 4, p.qweight.bytes.data() + k * bw, bw);
                for (uint64_t g = 0; g < groups; ++g)
                    std::memcpy(qzeros.data() + (g * words + n0 / 8) * 4, p.qzeros.bytes.data() + g * bw, bw);
            });
            out.push_back({prefix + ".qweight", DType::I32, {m.K, words}, std::move(qweight)});
            out.push_back({prefix + ".qzeros", DType::I32, {groups, words}, std::move(qzeros)});
            out.push_back(owned(prefix + ".scales", st, {groups, m.N}, sb));
        } else {
            // compressed-tensors keeps the source's scale dtype and stores g_idx itself (actorder "group").
            const AffineQuantized q = asAffine(m, AffineRule::CompressedTensors);
            if (m.bits < 2)
                throw Error("compressed-tensors packs 2..8-bit codes");
            for (StoredTensor& s : packAffine(q, AffineTarget::CompressedTensors, m.scaleType))
                out.push_back({prefix + "." + s.suffix, s.dtype, std::move(s.shape), std::move(s.bytes)});
            if (m.actOrder())
                out.push_back(owned(prefix + ".weight_g_idx", DType::I32, {m.K}, m.gIdx));
        }
    } catch (const std::invalid_argument& e) {
        throw Error(e.what());
    }
    return out;
}

// GGUF Q4_1 / Q5_1 / Q8_0 blocks of 32 along K: Q8_0 holds q = code - zero with d = s (exact
// when s is an f16); Q4_1 / Q5_1 hold the code with d = s and m = -s * zero rounded to f16.
std::vector<uint8_t> encodeGguf(const LogicalMatrix& m, int type)
{
    const int maxBits = type == GgmlQ4_1 ? 4 : type == GgmlQ5_1 ? 5 : 8;
    if (m.bits > maxBits)
        throw Error(std::to_string(m.bits) + "-bit codes do not fit " + std::string(ggmlTypeName(type)));
    if (m.K % 32 || m.groupSize % 32)
        throw Error("GGUF blocks are 32 weights along K: K = " + std::to_string(m.K) + " and the group size " +
                    std::to_string(m.groupSize) + " must be multiples of 32");
    const uint64_t blocksPerRow = m.K / 32;
    const size_t bb = type == GgmlQ4_1 ? 20 : type == GgmlQ5_1 ? 24 : 34;
    std::vector<uint8_t> out(m.N * blocksPerRow * bb, 0);
    for (uint64_t n = 0; n < m.N; ++n)
        for (uint64_t j = 0; j < blocksPerRow; ++j) {
            uint8_t* blk = out.data() + (n * blocksPerRow + j) * bb;
            const uint64_t gi = uint64_t(m.gIdx[j * 32]) * m.N + n;
            const float s = m.scales[gi];
            const int32_t z = m.zeros[gi];
            const uint8_t* c = m.codes.data() + n * m.K + j * 32;
            const uint16_t d = floatToHalf(s);
            std::memcpy(blk, &d, 2);
            if (type == GgmlQ8_0) {
                for (int i = 0; i < 32; ++i)
                    blk[2 + i] = uint8_t(int8_t(std::clamp(int32_t(c[i]) - z, -128, 127)));
                continue;
            }
            const uint16_t mn = floatToHalf(-(s * float(z)));
            std::memcpy(blk + 2, &mn, 2);
            uint8_t* qs = blk + (type == GgmlQ4_1 ? 4 : 8);
            uint32_t qh = 0;
            for (int i = 0; i < 16; ++i) {
                qs[i] = uint8_t((c[i] & 0x0F) | ((c[i + 16] & 0x0F) << 4));
                qh |= uint32_t((c[i] >> 4) & 1) << i;
                qh |= uint32_t((c[i + 16] >> 4) & 1) << (i + 16);
            }
            if (type == GgmlQ5_1)
                std::memcpy(blk + 4, &qh, 4);
        }
    return out;
}

int ggmlPlainType(DType t)
{
    switch (t) {
    case DType::F32: return GgmlF32;
    case DType::F16: return GgmlF16;
    case DType::BF16: return GgmlBF16;
    case DType::I8: return GgmlI8;
    case DType::I16: return GgmlI16;
    case DType::I32: return GgmlI32;
    case DType::I64: return GgmlI64;
    case DType::F64: return GgmlF64;
    default: return -1;
    }
}

} // namespace

LogicalMatrix readLogicalMatrix(const Checkpoint& ckpt, const LogicalWeight& w, bool withCodes)
{
    static constexpr std::string_view packed[] = {"gptq-v1", "gptq-v2", "gptq-planar", "gptq-marlin",
                                                  "awq-gemm", "awq-gemv", "awq-marlin"};
    LogicalMatrix m;
    const WeightData wd{ckpt, w};
    try {
        if (std::find(std::begin(packed), std::end(packed), w.format) != std::end(packed)) {
            const PackedLinear p = describePacked(wd);
            m.N = p.N;
            m.K = p.K;
            m.bits = p.bits;
            m.groups = p.groups;
            m.groupSize = p.groupSize;
            m.scaleType = scaleDtype(p.scaleType);
            m.codes.resize(withCodes ? m.N * m.K : 0);
            const int64_t rows = withCodes ? int64_t(m.N) : 0;
            if (withCodes && p.kind == PackedKind::Gptq) {
                gptqCodes(p, m.codes.data());
            } else {
#pragma omp parallel for schedule(static)
                for (int64_t n = 0; n < rows; ++n) // codeAt only reads: rows are independent
                    for (uint64_t k = 0; k < m.K; ++k)
                        m.codes[uint64_t(n) * m.K + k] = uint8_t(p.codeAt(uint64_t(n), k));
            }
            m.scales.resize(m.groups * m.N);
            m.zeros.resize(m.groups * m.N);
            for (uint64_t g = 0; g < m.groups; ++g)
                for (uint64_t n = 0; n < m.N; ++n) {
                    m.scales[g * m.N + n] = p.scaleAt(g, n);
                    m.zeros[g * m.N + n] = p.zeroAt(g, n);
                }
            m.gIdx.resize(m.K);
            for (uint64_t k = 0; k < m.K; ++k)
                m.gIdx[k] = int32_t(p.groupOf(k));
        } else if (w.format == "compressed-tensors" || w.format == "compressed-tensors-int") {
            const CtPacked s = ctPackedState(wd);
            m.N = s.rows;
            m.K = s.cols;
            m.bits = s.source == CtPacked::Source::Int8 ? 8 : s.bits;
            m.groups = s.tensorScale ? 1 : s.groups;
            m.groupSize = s.gidx.empty() && s.groupSize ? s.groupSize : (m.K + m.groups - 1) / m.groups;
            m.scaleType = s.scale.dtype();
            const int off = 1 << (m.bits - 1);
            m.codes.resize(withCodes ? m.N * m.K : 0);
            const int64_t rows = withCodes ? int64_t(m.N) : 0;
#pragma omp parallel for schedule(static)
            for (int64_t n = 0; n < rows; ++n)
                for (uint64_t k = 0; k < m.K; ++k)
                    m.codes[uint64_t(n) * m.K + k] = uint8_t(s.code(uint64_t(n), k) + off);
            m.scales.resize(m.groups * m.N);
            m.zeros.resize(m.groups * m.N);
            for (uint64_t g = 0; g < m.groups; ++g)
                for (uint64_t n = 0; n < m.N; ++n) {
                    m.scales[g * m.N + n] = s.scaleAt(n, g);
                    m.zeros[g * m.N + n] = s.zeroAt(n, g) + off;
                }
            m.gIdx.resize(m.K);
            for (uint64_t k = 0; k < m.K; ++k) {
                const uint64_t g = s.group(k);
                if (g >= m.groups)
                    throw Error("weight_g_idx[" + std::to_string(k) + "] = " + std::to_string(g) + " is not a group");
                m.gIdx[k] = int32_t(g);
            }
        } else {
            throw Error("format '" + w.format + "' has no integer codes and zero points to repack");
        }
    } catch (const Error& e) {
        const std::string msg = e.what();
        throw Error(msg.rfind(ckpt.path, 0) == 0 ? msg : weightError(ckpt, w, msg));
    }
    if (m.groupSize == 0)
        m.groupSize = m.K;
    return m;
}

std::vector<std::string> repackTargets()
{
    return {"gptq-v1", "gptq-v2", "awq-gemm", "compressed-tensors", "mlx-affine", "gguf-q4_1", "gguf-q5_1", "gguf-q8_0"};
}

std::string repackTargetId(const std::string& text)
{
    std::string id;
    for (char c : text)
        if (c != ' ')
            id += char(std::tolower(static_cast<unsigned char>(c)));
    if (id == "gptq") id = "gptq-v1";
    else if (id == "awq") id = "awq-gemm";
    else if (id == "ct") id = "compressed-tensors";
    else if (id == "mlx") id = "mlx-affine";
    else if (id == "q4_1" || id == "q5_1" || id == "q8_0") id = "gguf-" + id;
    const auto all = repackTargets();
    if (std::find(all.begin(), all.end(), id) == all.end()) {
        std::string list;
        for (const std::string& s : all)
            list += (list.empty() ? "" : ", ") + s;
        throw Error("--to: repack cannot produce '" + text + "'; targets: " + list);
    }
    return id;
}

namespace {

// The module's output tensors when the target is a safetensors format, for the header bound.
constexpr size_t kMaxTensorsPerWeight = 6;
constexpr size_t kMaxSuffix = 24; // ".weight_zero_point", ".input_perm", ...

// One weight repacked: its tensors (in the order written) and what happened.
struct Repacked {
    std::vector<Owned> tensors;
    std::vector<int32_t> perm;
};

bool ggufFallback(uint64_t K) { return K % 32 != 0; }

uint16_t roundedBits(float v, DType t) { return t == DType::BF16 ? floatToBf16(v) : floatToHalf(v); }
float fromBits(uint16_t b, DType t) { return t == DType::BF16 ? bf16ToFloat(b) : halfToFloat(b); }

// MLX affine: w = s * q + bias with bias = -s * z, scales and biases in the weight's dtype.
// s * q and -s * z are exact in float32 and so is their sum (|q - z| < 2^8), so the result is
// the source's s * (q - z) whenever the bias survives the rounding to the stored dtype.
std::vector<Owned> encodeMlx(const LogicalMatrix& m, const std::string& prefix, std::string& note)
{
    static constexpr uint64_t groups[] = {32, 64, 128};
    if (m.bits < 2 || m.bits > 8 || m.bits == 7)
        throw Error("MLX packs 2, 3, 4, 5, 6 or 8-bit codes, not " + std::to_string(m.bits));
    if (std::find(std::begin(groups), std::end(groups), m.groupSize) == std::end(groups) || m.K % m.groupSize)
        throw Error("mlx.core.quantize takes groups of 32, 64 or 128 that divide K; the source has groups of " +
                    std::to_string(m.groupSize) + " for K = " + std::to_string(m.K));
    AffineQuantized q = asAffine(m, AffineRule::Mlx);
    const DType st = m.scaleType;
    uint64_t inexact = 0;
    for (size_t i = 0; i < q.zeros.size(); ++i) {
        const float bias = -(m.scales[i] * float(m.zeros[i]));
        q.zeros[i] = bias;
        inexact += st != DType::F32 && fromBits(roundedBits(bias, st), st) != bias;
    }
    if (inexact)
        note = std::to_string(inexact) + " of " + std::to_string(q.zeros.size()) + " biases (-scale * zero) round to " +
               std::string(dtypeName(st)) + ": the MLX weight is not bit-identical (error below)";
    std::vector<Owned> out;
    for (StoredTensor& t : packAffine(q, AffineTarget::Mlx, st))
        out.push_back({prefix + "." + t.suffix, t.dtype, std::move(t.shape), std::move(t.bytes)});
    return out;
}

} // namespace

RepackResult repackCheckpoint(const Checkpoint& src, const std::string& out, const RepackOptions& opt)
{
    const std::string to = repackTargetId(opt.to);
    const bool gguf = isGguf(to);
    RepackResult res;
    res.output = out;
    if (!gguf && src.container != Container::Safetensors)
        fail(src.path, "safetensors targets need a safetensors input");

    std::vector<const LogicalWeight*> todo;
    std::vector<bool> member(src.tensors.size(), false);
    std::map<size_t, size_t> firstMember; // tensor index -> index into todo
    for (const LogicalWeight& w : src.weights) {
        const FormatInfo* f = findFormat(w.format);
        if (!f || !f->quantized)
            continue;
        firstMember[w.members.front().second] = todo.size();
        todo.push_back(&w);
        for (const auto& [role, idx] : w.members)
            member[idx] = true;
    }
    if (todo.empty())
        fail(src.path, "no quantized weight to repack");

    QuantScheme scheme;
    scheme.format = to;
    std::map<std::string, std::vector<int32_t>> perms;
    std::map<std::string, bool> fallback; // GGUF: weights stored as F32 (K not whole blocks)
    res.weights.resize(todo.size());
    size_t done = 0;
    const auto progress = [&](const std::string& name) {
        ++done;
        if (opt.progress)
            opt.progress(done, todo.size() * (opt.verify ? 2 : 1), name);
    };
    // Reads, repacks and forgets one weight: only its own tensors are in memory at a time.
    const auto repackOne = [&](size_t wi) -> std::vector<Owned> {
        const LogicalWeight& w = *todo[wi];
        if (opt.cancel && opt.cancel->load())
            throw Error("repack: cancelled");
        RepackWeight& rw = res.weights[wi];
        rw.name = w.name;
        rw.from = w.format;
        std::vector<Owned> t;
        try {
            if (gguf && ggufFallback(w.inFeatures())) {
                // llama.cpp's quantize keeps such a tensor in float (F16) too; F32 holds it exactly.
                std::vector<float> x = dequantizeWeight(src, w, bestSimdPath(), opt.threads);
                rw.note = "K = " + std::to_string(w.inFeatures()) + " is not a whole number of 32-weight blocks: stored as F32";
                t.push_back(owned(w.name + ".weight", DType::F32, {w.outFeatures(), w.inFeatures()}, x));
                progress(w.name);
                return t;
            }
            LogicalMatrix m = readLogicalMatrix(src, w);
            const bool needsContiguous = to == "awq-gemm" || to == "mlx-affine" || gguf;
            std::vector<int32_t> perm;
            if (needsContiguous && m.actOrder()) {
                perm = makeContiguous(m);
                rw.permuted = true;
            }
            if (gguf)
                t.push_back(Owned{w.name + ".weight", DType::Ggml, {m.N, m.K}, encodeGguf(m, ggmlOf(to))});
            else if (to == "mlx-affine")
                t = encodeMlx(m, w.name, rw.note);
            else
                t = encodeSafetensors(m, to, w.name);
            if (!perm.empty()) {
                t.push_back(owned(w.name + ".input_perm", DType::I32, {m.K}, perm));
                if (!gguf) // GGUF names them in its metadata, laid out before any weight is read
                    scheme.inputPermutations.push_back(w.name);
                perms[w.name] = std::move(perm);
            }
            scheme.bits = to == "awq-gemm" ? 4 : m.bits;
            scheme.groupSize = m.groups == 1 && to != "mlx-affine" ? -1 : int64_t(m.groupSize);
            scheme.symmetric = m.symmetric();
            scheme.actOrder |= m.actOrder() && (to == "compressed-tensors" || to == "gptq-v1" || to == "gptq-v2");
            scheme.modelDtype = m.scaleType;
        } catch (const Error& e) {
            const std::string msg = e.what();
            if (msg.rfind(src.path, 0) == 0)
                throw;
            fail(src.path, "weight '" + w.name + "' (" + w.format + " -> " + to + "): " + msg);
        }
        progress(w.name);
        return t;
    };

    if (gguf) {
        // The tensor infos come first in a GGUF file: each weight's output tensors are known
        // from its shape and g_idx alone (no codes read).
        std::vector<GgufTensor> plan;
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            const TensorEntry& t = src.tensors[i];
            if (const auto it = firstMember.find(i); it != firstMember.end()) {
                const LogicalWeight& w = *todo[it->second];
                const uint64_t N = w.outFeatures(), K = w.inFeatures();
                if (ggufFallback(K)) {
                    fallback[w.name] = true;
                    plan.push_back(GgufTensor{w.name + ".weight", GgmlF32, {K, N}, {}});
                    continue;
                }
                plan.push_back(GgufTensor{w.name + ".weight", ggmlOf(to), {K, N}, {}});
                if (readLogicalMatrix(src, w, false).actOrder()) {
                    plan.push_back(GgufTensor{w.name + ".input_perm", GgmlI32, {K}, {}});
                    scheme.inputPermutations.push_back(w.name);
                }
                continue;
            }
            if (member[i])
                continue;
            const int type = t.dtype == DType::Ggml ? t.ggmlType : ggmlPlainType(t.dtype);
            if (type < 0)
                fail(src.path, "tensor '" + t.name + "': " + std::string(dtypeName(t.dtype)) + " has no GGUF type");
            plan.push_back(GgufTensor{t.name, type, {t.shape.rbegin(), t.shape.rend()}, {}});
        }
        GgufMetadata meta;
        bool hasArch = false;
        for (const auto& [k, v] : src.metadata) {
            if (k == "general.file_type" || k == "general.quantization_version" || k.rfind("split.", 0) == 0)
                continue;
            hasArch |= k == "general.architecture";
            if (src.container == Container::Gguf)
                meta.emplace_back(k, v);
        }
        if (!hasArch)
            meta.insert(meta.begin(), {"general.architecture",
                                       MetaValue{MetaValue::Type::String, MetaValue::Type::U8,
                                                 src.config.value(QStringLiteral("model_type")).toString(QStringLiteral("llama")).toStdString()}});
        meta.emplace_back("general.quantization_version", MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(2)});
        meta.emplace_back("general.file_type", MetaValue{MetaValue::Type::U32, MetaValue::Type::U8,
                                                         uint64_t(llamaFileType(ggmlOf(to)))});
        if (!scheme.inputPermutations.empty()) {
            std::vector<MetaValue> names;
            for (const std::string& p : scheme.inputPermutations) {
                MetaValue v; // built in place: GCC 12 misreads the variant's copy from a temporary as uninitialized
                v.value = p + ".input_perm";
                names.push_back(std::move(v));
            }
            meta.emplace_back("quantscope.input_permutations",
                              MetaValue{MetaValue::Type::Array, MetaValue::Type::String, std::move(names)});
        }
        GgufStreamWriter writer(out, meta, plan);
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            if (const auto it = firstMember.find(i); it != firstMember.end()) {
                for (const Owned& o : repackOne(it->second))
                    writer.append(o.bytes);
                continue;
            }
            if (member[i])
                continue;
            writer.append(src.bytes(src.tensors[i]));
            res.copied.push_back(src.tensors[i].name);
        }
        writer.commit();
    } else {
        const std::map<std::string, std::string> stMeta{{"format", "pt"}};
        uint64_t reserve = SafetensorsStreamWriter::metadataBound(stMeta);
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            if (const auto it = firstMember.find(i); it != firstMember.end())
                reserve += kMaxTensorsPerWeight *
                           SafetensorsStreamWriter::entryBound(todo[it->second]->name + std::string(kMaxSuffix, ' '), 2);
            else if (!member[i])
                reserve += SafetensorsStreamWriter::entryBound(src.tensors[i].name, src.tensors[i].shape.size());
        }
        writeIntoFolder(out, [&] {
            SafetensorsStreamWriter writer(out + "/model.safetensors", reserve);
            for (size_t i = 0; i < src.tensors.size(); ++i) {
                const TensorEntry& t = src.tensors[i];
                if (const auto it = firstMember.find(i); it != firstMember.end()) {
                    for (const Owned& o : repackOne(it->second))
                        writer.append(o.name, o.dtype, o.shape, o.bytes);
                    continue;
                }
                if (member[i])
                    continue;
                writer.append(t.name, t.dtype, t.shape, src.bytes(t));
                res.copied.push_back(t.name);
            }
            writer.commit(stMeta);
            QJsonObject base = src.config;
            base.remove(QStringLiteral("quantization"));
            base.remove(QStringLiteral("quantization_config"));
            writeQuantizedConfigs(out, base, scheme);
        });
    }
    const auto collectNotes = [&res] {
        for (const RepackWeight& rw : res.weights)
            if (!rw.note.empty())
                res.notes.push_back(rw.name + ": " + rw.note);
        return res;
    };
    if (!opt.verify)
        return collectNotes();
    const auto dst = openCheckpoint(out);
    const SimdPath path = bestSimdPath();
    for (RepackWeight& rw : res.weights) {
        if (opt.cancel && opt.cancel->load())
            throw Error("repack: cancelled");
        const LogicalWeight* a = src.findWeight(rw.name);
        const LogicalWeight* b = dst->findWeight(gguf ? rw.name + ".weight" : rw.name);
        const std::string expect = fallback.count(rw.name) ? "gguf-f32" : to;
        if (!b)
            fail(out, "the repacked weight '" + rw.name + "' is not found when the output is read back");
        if (b->format != expect)
            fail(out, "weight '" + rw.name + "' reads back as " + b->format + ", not " + expect);
        const uint64_t K = a->inFeatures(), N = a->outFeatures();
        if (b->inFeatures() != K || b->outFeatures() != N)
            fail(out, "weight '" + rw.name + "' reads back as [" + std::to_string(b->outFeatures()) + ", " +
                          std::to_string(b->inFeatures()) + "], not [" + std::to_string(N) + ", " + std::to_string(K) + "]");
        // Row chunks of about 1 MiB per side, OpenMP across chunks, partial sums combined in
        // chunk order: constant memory and the same figures for any thread count.
        const auto it = perms.find(rw.name);
        const uint64_t rows = std::max<uint64_t>(1, (uint64_t(1) << 18) / std::max<uint64_t>(K, 1));
        const int64_t chunks = int64_t((N + rows - 1) / rows);
        std::vector<double> sums(size_t(chunks), 0.0), maxima(size_t(chunks), 0.0);
        std::vector<uint64_t> mismatches(size_t(chunks), 0);
        struct Rows {
            std::vector<float> x, y;
        };
        runChunks<Rows>(uint64_t(chunks), opt.threads, nullptr, [&](uint64_t c, Rows& buf) {
            const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
            buf.x.resize(size_t((r1 - r0) * K));
            buf.y.resize(buf.x.size());
            dequantizeRows(src, *a, r0, r1, buf.x.data(), path);
            dequantizeRows(*dst, *b, r0, r1, buf.y.data(), path);
            double sum = 0, mx = 0;
            uint64_t differ = 0;
            for (uint64_t n = 0; n < r1 - r0; ++n)
                for (uint64_t i = 0; i < K; ++i) {
                    const float xs = buf.x[n * K + (it == perms.end() ? i : uint64_t(it->second[i]))];
                    const float yt = buf.y[n * K + i];
                    differ += std::bit_cast<uint32_t>(xs) != std::bit_cast<uint32_t>(yt);
                    const double d = double(yt) - double(xs);
                    sum += d * d;
                    mx = std::max(mx, std::fabs(d));
                }
            sums[c] = sum;
            maxima[c] = mx;
            mismatches[c] = differ;
        });
        double sum = 0;
        for (int64_t c = 0; c < chunks; ++c) {
            sum += sums[size_t(c)];
            rw.maxAbsError = std::max(rw.maxAbsError, maxima[size_t(c)]);
            rw.mismatches += mismatches[size_t(c)];
        }
        rw.rmse = N && K ? std::sqrt(sum / double(N * K)) : 0;
        rw.exact = rw.mismatches == 0;
        rw.verified = true;
        if (!rw.exact && to == "mlx-affine") {
            const std::string st(dtypeName(dst->tensors[size_t(b->member("scales"))].dtype));
            rw.note += std::string(rw.note.empty() ? "" : "; ") + "MLX dequantizes in " + st + " arithmetic (q * scale and + bias each rounded to " +
                       st + "), the source in float32";
        }
        ++done;
        if (opt.progress)
            opt.progress(done, todo.size() * 2, rw.name);
    }
    return collectNotes();
}

} // namespace qs
