// quantscope-mkdemo OUTDIR: writes the demo checkpoint (config.json + model.safetensors)
// that the GUI embeds. A small llama-shaped model whose layers use different formats:
//   layer 0: GPTQ 4-bit, group 32, act-order (non-trivial g_idx), symmetric, v1 zeros
//   layer 1: GPTQ 3-bit, group 64, symmetric, v1 zeros (codes straddle int32 words)
//   layer 2: AWQ GEMM 4-bit, group 64, asymmetric
//   layer 3: bf16 linears
// plus f16 embeddings and RMS norms. One checkpoint carries one quantization_config and
// no single method describes this mix, so config.json holds only GPTQModel-style
// per-module overrides (`dynamic`), one per quantized layer, each true for its layer;
// the format itself is named by detection from the tensors.
// Weights are deterministic: normal-ish with 0.5 % outliers, quantized round-to-nearest
// with the GPTQ and AWQ rules of core/analysis/quantize_affine.h.
#include "formats/affine/quantize_affine.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kHidden = 128, kIntermediate = 256, kVocab = 256, kHeads = 4, kKvHeads = 2, kLayers = 4;
constexpr uint64_t kHeadDim = kHidden / kHeads;

// splitmix64: a fixed, portable stream, so every build makes the same demo.
struct Rng {
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; } // [0, 1)
    // Irwin-Hall with 12 terms: close to a standard normal, with no libm in the loop.
    double normal()
    {
        double s = 0;
        for (int i = 0; i < 12; ++i)
            s += uniform();
        return s - 6.0;
    }
};

// [rows = out, cols = in], std 0.02, 0.5 % of the entries 8x larger, and two input
// channels twice as loud as the rest (the outlier features real LLMs have).
std::vector<float> makeWeight(Rng& rng, uint64_t rows, uint64_t cols)
{
    std::vector<float> w(rows * cols);
    const uint64_t loud1 = rng.next() % cols, loud2 = rng.next() % cols;
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
            double v = 0.02 * rng.normal();
            if (rng.uniform() < 0.005)
                v *= 8.0;
            if (c == loud1 || c == loud2)
                v *= 2.0;
            w[r * cols + c] = float(v);
        }
    return w;
}

std::vector<uint8_t> bytesOf(const void* p, size_t n)
{
    std::vector<uint8_t> out(n);
    std::memcpy(out.data(), p, n);
    return out;
}

template <class T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v)
{
    return bytesOf(v.data(), v.size() * sizeof(T));
}

std::vector<uint16_t> toHalf(const std::vector<float>& v)
{
    std::vector<uint16_t> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), qs::floatToHalf);
    return out;
}

std::vector<uint16_t> toBf16(const std::vector<float>& v)
{
    std::vector<uint16_t> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), qs::floatToBf16);
    return out;
}

struct Writer {
    std::vector<std::pair<qs::SafetensorsTensor, std::vector<uint8_t>>> tensors;

    void add(const std::string& name, qs::DType dtype, std::vector<uint64_t> shape, std::vector<uint8_t> data)
    {
        tensors.push_back({{name, dtype, std::move(shape), {}}, std::move(data)});
    }
    void write(const std::string& path)
    {
        std::vector<qs::SafetensorsTensor> list;
        for (auto& [t, data] : tensors) {
            t.data = data;
            list.push_back(t);
        }
        qs::writeSafetensors(path, list, {{"format", "pt"}});
    }
};

// The affine quantizer's zeros and scales as GPTQ/AWQ store them: integer zeros, f16 scales.
std::vector<int32_t> zerosOf(const qs::AffineQuantized& q)
{
    std::vector<int32_t> z(q.zeros.size());
    std::transform(q.zeros.begin(), q.zeros.end(), z.begin(), [](float v) { return int32_t(v); });
    return z;
}

std::vector<uint16_t> scalesOf(const qs::AffineQuantized& q)
{
    return toHalf(q.scales);
}

void addPacked(Writer& out, const std::string& prefix, qs::PackedOutput packed)
{
    out.add(prefix + ".qweight", qs::DType::I32, packed.qweight.shape, std::move(packed.qweight.bytes));
    out.add(prefix + ".qzeros", qs::DType::I32, packed.qzeros.shape, std::move(packed.qzeros.bytes));
    out.add(prefix + ".scales", qs::DType::F16, packed.scales.shape, std::move(packed.scales.bytes));
}

qs::AffineQuantized quantize(const std::vector<float>& w, uint64_t n, uint64_t k, int bits, uint64_t group,
                             qs::AffineRule rule, bool symmetric)
{
    qs::AffineOptions opt;
    opt.bits = bits;
    opt.groupSize = group;
    opt.symmetric = symmetric;
    opt.rule = rule;
    return qs::quantizeAffine(w.data(), n, k, opt, /*parallel=*/false);
}

// GPTQ, symmetric, v1 zeros. With act-order, GPTQ visits the input channels by decreasing
// Hessian diagonal (here: the channel's energy) and forms groups in that order, then stores
// codes in natural order with g_idx[k] = position of k in that order / group size.
void addGptq(Writer& out, const std::string& prefix, const std::vector<float>& w, uint64_t n, uint64_t k, int bits,
             uint64_t group, bool actOrder)
{
    std::vector<uint64_t> perm(k);
    std::iota(perm.begin(), perm.end(), 0);
    if (actOrder) {
        std::vector<double> energy(k, 0.0);
        for (uint64_t r = 0; r < n; ++r)
            for (uint64_t c = 0; c < k; ++c)
                energy[c] += double(w[r * k + c]) * double(w[r * k + c]);
        std::stable_sort(perm.begin(), perm.end(), [&](uint64_t a, uint64_t b) { return energy[a] > energy[b]; });
    }
    std::vector<float> visited(w.size());
    for (uint64_t r = 0; r < n; ++r)
        for (uint64_t pos = 0; pos < k; ++pos)
            visited[r * k + pos] = w[r * k + perm[pos]];
    const qs::AffineQuantized q = quantize(visited, n, k, bits, group, qs::AffineRule::Gptq, true);
    std::vector<uint8_t> codes(q.codes.size());
    std::vector<int32_t> gIdx(k);
    for (uint64_t pos = 0; pos < k; ++pos) {
        gIdx[perm[pos]] = int32_t(pos / group);
        for (uint64_t r = 0; r < n; ++r)
            codes[r * k + perm[pos]] = q.codes[r * k + pos];
    }
    addPacked(out, prefix,
              qs::packGptq(codes, zerosOf(q), scalesOf(q), bits, k, n, q.groups, /*v1=*/true, /*planar=*/false));
    out.add(prefix + ".g_idx", qs::DType::I32, {k}, bytesOf(gIdx));
}

void addAwq(Writer& out, const std::string& prefix, const std::vector<float>& w, uint64_t n, uint64_t k, uint64_t group)
{
    const qs::AffineQuantized q = quantize(w, n, k, 4, group, qs::AffineRule::Awq, false);
    addPacked(out, prefix, qs::packAwqGemm(q.codes, zerosOf(q), scalesOf(q), k, n, group));
}

std::vector<float> makeNorm(Rng& rng, uint64_t n)
{
    std::vector<float> v(n);
    for (auto& x : v)
        x = float(1.0 + 0.1 * rng.normal());
    return v;
}

void writeConfig(const QString& path)
{
    QJsonObject c;
    c[QStringLiteral("architectures")] = QJsonArray{QStringLiteral("LlamaForCausalLM")};
    c[QStringLiteral("model_type")] = QStringLiteral("llama");
    c[QStringLiteral("hidden_size")] = qint64(kHidden);
    c[QStringLiteral("intermediate_size")] = qint64(kIntermediate);
    c[QStringLiteral("num_attention_heads")] = qint64(kHeads);
    c[QStringLiteral("num_key_value_heads")] = qint64(kKvHeads);
    c[QStringLiteral("num_hidden_layers")] = qint64(kLayers);
    c[QStringLiteral("vocab_size")] = qint64(kVocab);
    c[QStringLiteral("max_position_embeddings")] = 512;
    c[QStringLiteral("rms_norm_eps")] = 1e-5;
    c[QStringLiteral("hidden_act")] = QStringLiteral("silu");
    c[QStringLiteral("tie_word_embeddings")] = true;
    c[QStringLiteral("torch_dtype")] = QStringLiteral("float16");
    auto overrides = [](int bits, int group, QJsonObject extra) {
        extra[QStringLiteral("bits")] = bits;
        extra[QStringLiteral("group_size")] = group;
        return extra;
    };
    QJsonObject dynamic;
    dynamic[QStringLiteral("+:model\\.layers\\.0\\.")] =
        overrides(4, 32,
                  {{QStringLiteral("desc_act"), true},
                   {QStringLiteral("sym"), true},
                   {QStringLiteral("checkpoint_format"), QStringLiteral("gptq")}});
    dynamic[QStringLiteral("+:model\\.layers\\.1\\.")] =
        overrides(3, 64,
                  {{QStringLiteral("desc_act"), false},
                   {QStringLiteral("sym"), true},
                   {QStringLiteral("checkpoint_format"), QStringLiteral("gptq")}});
    dynamic[QStringLiteral("+:model\\.layers\\.2\\.")] =
        overrides(4, 64, {{QStringLiteral("zero_point"), true}, {QStringLiteral("version"), QStringLiteral("gemm")}});
    c[QStringLiteral("quantization_config")] = QJsonObject{{QStringLiteral("dynamic"), dynamic}};
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(c).toJson()) < 0)
        qs::fail(path.toStdString(), "cannot write");
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: quantscope-mkdemo OUTDIR\n");
        return 2;
    }
    try {
        const QString dir = QString::fromLocal8Bit(argv[1]);
        if (!QDir().mkpath(dir))
            qs::fail(argv[1], "cannot create the folder");
        Rng rng{20261130};
        Writer out;
        out.add("model.embed_tokens.weight", qs::DType::F16, {kVocab, kHidden},
                bytesOf(toHalf(makeWeight(rng, kVocab, kHidden))));

        struct Linear {
            const char* name;
            uint64_t out, in;
        };
        const Linear linears[] = {
            {"self_attn.q_proj", kHeads * kHeadDim, kHidden},   {"self_attn.k_proj", kKvHeads * kHeadDim, kHidden},
            {"self_attn.v_proj", kKvHeads * kHeadDim, kHidden}, {"self_attn.o_proj", kHidden, kHeads * kHeadDim},
            {"mlp.gate_proj", kIntermediate, kHidden},          {"mlp.up_proj", kIntermediate, kHidden},
            {"mlp.down_proj", kHidden, kIntermediate},
        };
        for (uint64_t layer = 0; layer < kLayers; ++layer) {
            const std::string p = "model.layers." + std::to_string(layer) + ".";
            for (const auto& l : linears) {
                const auto w = makeWeight(rng, l.out, l.in);
                const std::string prefix = p + l.name;
                switch (layer) {
                case 0: addGptq(out, prefix, w, l.out, l.in, 4, 32, true); break;
                case 1: addGptq(out, prefix, w, l.out, l.in, 3, 64, false); break;
                case 2: addAwq(out, prefix, w, l.out, l.in, 64); break;
                default: out.add(prefix + ".weight", qs::DType::BF16, {l.out, l.in}, bytesOf(toBf16(w))); break;
                }
            }
            out.add(p + "input_layernorm.weight", qs::DType::F16, {kHidden}, bytesOf(toHalf(makeNorm(rng, kHidden))));
            out.add(p + "post_attention_layernorm.weight", qs::DType::F16, {kHidden},
                    bytesOf(toHalf(makeNorm(rng, kHidden))));
        }
        out.add("model.norm.weight", qs::DType::F16, {kHidden}, bytesOf(toHalf(makeNorm(rng, kHidden))));
        out.write((dir + QStringLiteral("/model.safetensors")).toStdString());
        writeConfig(dir + QStringLiteral("/config.json"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quantscope-mkdemo: %s\n", e.what());
        return 1;
    }
    return 0;
}
