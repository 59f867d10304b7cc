#include "analysis/namemap.h"

#include "base/asciicase.h"

#include <QJsonValue>

#include <algorithm>
#include <array>
#include <cstring>

namespace qs {

namespace {

struct NamePair {
    std::string_view hf;   // after "model.layers.N." (per block) or the whole name (global)
    std::string_view gguf; // after "blk.N." or the whole name
};

// Global tensors (tensor_mapping.py: TOKEN_EMBD, OUTPUT_NORM, OUTPUT).
constexpr std::array<NamePair, 3> kGlobal{{
    {"model.embed_tokens", "token_embd"},
    {"model.norm", "output_norm"},
    {"lm_head", "output"},
}};

// Per-block tensors shared by every llama-family arch here.
constexpr std::array<NamePair, 10> kBlock{{
    {"self_attn.q_proj", "attn_q"},
    {"self_attn.k_proj", "attn_k"},
    {"self_attn.v_proj", "attn_v"},
    {"self_attn.o_proj", "attn_output"},
    {"self_attn.q_norm", "attn_q_norm"},
    {"self_attn.k_norm", "attn_k_norm"},
    {"mlp.gate_proj", "ffn_gate"},
    {"mlp.up_proj", "ffn_up"},
    {"mlp.down_proj", "ffn_down"},
    {"input_layernorm", "attn_norm"},
}};

// Norms around the MLP: llama, mistral, qwen2/3 and gemma (1) have one post-attention norm
// that feeds the MLP (FFN_NORM); gemma2/3 norm both sides of each sub-layer, so HF's
// post_attention_layernorm is ATTN_POST_NORM there and pre_feedforward_layernorm is FFN_NORM.
constexpr std::array<NamePair, 1> kPlainNorms{{{"post_attention_layernorm", "ffn_norm"}}};
constexpr std::array<NamePair, 3> kSandwichNorms{{
    {"post_attention_layernorm", "post_attention_norm"},
    {"pre_feedforward_layernorm", "ffn_norm"},
    {"post_feedforward_layernorm", "post_ffw_norm"},
}};

bool sandwichNorms(std::string_view arch)
{
    return arch == "gemma2" || arch == "gemma3";
}

// Splits a trailing ".weight" or ".bias" off.
std::pair<std::string_view, std::string_view> splitSuffix(std::string_view name)
{
    for (std::string_view s : {std::string_view(".weight"), std::string_view(".bias")})
        if (name.size() > s.size() && name.substr(name.size() - s.size()) == s)
            return {name.substr(0, name.size() - s.size()), name.substr(name.size() - s.size())};
    return {name, {}};
}

// "<prefix><digits>.<rest>" -> digits and rest; false when the shape differs.
bool splitBlock(std::string_view name, std::string_view prefix, std::string_view& digits, std::string_view& rest)
{
    if (name.substr(0, prefix.size()) != prefix)
        return false;
    name.remove_prefix(prefix.size());
    size_t n = 0;
    while (n < name.size() && std::isdigit(static_cast<unsigned char>(name[n])))
        ++n;
    if (n == 0 || n > 6 || n >= name.size() || name[n] != '.')
        return false;
    digits = name.substr(0, n);
    rest = name.substr(n + 1);
    return true;
}

template <size_t N>
const NamePair* findIn(const std::array<NamePair, N>& table, std::string_view key, bool fromHf)
{
    for (const NamePair& p : table)
        if ((fromHf ? p.hf : p.gguf) == key)
            return &p;
    return nullptr;
}

const NamePair* findBlock(std::string_view key, std::string_view arch, bool fromHf)
{
    if (const NamePair* p = findIn(kBlock, key, fromHf))
        return p;
    return sandwichNorms(arch) ? findIn(kSandwichNorms, key, fromHf) : findIn(kPlainNorms, key, fromHf);
}

std::string metaString(const Checkpoint& ckpt, std::string_view key)
{
    const MetaValue* v = ckpt.meta(key);
    if (v && v->type == MetaValue::Type::String)
        return std::get<std::string>(v->value);
    return {};
}

uint64_t metaCountOrZero(const Checkpoint& ckpt, const std::string& key)
{
    const MetaValue* v = ckpt.meta(key);
    if (!v)
        return 0;
    if (const auto* u = std::get_if<uint64_t>(&v->value))
        return *u;
    if (const auto* i = std::get_if<int64_t>(&v->value))
        return *i > 0 ? uint64_t(*i) : 0;
    return 0; // an array (per-layer head counts) is not a single answer
}

uint64_t configCount(const Checkpoint& ckpt, const char* key)
{
    const double d = ckpt.config.value(QLatin1String(key)).toDouble(0);
    return d >= 1 && d < 1e9 ? uint64_t(d) : 0;
}

} // namespace

std::string checkpointArchitecture(const Checkpoint& ckpt)
{
    std::string arch = metaString(ckpt, "general.architecture");
    if (arch.empty())
        arch = ckpt.config.value(QLatin1String("model_type")).toString().toStdString();
    return asciiLower(arch);
}

std::string ggufArchOf(std::string_view arch)
{
    if (arch == "mistral" || arch == "mixtral")
        return "llama";
    if (arch == "gemma3_text")
        return "gemma3";
    return std::string(arch);
}

HeadCounts headCounts(const Checkpoint& ckpt)
{
    HeadCounts h;
    const std::string arch = metaString(ckpt, "general.architecture");
    if (!arch.empty()) {
        h.heads = metaCountOrZero(ckpt, arch + ".attention.head_count");
        h.headsKv = metaCountOrZero(ckpt, arch + ".attention.head_count_kv");
    }
    if (!h.heads) {
        h.heads = configCount(ckpt, "num_attention_heads");
        h.headsKv = configCount(ckpt, "num_key_value_heads");
    }
    if (!h.headsKv)
        h.headsKv = h.heads;
    return h;
}

std::string hfToGguf(std::string_view hfName, std::string_view archIn)
{
    const std::string arch = ggufArchOf(archIn);
    const auto [base, suffix] = splitSuffix(hfName);
    if (const NamePair* p = findIn(kGlobal, base, true))
        return std::string(p->gguf) + std::string(suffix);
    std::string_view digits, rest;
    if (!splitBlock(base, "model.layers.", digits, rest))
        return {};
    const NamePair* p = findBlock(rest, arch, true);
    if (!p)
        return {};
    return "blk." + std::string(digits) + "." + std::string(p->gguf) + std::string(suffix);
}

std::string ggufToHf(std::string_view ggufName, std::string_view archIn)
{
    const std::string arch = ggufArchOf(archIn);
    const auto [base, suffix] = splitSuffix(ggufName);
    if (const NamePair* p = findIn(kGlobal, base, false))
        return std::string(p->hf) + std::string(suffix);
    std::string_view digits, rest;
    if (!splitBlock(base, "blk.", digits, rest))
        return {};
    const NamePair* p = findBlock(rest, arch, false);
    if (!p)
        return {};
    return "model.layers." + std::string(digits) + "." + std::string(p->hf) + std::string(suffix);
}

GgufTransform ggufTransform(std::string_view ggufName, std::string_view archIn, const HeadCounts& heads)
{
    const std::string arch = ggufArchOf(archIn);
    GgufTransform t;
    const auto [base, suffix] = splitSuffix(ggufName);
    std::string_view digits, rest;
    const bool block = splitBlock(base, "blk.", digits, rest);
    // LlamaModel.modify_tensors: permute(q, n_head, n_head) and permute(k, n_head, n_head_kv);
    // qwen2/3 and gemma keep HF's row order. Biases are permuted too, but a bias is a
    // 1-D tensor and llama checkpoints carry none, so only weights are handled.
    if (arch == "llama" && block && suffix != ".bias") {
        t.permuted = rest == "attn_q" || rest == "attn_k";
        if (t.permuted)
            t.permuteHeads = rest == "attn_q" ? heads.heads : heads.headsKv;
    }
    // Gemma RMSNorm computes x * (1 + w); the converter stores 1 + w (name ends "norm.weight").
    const bool gemma = arch == "gemma" || arch == "gemma2" || arch == "gemma3";
    if (gemma && suffix != ".bias" && base.size() >= 4 && base.substr(base.size() - 4) == "norm")
        t.normShift = 1.0f;
    return t;
}

uint64_t permutedRow(uint64_t r, uint64_t rows, uint64_t heads)
{
    const uint64_t headRows = rows / heads, half = headRows / 2;
    const uint64_t h = r / headRows, rem = r % headRows;
    return h * headRows + 2 * (rem % half) + rem / half;
}

void unpermuteRows(const float* in, float* out, uint64_t n, uint64_t cols, uint64_t headRows)
{
    const uint64_t half = headRows / 2;
    for (uint64_t r = 0; r < n; ++r) {
        const uint64_t h = r / headRows, rem = r % headRows;
        const uint64_t g = h * headRows + 2 * (rem % half) + rem / half;
        std::memcpy(out + r * cols, in + g * cols, cols * sizeof(float));
    }
}

} // namespace qs
