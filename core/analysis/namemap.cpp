#include "analysis/namemap.h"

#include "base/counttext.h"
#include "base/asciicase.h"
#include "formats/dequant.h"

#include <QJsonValue>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

namespace qs {

namespace {

struct NamePair {
    std::string_view hf; // after "model.layers.N." (per block) or the whole name (global)
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

std::string_view stripWeight(std::string_view name)
{
    constexpr std::string_view s = ".weight";
    if (name.size() > s.size() && name.substr(name.size() - s.size()) == s)
        name.remove_suffix(s.size());
    return name;
}

bool filterHits(const std::string& filter, std::string_view name)
{
    return filter.empty() || name == filter || stripWeight(name) == stripWeight(filter);
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

WeightMatch matchWeights(const Checkpoint& a, const Checkpoint& b, const std::string& filter)
{
    const bool aGguf = a.container == Container::Gguf, bGguf = b.container == Container::Gguf;
    const bool cross = aGguf != bGguf;
    const Checkpoint& gguf = aGguf ? a : b;
    const Checkpoint& other = aGguf ? b : a;
    std::string arch;
    HeadCounts heads;
    if (cross) {
        arch = checkpointArchitecture(gguf);
        if (arch.empty())
            arch = checkpointArchitecture(other);
        heads = headCounts(gguf);
        if (!heads.heads)
            heads = headCounts(other);
    }
    // The GGUF name of a weight, without ".weight": a GGUF that kept the Hugging Face names
    // (repack writes them) is keyed like its source.
    const auto key = [&](const LogicalWeight& w) {
        if (cross) {
            const std::string g = hfToGguf(w.name, arch);
            if (!g.empty())
                return std::string(stripWeight(g));
        }
        return std::string(stripWeight(w.name));
    };
    std::unordered_map<std::string, size_t> inB;
    for (size_t i = 0; i < b.weights.size(); ++i)
        inB.emplace(key(b.weights[i]), i);
    std::vector<bool> usedB(b.weights.size(), false);
    WeightMatch m;
    for (const LogicalWeight& wa : a.weights) {
        const auto it = inB.find(key(wa));
        if (it == inB.end() || usedB[it->second]) {
            if (filterHits(filter, wa.name))
                m.onlyInA.push_back(wa.name);
            continue;
        }
        usedB[it->second] = true;
        const LogicalWeight& wb = b.weights[it->second];
        if (!filterHits(filter, wa.name) && !filterHits(filter, wb.name))
            continue;
        if (wa.outFeatures() != wb.outFeatures() || wa.inFeatures() != wb.inFeatures()) {
            m.shapeMismatches.push_back({wa.name, wb.name, wa.shape, wb.shape});
            continue;
        }
        WeightPair p{&wa, &wb, {}, {}, {}};
        std::string reason;
        for (const LogicalWeight* w : {&wa, &wb})
            if (!canDequantize(w->format))
                reason = "no dequantizer for " + w->name + " (format " + w->format + ")";
        if (cross && reason.empty()) {
            const LogicalWeight& g = aGguf ? wa : wb;
            const GgufTransform t = ggufTransform(g.name, arch, heads);
            const uint64_t N = g.outFeatures();
            if (t.permuted && (!t.permuteHeads || N % (2 * t.permuteHeads) != 0)) {
                reason = "llama.cpp permuted the rows of " + g.name + " by attention head, and the head count is "
                    + (t.permuteHeads ? std::to_string(t.permuteHeads) + ", which does not divide its "
                               + std::to_string(N) + " rows in pairs"
                                      : std::string("not in either checkpoint"));
            } else {
                SideTransform& st = aGguf ? p.ta : p.tb;
                st.permuteHeads = t.permuted ? t.permuteHeads : 0;
                st.normShift = t.normShift;
                if (t.permuted)
                    p.note = "q/k row permutation undone (" + std::to_string(t.permuteHeads) + " heads)";
                if (t.normShift != 0)
                    p.note = "gemma norm: GGUF holds 1 + w, compared as w";
            }
        }
        if (!reason.empty()) {
            // Nothing else of a skipped pair is compared: its whole shape is ([2, 2, 2] and
            // [4, 2] have the same rows and columns).
            if (wa.shape != wb.shape)
                m.shapeMismatches.push_back({wa.name, wb.name, wa.shape, wb.shape});
            else
                m.skipped.push_back({wa.name, wb.name, reason});
            continue;
        }
        m.pairs.push_back(p);
    }
    for (size_t i = 0; i < b.weights.size(); ++i)
        if (!usedB[i] && filterHits(filter, b.weights[i].name))
            m.onlyInB.push_back(b.weights[i].name);
    return m;
}

void loadMatchedRows(const Checkpoint& c, const LogicalWeight& w, const SideTransform& t, uint64_t r0, uint64_t r1,
                     float* out, float* tmp, SimdPath path)
{
    const uint64_t K = w.inFeatures(), n = (r1 - r0) * K;
    if (t.permuteHeads) {
        dequantizeRows(c, w, r0, r1, tmp, path);
        unpermuteRows(tmp, out, r1 - r0, K, w.outFeatures() / t.permuteHeads);
    } else {
        dequantizeRows(c, w, r0, r1, out, path);
    }
    if (t.normShift != 0)
        for (uint64_t i = 0; i < n; ++i)
            out[i] -= t.normShift;
}

uint64_t storedRow(const SideTransform& t, uint64_t r, uint64_t rows)
{
    return t.permuteHeads ? permutedRow(r, rows, t.permuteHeads) : r;
}

std::string namingHint(const Checkpoint& c)
{
    const std::string arch = checkpointArchitecture(c);
    size_t hf = 0, gguf = 0;
    for (const LogicalWeight& w : c.weights) {
        hf += !hfToGguf(w.name, arch).empty();
        gguf += !ggufToHf(w.name, arch).empty();
    }
    std::string t = hf > gguf ? "Hugging Face names"
        : gguf > hf           ? "GGUF names"
                              : "names of neither Hugging Face nor GGUF";
    t += " (" + counted(c.weights.size(), "weight", "weights");
    for (size_t i = 0; i < c.weights.size() && i < 3; ++i)
        t += (i ? ", " : ": ") + c.weights[i].name;
    return t + (c.weights.size() > 3 ? ", ...)" : ")");
}

} // namespace qs
