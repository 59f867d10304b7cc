#include "analysis/runbudget.h"

#include "analysis/budget.h"
#include "base/asciicase.h"
#include "base/error.h"
#include "base/intmath.h"
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/formatid.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cctype>

namespace qs {
namespace {

// llama.cpp pads n_ctx (and each stream's share) to 256 (llama-context.cpp, PR 17046).
constexpr uint64_t kCtxPad = 256;

uint64_t padTo(uint64_t v, uint64_t n)
{
    return ceilDiv(v, n) * n;
}

// ---- GGUF metadata ----

std::optional<uint64_t> metaInt(const MetaValue& v)
{
    if (const auto* u = std::get_if<uint64_t>(&v.value))
        return *u;
    if (const auto* i = std::get_if<int64_t>(&v.value))
        return *i >= 0 ? std::optional<uint64_t>(uint64_t(*i)) : std::nullopt;
    if (const auto* b = std::get_if<bool>(&v.value))
        return uint64_t(*b);
    return std::nullopt;
}

struct GgufKeys {
    const Checkpoint& c;
    std::string arch;

    std::string key(const std::string& k) const { return arch + "." + k; }
    // tmpl's %1 is the file, %2 the key, %3.. the extra arguments.
    [[noreturn]] void fault(const char* tmpl, const std::string& k, std::initializer_list<std::string> more = {}) const
    {
        std::vector<std::string> args{c.path, key(k)};
        args.insert(args.end(), more.begin(), more.end());
        std::vector<Message> parts;
        for (const std::string& a : args)
            parts.push_back(Message::verbatim(a));
        throw Error(Message::quoting(tmpl, std::move(parts)));
    }
    [[noreturn]] void missing(const std::string& k) const
    {
        fault(QT_TRANSLATE_NOOP("qs::Message", "%1: %2 is missing (needed for the memory budget)"), k);
    }
    std::optional<uint64_t> opt(const std::string& k) const
    {
        const MetaValue* v = c.meta(key(k));
        if (!v)
            return std::nullopt;
        const auto n = metaInt(*v);
        if (!n)
            fault(
                QT_TRANSLATE_NOOP("qs::Message", "%1: %2 is not a non-negative integer (needed for the memory budget)"),
                k);
        return n;
    }
    uint64_t req(const std::string& k) const
    {
        const auto v = opt(k);
        if (!v)
            missing(k);
        return *v;
    }
    // A scalar or one value per layer (llama.cpp get_key_or_arr).
    std::optional<std::vector<uint64_t>> perLayer(const std::string& k, uint32_t layers) const
    {
        const MetaValue* v = c.meta(key(k));
        if (!v)
            return std::nullopt;
        std::vector<uint64_t> out;
        if (const auto* arr = std::get_if<std::vector<MetaValue>>(&v->value)) {
            if (arr->size() != layers)
                fault(QT_TRANSLATE_NOOP("qs::Message",
                                        "%1: %2 has %3 values for %4 layers (needed for the memory budget)"),
                      k, {std::to_string(arr->size()), std::to_string(layers)});
            for (const MetaValue& e : *arr) {
                const auto n = metaInt(e);
                if (!n)
                    fault(QT_TRANSLATE_NOOP(
                              "qs::Message",
                              "%1: %2 holds a value that is not a non-negative integer (needed for the memory budget)"),
                          k);
                out.push_back(*n);
            }
        } else {
            const auto n = metaInt(*v);
            if (!n)
                fault(QT_TRANSLATE_NOOP("qs::Message",
                                        "%1: %2 is not a non-negative integer (needed for the memory budget)"),
                      k);
            out.assign(layers, *n);
        }
        return out;
    }
};

uint32_t narrow32(uint64_t v, const std::string& what)
{
    if (v > (uint64_t(1) << 24))
        throw Error(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "%1 = %2 is out of range"),
                                     {Message::verbatim(what), Message::verbatim(std::to_string(v))}));
    return uint32_t(v);
}

// llama_hparams::set_swa_pattern: layer il slides when il % n < n - 1 (n = 0: every layer).
void setSwaPattern(ModelArch& a, uint64_t n)
{
    for (uint32_t il = 0; il < a.layers; ++il)
        if (a.kinds[il] == LayerMemory::Full && (n == 0 || il % n < n - 1))
            a.kinds[il] = LayerMemory::Sliding;
}

bool isRecurrentArch(const std::string& arch)
{
    return arch == "mamba" || arch == "mamba2";
}

void checkArch(const ModelArch& a)
{
    if (a.layers == 0)
        throw Error(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "%1: the model has no blocks"),
                                     {Message::verbatim(a.source)}));
    for (uint32_t il = 0; il < a.layers; ++il)
        if (a.kinds[il] != LayerMemory::Recurrent && a.headsKv[il] != 0 && (a.keyLength == 0 || a.valueLength == 0))
            throw Error(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "%1: zero key or value length"),
                                         {Message::verbatim(a.source)}));
}

// ---- config.json ----

uint64_t jsonUint(const QJsonObject& o, const char* key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() && v.toDouble() >= 0 ? uint64_t(v.toDouble()) : 0;
}

uint64_t jsonReq(const QJsonObject& o, const char* key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isDouble() || v.toDouble() < 0)
        throw Error(Message::quoting(
            v.isUndefined()
                ? QT_TRANSLATE_NOOP("qs::Message", "config.json: %1 is missing (needed for the memory budget)")
                : QT_TRANSLATE_NOOP("qs::Message",
                                    "config.json: %1 is not a non-negative number (needed for the memory budget)"),
            {Message::verbatim(key)}));
    return uint64_t(v.toDouble());
}

// Hugging Face model_type -> the llama.cpp architecture its converter writes.
std::string archOfModelType(const std::string& t)
{
    static const std::vector<std::pair<std::string, std::string>> map{
        {"llama", "llama"},           {"mistral", "llama"},         {"mixtral", "llama"},      {"qwen2", "qwen2"},
        {"qwen2_moe", "qwen2moe"},    {"qwen3", "qwen3"},           {"qwen3_moe", "qwen3moe"}, {"gemma", "gemma"},
        {"gemma2", "gemma2"},         {"gemma3", "gemma3"},         {"gemma3_text", "gemma3"}, {"phi3", "phi3"},
        {"deepseek_v2", "deepseek2"}, {"deepseek_v3", "deepseek2"}, {"mamba", "mamba"},        {"mamba2", "mamba2"}};
    for (const auto& [hf, arch] : map)
        if (hf == t)
            return arch;
    return {};
}

ModelArch preset(std::string name, std::string arch, uint32_t layers, uint64_t embd, uint32_t heads, uint32_t kv,
                 uint32_t headDim, uint64_t ffn, uint64_t vocab, uint64_t ctx, uint64_t params, bool tied = false)
{
    ModelArch a;
    a.arch = std::move(arch);
    a.source = "preset " + name;
    a.layers = layers;
    a.embd = embd;
    a.vocab = vocab;
    a.contextLength = ctx;
    a.ffn = ffn;
    a.heads.assign(layers, heads);
    a.headsKv.assign(layers, kv);
    a.keyLength = a.valueLength = headDim;
    a.kinds.assign(layers, LayerMemory::Full);
    a.params = params;
    a.tiedEmbeddings = tied;
    return a;
}

struct Preset {
    const char* name;
    ModelArch (*make)();
};

// Published configurations (the models' config.json), parameter counts rounded as published.
const std::vector<Preset>& presets()
{
    static const std::vector<Preset> all{
        {"llama-3-8b",
         [] { return preset("llama-3-8b", "llama", 32, 4096, 32, 8, 128, 14336, 128256, 8192, 8030261248ull); }},
        {"llama-3.1-8b",
         [] { return preset("llama-3.1-8b", "llama", 32, 4096, 32, 8, 128, 14336, 128256, 131072, 8030261248ull); }},
        {"llama-3.1-70b",
         [] { return preset("llama-3.1-70b", "llama", 80, 8192, 64, 8, 128, 28672, 128256, 131072, 70553706496ull); }},
        {"mistral-7b",
         [] { return preset("mistral-7b", "llama", 32, 4096, 32, 8, 128, 14336, 32768, 32768, 7248023552ull); }},
        {"mixtral-8x7b",
         [] {
             ModelArch a = preset("mixtral-8x7b", "llama", 32, 4096, 32, 8, 128, 14336, 32000, 32768, 46702792704ull);
             a.experts = 8, a.expertsUsed = 2, a.expertFfn = 14336;
             return a;
         }},
        {"qwen2.5-7b",
         [] { return preset("qwen2.5-7b", "qwen2", 28, 3584, 28, 4, 128, 18944, 152064, 32768, 7615616512ull); }},
        {"qwen3-8b",
         [] { return preset("qwen3-8b", "qwen3", 36, 4096, 32, 8, 128, 12288, 151936, 40960, 8190735360ull); }},
        {"qwen3-30b-a3b",
         [] {
             ModelArch a =
                 preset("qwen3-30b-a3b", "qwen3moe", 48, 2048, 32, 4, 128, 6144, 151936, 40960, 30532122624ull);
             a.experts = 128, a.expertsUsed = 8, a.expertFfn = 768;
             return a;
         }},
        {"gemma-2-9b",
         [] {
             ModelArch a =
                 preset("gemma-2-9b", "gemma2", 42, 3584, 16, 8, 256, 14336, 256000, 8192, 9241705984ull, true);
             a.slidingWindow = 4096;
             setSwaPattern(a, 2);
             return a;
         }},
        {"gemma-3-12b",
         [] {
             ModelArch a =
                 preset("gemma-3-12b", "gemma3", 48, 3840, 16, 8, 256, 15360, 262208, 131072, 11766034176ull, true);
             a.slidingWindow = 1024;
             setSwaPattern(a, 6);
             return a;
         }},
        {"gemma-3-27b",
         [] {
             ModelArch a =
                 preset("gemma-3-27b", "gemma3", 62, 5376, 32, 16, 128, 21504, 262208, 131072, 27009002240ull, true);
             a.slidingWindow = 1024;
             setSwaPattern(a, 6);
             return a;
         }},
        {"phi-3-mini",
         [] { return preset("phi-3-mini", "phi3", 32, 3072, 32, 32, 96, 8192, 32064, 4096, 3821079552ull); }},
        {"deepseek-v3",
         [] {
             // MLA: one K row of kv_lora_rank + qk_rope_head_dim (512 + 64) per token and layer.
             ModelArch a =
                 preset("deepseek-v3", "deepseek2", 61, 7168, 128, 1, 576, 18432, 129280, 163840, 671026419200ull);
             a.valueLength = 512;
             a.mla = true, a.kvLoraRank = 512, a.ropeDim = 64;
             a.experts = 256, a.expertsUsed = 8, a.expertFfn = 2048;
             return a;
         }},
        {"mamba-2.8b",
         [] {
             ModelArch a = preset("mamba-2.8b", "mamba", 64, 2560, 0, 0, 0, 0, 50280, 0, 2768345600ull, true);
             a.kinds.assign(64, LayerMemory::Recurrent);
             a.ssmConv = 4, a.ssmInner = 5120, a.ssmState = 16;
             return a;
         }},
    };
    return all;
}

uint64_t rowBytesOf(int type, uint64_t width, uint32_t layer, const char* which)
{
    const GgmlTypeInfo* t = ggmlType(type);
    if (width % t->blockWeights != 0)
        throw Error(Message(
            QT_TRANSLATE_NOOP("qs::Message", "cache type %1 stores blocks of %2 elements; layer %3's %4 row has %5"),
            {kvCacheTypeName(type), std::to_string(t->blockWeights), std::to_string(layer), which,
             std::to_string(width)}));
    return t->rowBytes(width);
}

bool isTokenEmbedding(std::string_view n)
{
    return n.rfind("token_embd.", 0) == 0 || n.find("embed_tokens.") != std::string::npos || n.rfind("wte.", 0) == 0
        || n.find(".wte.") != std::string::npos;
}

bool isInputTensor(std::string_view n)
{
    return isTokenEmbedding(n) || n.rfind("token_types.", 0) == 0 || n.rfind("position_embd.", 0) == 0;
}

bool isOutputProjection(std::string_view n)
{
    return n == "output.weight" || n.find("lm_head.") != std::string::npos;
}

// "blk.12.attn_q.weight" / "model.layers.12.self_attn..." -> 12.
std::optional<uint64_t> blockOf(std::string_view n)
{
    size_t pos = std::string::npos;
    if (n.rfind("blk.", 0) == 0)
        pos = 4;
    else if (const size_t l = n.find("layers."); l != std::string::npos && (l == 0 || n[l - 1] == '.'))
        pos = l + 7;
    if (pos == std::string::npos || pos >= n.size() || !std::isdigit(static_cast<unsigned char>(n[pos])))
        return std::nullopt;
    uint64_t v = 0;
    while (pos < n.size() && std::isdigit(static_cast<unsigned char>(n[pos])) && v < (uint64_t(1) << 32))
        v = v * 10 + uint64_t(n[pos++] - '0');
    return v;
}

} // namespace

uint64_t ModelArch::recurrentElements() const
{
    const uint64_t r = (ssmConv > 0 ? ssmConv - 1 : 0) * (ssmInner + 2 * ssmGroups * ssmState);
    return r + ssmState * ssmInner;
}

const std::vector<std::string>& runBudgetArchitectures()
{
    static const std::vector<std::string> all{"llama",  "qwen2",  "qwen2moe", "qwen3",     "qwen3moe", "gemma",
                                              "gemma2", "gemma3", "phi3",     "deepseek2", "mamba",    "mamba2"};
    return all;
}

ModelArch modelArchFromGguf(const Checkpoint& c)
{
    const MetaValue* archValue = c.meta("general.architecture");
    const std::string* archName = archValue ? std::get_if<std::string>(&archValue->value) : nullptr;
    if (!archName)
        throw Error(Message::quoting(
            QT_TRANSLATE_NOOP("qs::Message", "%1: general.architecture is missing (needed for the memory budget)"),
            {Message::verbatim(c.path)}));
    const auto& known = runBudgetArchitectures();
    if (std::find(known.begin(), known.end(), *archName) == known.end()) {
        std::string list;
        for (const std::string& k : known)
            list += (list.empty() ? "" : ", ") + k;
        throw Error(Message::quoting(
            QT_TRANSLATE_NOOP("qs::Message",
                              "%1: architecture '%2' is not one whose memory rules quantscope knows (%3)"),
            {Message::verbatim(c.path), Message::verbatim(*archName), Message::verbatim(list)}));
    }
    const GgufKeys k{c, *archName};
    ModelArch a;
    a.arch = *archName;
    a.source = "GGUF metadata";
    a.layers = narrow32(k.req("block_count"), k.key("block_count"));
    a.embd = k.req("embedding_length");
    a.contextLength = k.opt("context_length").value_or(0);
    if (const auto v = k.opt("vocab_size"))
        a.vocab = *v;
    else if (const MetaValue* tokens = c.meta("tokenizer.ggml.tokens");
             tokens && std::holds_alternative<std::vector<MetaValue>>(tokens->value))
        a.vocab = std::get<std::vector<MetaValue>>(tokens->value).size();
    else if (const TensorEntry* e = c.find("token_embd.weight"); e && e->shape.size() == 2)
        a.vocab = e->shape[0];
    else
        k.fault(QT_TRANSLATE_NOOP("qs::Message",
                                  "%1: the vocabulary size is missing (%2, tokenizer.ggml.tokens or token_embd.weight; "
                                  "needed for the output buffer)"),
                "vocab_size");
    if (const auto ff = k.perLayer("feed_forward_length", a.layers))
        a.ffn = *std::max_element(ff->begin(), ff->end());
    a.experts = narrow32(k.opt("expert_count").value_or(0), k.key("expert_count"));
    a.expertsUsed = narrow32(k.opt("expert_used_count").value_or(0), k.key("expert_used_count"));
    a.expertFfn = k.opt("expert_feed_forward_length").value_or(0);

    if (isRecurrentArch(a.arch)) {
        a.heads.assign(a.layers, 0);
        a.headsKv.assign(a.layers, 0);
        a.kinds.assign(a.layers, LayerMemory::Recurrent);
        a.ssmConv = k.req("ssm.conv_kernel");
        a.ssmInner = k.req("ssm.inner_size");
        a.ssmState = k.req("ssm.state_size");
        a.ssmGroups = a.arch == "mamba2" ? k.req("ssm.group_count") : k.opt("ssm.group_count").value_or(0);
        checkArch(a);
        return a;
    }

    const auto heads = k.perLayer("attention.head_count", a.layers);
    if (!heads)
        k.missing("attention.head_count");
    const auto kv = k.perLayer("attention.head_count_kv", a.layers).value_or(*heads);
    for (uint32_t il = 0; il < a.layers; ++il) {
        a.heads.push_back(narrow32((*heads)[il], k.key("attention.head_count")));
        a.headsKv.push_back(narrow32(kv[il], k.key("attention.head_count_kv")));
        a.kinds.push_back(kv[il] ? LayerMemory::Full : LayerMemory::None);
    }
    if (a.heads[0] == 0)
        k.fault(QT_TRANSLATE_NOOP("qs::Message", "%1: %2 is 0 for layer 0 (needed for the memory budget)"),
                "attention.head_count");
    // n_embd_head_k defaults to n_embd / n_head(0).
    a.keyLength = narrow32(k.opt("attention.key_length").value_or(a.embd / a.heads[0]), k.key("attention.key_length"));
    a.valueLength =
        narrow32(k.opt("attention.value_length").value_or(a.embd / a.heads[0]), k.key("attention.value_length"));

    if (a.arch == "deepseek2") {
        a.kvLoraRank = narrow32(k.req("attention.kv_lora_rank"), k.key("attention.kv_lora_rank"));
        a.ropeDim = narrow32(k.opt("rope.dimension_count").value_or(0), k.key("rope.dimension_count"));
        // Converted since llama.cpp's MLA cache (2025): key_length = kv_lora_rank + rope dims,
        // head_count_kv = 1 and the per-head sizes in *_mla. Older files cache full K and V.
        a.mla =
            k.opt("attention.key_length_mla").value_or(0) != 0 && k.opt("attention.value_length_mla").value_or(0) != 0;
        if (!a.mla)
            a.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "no %1: converted before llama.cpp's MLA cache, so every head's K and V is cached"),
                 {k.key("attention.key_length_mla")}});
    }
    if (a.arch == "gemma2") {
        a.slidingWindow = narrow32(k.opt("attention.sliding_window").value_or(4096), k.key("attention.sliding_window"));
        setSwaPattern(a, 2);
    } else if (a.arch == "gemma3") {
        a.slidingWindow = narrow32(k.req("attention.sliding_window"), k.key("attention.sliding_window"));
        setSwaPattern(a, 6);
    } else if (a.arch == "phi3" && k.opt("attention.sliding_window").value_or(0) != 0) {
        a.notes.push_back({QT_TRANSLATE_NOOP(
            "qs::Message", "llama.cpp disables Phi-3's sliding window: every layer caches the whole context")});
    }
    // A file that spells the pattern out (one flag per layer) overrides the architecture's.
    if (a.slidingWindow)
        if (const auto pattern = k.perLayer("attention.sliding_window_pattern", a.layers); pattern
            && std::holds_alternative<std::vector<MetaValue>>(c.meta(k.key("attention.sliding_window_pattern"))->value))
            for (uint32_t il = 0; il < a.layers; ++il)
                if (a.kinds[il] != LayerMemory::None)
                    a.kinds[il] = (*pattern)[il] ? LayerMemory::Sliding : LayerMemory::Full;
    checkArch(a);
    return a;
}

ModelArch modelArchFromConfig(const QJsonObject& config)
{
    // Multimodal checkpoints (Gemma 3, Llama 4, Mistral 3) nest the language model's fields.
    const QJsonObject t = config.value(QLatin1String("text_config")).isObject()
        ? config.value(QLatin1String("text_config")).toObject()
        : config;
    std::string modelType = t.value(QLatin1String("model_type")).toString().toStdString();
    if (modelType.empty())
        modelType = config.value(QLatin1String("model_type")).toString().toStdString();
    if (modelType.empty())
        throw Error(Message(
            QT_TRANSLATE_NOOP("qs::Message", "config.json: model_type is missing (needed for the memory budget)")));
    ModelArch a;
    a.arch = archOfModelType(modelType);
    if (a.arch.empty())
        throw Error(
            Message(QT_TRANSLATE_NOOP("qs::Message",
                                      "config.json: model_type '%1' is not one whose memory rules quantscope knows"),
                    {modelType}));
    a.source = "config.json";
    const bool recurrent = isRecurrentArch(a.arch);
    a.layers = narrow32(recurrent && t.contains(QLatin1String("n_layer")) ? jsonReq(t, "n_layer")
                                                                          : jsonReq(t, "num_hidden_layers"),
                        "num_hidden_layers");
    a.embd = recurrent && t.contains(QLatin1String("d_model")) ? jsonReq(t, "d_model") : jsonReq(t, "hidden_size");
    a.vocab = jsonUint(t, "vocab_size") ? jsonUint(t, "vocab_size") : jsonReq(config, "vocab_size");
    a.contextLength = jsonUint(t, "max_position_embeddings");
    a.ffn = jsonUint(t, "intermediate_size");
    a.experts = narrow32(
        std::max({jsonUint(t, "num_local_experts"), jsonUint(t, "num_experts"), jsonUint(t, "n_routed_experts")}),
        "num_experts");
    a.expertsUsed = narrow32(jsonUint(t, "num_experts_per_tok"), "num_experts_per_tok");
    a.expertFfn = a.experts ? (jsonUint(t, "moe_intermediate_size") ? jsonUint(t, "moe_intermediate_size") : a.ffn) : 0;
    a.tiedEmbeddings = t.value(QLatin1String("tie_word_embeddings"))
                           .toBool(config.value(QLatin1String("tie_word_embeddings")).toBool());

    if (recurrent) {
        a.heads.assign(a.layers, 0);
        a.headsKv.assign(a.layers, 0);
        a.kinds.assign(a.layers, LayerMemory::Recurrent);
        a.ssmConv = jsonReq(t, "conv_kernel");
        a.ssmState = jsonReq(t, "state_size");
        a.ssmInner =
            jsonUint(t, "intermediate_size") ? jsonUint(t, "intermediate_size") : jsonReq(t, "expand") * a.embd;
        a.ssmGroups = jsonUint(t, "n_groups");
        a.ffn = 0;
        checkArch(a);
        return a;
    }
    const uint32_t heads = narrow32(jsonReq(t, "num_attention_heads"), "num_attention_heads");
    if (heads == 0)
        throw Error(Message(QT_TRANSLATE_NOOP("qs::Message", "config.json: num_attention_heads is 0")));
    const uint32_t kv = t.contains(QLatin1String("num_key_value_heads"))
        ? narrow32(jsonReq(t, "num_key_value_heads"), "num_key_value_heads")
        : heads;
    const uint32_t headDim = narrow32(jsonUint(t, "head_dim") ? jsonUint(t, "head_dim") : a.embd / heads, "head_dim");
    a.heads.assign(a.layers, heads);
    a.headsKv.assign(a.layers, kv);
    a.kinds.assign(a.layers, kv ? LayerMemory::Full : LayerMemory::None);
    a.keyLength = a.valueLength = headDim;
    if (a.arch == "deepseek2") {
        // What convert_hf_to_gguf.py writes for llama.cpp's MLA cache: one K row of
        // kv_lora_rank + qk_rope_head_dim per token, one KV head.
        a.kvLoraRank = narrow32(jsonReq(t, "kv_lora_rank"), "kv_lora_rank");
        a.ropeDim = narrow32(jsonReq(t, "qk_rope_head_dim"), "qk_rope_head_dim");
        a.mla = true;
        a.keyLength = a.kvLoraRank + a.ropeDim;
        a.valueLength = a.kvLoraRank;
        a.headsKv.assign(a.layers, 1);
    }
    const uint64_t window = jsonUint(t, "sliding_window");
    if (a.arch == "gemma2" || a.arch == "gemma3") {
        a.slidingWindow =
            narrow32(window ? window : (a.arch == "gemma2" ? 4096 : jsonReq(t, "sliding_window")), "sliding_window");
        const QJsonArray types = t.value(QLatin1String("layer_types")).toArray();
        if (!types.isEmpty()) {
            if (uint64_t(types.size()) != a.layers)
                throw Error(
                    Message(QT_TRANSLATE_NOOP("qs::Message", "config.json: layer_types has %1 entries for %2 layers"),
                            {std::to_string(types.size()), std::to_string(a.layers)}));
            for (uint32_t il = 0; il < a.layers; ++il)
                if (types.at(il).toString() == QLatin1String("sliding_attention"))
                    a.kinds[il] = LayerMemory::Sliding;
        } else {
            const uint64_t pattern = jsonUint(t, "sliding_window_pattern");
            setSwaPattern(a, pattern ? pattern : (a.arch == "gemma2" ? 2 : 6));
        }
    } else if (window && !t.value(QLatin1String("sliding_window")).isNull()) {
        a.notes.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "config.json has sliding_window %1, but llama.cpp runs %2 with a full cache in every layer"),
             {std::to_string(window), a.arch}});
    }
    checkArch(a);
    return a;
}

ModelArch modelArchOf(const Checkpoint& c)
{
    if (c.container == Container::Gguf)
        return modelArchFromGguf(c);
    if (c.config.isEmpty())
        throw Error(Message::quoting(
            QT_TRANSLATE_NOOP("qs::Message", "%1: no config.json beside the checkpoint (needed for the memory budget)"),
            {Message::verbatim(c.path)}));
    return modelArchFromConfig(c.config);
}

std::vector<std::string> archPresetNames()
{
    std::vector<std::string> out;
    for (const Preset& p : presets())
        out.push_back(p.name);
    return out;
}

std::optional<ModelArch> archPreset(const std::string& name)
{
    for (const Preset& p : presets())
        if (name == p.name)
            return p.make();
    return std::nullopt;
}

// common/arg.cpp kv_cache_types, in bits per element order (the fit search's order); each
// spelled as its ggml type name in lowercase.
const std::vector<int>& kvCacheTypes()
{
    static const std::vector<int> all{GgmlF32,  GgmlF16,  GgmlBF16,   GgmlQ8_0, GgmlQ5_1,
                                      GgmlQ5_0, GgmlQ4_1, GgmlIQ4_NL, GgmlQ4_0};
    return all;
}

std::optional<int> kvCacheTypeByName(const std::string& name)
{
    for (int t : kvCacheTypes())
        if (equalsIgnoreCase(ggmlTypeName(t), name))
            return t;
    return std::nullopt;
}

std::string kvCacheTypeName(int type)
{
    return asciiLower(ggmlTypeName(type));
}

const BudgetFormat& publishedWeightsFormat()
{
    static const BudgetFormat f = *budgetFormat(plainFormatId(DType::BF16));
    return f;
}

uint64_t WeightSplit::total() const
{
    uint64_t s = input + output + outputDuplicate;
    for (uint64_t l : layers)
        s += l;
    return s;
}

WeightSplit weightSplitOf(const Checkpoint& c, const ModelArch& arch)
{
    WeightSplit w;
    w.layers.assign(arch.layers, 0);
    bool hasOutput = false;
    uint64_t embedding = 0;
    for (const TensorEntry& t : c.tensors) {
        if (const auto b = blockOf(t.name); b && *b < arch.layers)
            w.layers[*b] += t.nbytes;
        else if (isInputTensor(t.name))
            w.input += t.nbytes;
        else
            w.output += t.nbytes;
        hasOutput = hasOutput || isOutputProjection(t.name);
        if (isTokenEmbedding(t.name))
            embedding += t.nbytes;
    }
    // llama.cpp loads token_embd a second time as the output projection (TENSOR_DUPLICATED).
    if (!hasOutput)
        w.outputDuplicate = embedding;
    if (w.total() == 0) {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "the file holds no weights (%1 tensors): the weights count 0 bytes "
                                             "and the total is the cache and buffers alone"),
                           {std::to_string(c.tensors.size())}});
        return w;
    }
    // The blocks held, as ranges: "0", "0-3, 7".
    std::string held;
    uint32_t count = 0, ranges = 0;
    for (uint32_t b = 0; b < arch.layers; ++b) {
        if (!w.layers[b])
            continue;
        ++count;
        if (b && w.layers[b - 1])
            continue;
        uint32_t e = b;
        while (e + 1 < arch.layers && w.layers[e + 1])
            ++e;
        if (++ranges <= 4)
            held += (held.empty() ? "" : ", ") + std::to_string(b) + (e > b ? "-" + std::to_string(e) : "");
        else if (ranges == 5)
            held += ", ...";
    }
    if (count == 0 && arch.layers)
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "the file holds none of the %1 blocks its metadata names: the "
                                             "weights are this file's alone, the cache and buffers those of "
                                             "all %1 blocks"),
                           {std::to_string(arch.layers)}});
    else if (count < arch.layers)
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "the file holds the weights of %1 of the %2 blocks its metadata "
                                             "names (%3): the weights are this file's alone, the cache and "
                                             "buffers those of all %2 blocks"),
                           {std::to_string(count), std::to_string(arch.layers), held}});
    return w;
}

WeightSplit weightSplitOfParams(const ModelArch& arch, uint64_t params, double bitsPerWeight)
{
    WeightSplit w;
    const double bytesPerWeight = bitsPerWeight / 8.0;
    const double embedding = double(arch.vocab) * double(arch.embd) * bytesPerWeight;
    const double all = double(params) * bytesPerWeight;
    w.input = uint64_t(embedding);
    if (arch.tiedEmbeddings)
        w.outputDuplicate = w.input;
    else
        w.output = w.input;
    const double rest = std::max(0.0, all - double(w.input) - double(w.output));
    w.layers.assign(arch.layers, arch.layers ? uint64_t(rest / arch.layers) : 0);
    return w;
}

bool RunBudget::fits() const
{
    return std::all_of(devices.begin(), devices.end(), [](const DeviceBudget& d) { return d.fits(); });
}

namespace {

// The architecture, the weights' split and the options runBudget takes, refused with a message.
void checkRunInputs(const ModelArch& arch, const WeightSplit& weights, const RunOptions& o)
{
    if (arch.layers == 0 || arch.kinds.size() != arch.layers || arch.headsKv.size() != arch.layers)
        throw Error(Message(QT_TRANSLATE_NOOP("qs::Message", "budget: the architecture has no layers")));
    if (weights.layers.size() != arch.layers)
        throw Error(
            Message(QT_TRANSLATE_NOOP("qs::Message", "budget: the weights are split over %1 blocks, the model has %2"),
                    {std::to_string(weights.layers.size()), std::to_string(arch.layers)}));
    if (o.parallel == 0 || o.parallel > 256)
        throw Error(
            Message(QT_TRANSLATE_NOOP("qs::Message", "budget: the number of parallel sequences must be 1 .. 256")));
    if (o.context == 0 || o.context > (uint64_t(1) << 26))
        throw Error(Message(QT_TRANSLATE_NOOP("qs::Message", "budget: the context must be 1 .. 2^26 tokens")));
    if (o.gpuLayers < 0)
        throw Error(Message(QT_TRANSLATE_NOOP("qs::Message", "budget: --gpu-layers must not be negative")));
    for (int t : {o.typeK, o.typeV})
        if (std::find(kvCacheTypes().begin(), kvCacheTypes().end(), t) == kvCacheTypes().end())
            throw Error(Message(QT_TRANSLATE_NOOP("qs::Message", "budget: %1 is not a KV cache type llama.cpp accepts"),
                                {ggmlTypeName(t)}));
    if (!o.flashAttention && ggmlType(o.typeV)->blockWeights > 1 && !arch.mla)
        throw Error(Message(
            QT_TRANSLATE_NOOP("qs::Message", "budget: llama.cpp quantizes the V cache (%1) only with flash attention"),
            {kvCacheTypeName(o.typeV)}));
}

// Compute buffer: an estimate of ggml-alloc's peak for one ubatch (the allocator reuses
// memory, so the peak is the largest live set, not the sum of the graph), per device.
void estimateCompute(RunBudget& r, const ModelArch& arch, uint64_t ubatch)
{
    const RunOptions& o = r.options;
    uint64_t kvCells = 0;
    uint32_t maxHeads = 0;
    for (const LayerBudget& l : r.layers)
        if (l.kind == LayerMemory::Full || l.kind == LayerMemory::Sliding)
            kvCells = std::max(kvCells, l.cells);
    for (uint32_t h : arch.heads)
        maxHeads = std::max(maxHeads, h);
    const uint64_t hidden = ubatch * arch.embd * 4;
    const uint64_t attention = o.flashAttention
        ? ubatch * kvCells * 2 + ubatch * uint64_t(maxHeads) * arch.keyLength * 4
        : ubatch * kvCells * uint64_t(maxHeads) * 4;
    const uint64_t ffnWidth = arch.experts ? arch.expertFfn * std::max<uint32_t>(1, arch.expertsUsed) : arch.ffn;
    const uint64_t ffn = ubatch * ffnWidth * 2 * 4;
    const uint64_t state = arch.recurrentElements() * 4 * std::max<uint32_t>(1, o.parallel) * 2;
    const uint64_t layerPeak = hidden + std::max({attention, ffn, state});
    const uint64_t logitsPeak = hidden + ubatch * arch.vocab * 4;
    for (DeviceBudget& d : r.devices) {
        uint64_t c = d.layers ? layerPeak : 0;
        if (d.hasOutput)
            c = std::max(c, logitsPeak);
        d.compute = std::max(c, &d == &r.devices[0] ? hidden : uint64_t(0)); // the CPU looks up the embeddings
    }
}

// The devices' figures summed into the run's.
void sumDevices(RunBudget& r)
{
    for (const DeviceBudget& d : r.devices) {
        r.weightsBytes += d.weights;
        r.kvCacheBytes += d.kvCache;
        r.recurrentBytes += d.recurrent;
        r.outputBytes += d.output;
        r.computeEstimate += d.compute;
    }
}

} // namespace

RunBudget runBudget(const ModelArch& arch, const WeightSplit& weights, const RunOptions& o,
                    const std::vector<double>& memoryGiB)
{
    checkRunInputs(arch, weights, o);

    RunBudget r;
    r.options = o;
    // llama-context.cpp: n_ctx padded to 256; without --kv-unified one stream per sequence,
    // each n_ctx / n_seq padded to 256.
    r.nCtx = padTo(o.context, kCtxPad);
    if (o.unifiedKv) {
        r.cellsPerStream = r.nCtx;
        r.streams = 1;
    } else {
        r.cellsPerStream = padTo(r.nCtx / o.parallel, kCtxPad);
        if (r.cellsPerStream == 0)
            throw Error(Message(
                QT_TRANSLATE_NOOP("qs::Message", "budget: a context of %1 leaves no cells for each of %2 sequences"),
                {std::to_string(o.context), std::to_string(o.parallel)}));
        r.streams = o.parallel;
        r.nCtx = r.cellsPerStream * o.parallel;
    }
    // n_batch = min(n_ctx, 2048), n_ubatch = min(n_batch, -ub).
    const uint64_t ubatch = std::min<uint64_t>({o.ubatch ? o.ubatch : 512, r.nCtx, 2048});
    // llama-kv-cache-iswa.cpp: the window (times the sequences when unified) plus one ubatch.
    const uint64_t swaCells = o.swaFull
        ? r.cellsPerStream
        : std::min<uint64_t>(r.cellsPerStream, uint64_t(arch.slidingWindow) * (o.unifiedKv ? o.parallel : 1) + ubatch);
    uint64_t vWidthMax = 0;
    for (uint32_t il = 0; il < arch.layers; ++il)
        vWidthMax = std::max(vWidthMax, arch.vWidth(il));

    // Devices: the CPU, then one GPU per memory size after the first (or one, for -ngl alone).
    size_t gpus = memoryGiB.size() > 1 ? memoryGiB.size() - 1 : 0;
    gpus = std::max(gpus, o.gpuSplit.size());
    if (gpus == 0 && o.gpuLayers > 0)
        gpus = 1;
    std::vector<double> split = o.gpuSplit;
    if (split.empty() && memoryGiB.size() > 1)
        split.assign(memoryGiB.begin() + 1, memoryGiB.end());
    if (split.size() < gpus)
        split.resize(gpus, split.empty() ? 1.0 : split.back());
    double sum = 0;
    for (double& s : split) {
        sum += std::max(0.0, s);
        s = sum;
    }
    for (double& s : split)
        s = sum > 0 ? s / sum : 1.0;
    r.devices.resize(gpus + 1);
    r.devices[0].name = "CPU";
    for (size_t g = 0; g < gpus; ++g)
        r.devices[g + 1].name = "GPU" + std::to_string(g);
    for (size_t d = 0; d < r.devices.size() && d < memoryGiB.size(); ++d)
        r.devices[d].capacity = uint64_t(std::max(0.0, memoryGiB[d]) * 1073741824.0);

    // llama-model.cpp load_tensors: i_gpu_start = n_layer - ngl, act = min(ngl, n_layer + 1);
    // index n_layer is the output layer; a layer's GPU is where its share falls in the splits.
    const int n = int(arch.layers);
    const int ngl = gpus ? std::min(o.gpuLayers, n + 1) : 0;
    const int start = std::max(n - ngl, 0);
    auto deviceOf = [&](int il) -> int {
        if (il < start || il - start >= ngl)
            return 0;
        const float f = float(il - start) / float(ngl);
        return 1 + int(std::min<size_t>(std::upper_bound(split.begin(), split.end(), f) - split.begin(), gpus - 1));
    };

    r.devices[0].weights += weights.input;
    for (uint32_t il = 0; il < arch.layers; ++il) {
        LayerBudget l;
        l.layer = il;
        l.kind = arch.kinds[il];
        l.device = deviceOf(int(il));
        switch (l.kind) {
        case LayerMemory::Full:
        case LayerMemory::Sliding: {
            l.cells = l.kind == LayerMemory::Full ? r.cellsPerStream : swaCells;
            const uint64_t kRow = rowBytesOf(o.typeK, arch.kWidth(il), il, "K");
            // Without flash attention V is stored transposed, every layer as wide as the widest.
            const uint64_t vRow =
                arch.mla ? 0 : rowBytesOf(o.typeV, o.flashAttention ? arch.vWidth(il) : vWidthMax, il, "V");
            l.kBytes = kRow * l.cells * r.streams;
            l.vBytes = vRow * l.cells * r.streams;
            r.kvBytesPerToken += kRow + vRow;
            break;
        }
        case LayerMemory::Recurrent:
            // llama-memory-recurrent: f32 r and s states, one cell per sequence.
            l.cells = std::max<uint32_t>(1, o.parallel);
            l.stateBytes = arch.recurrentElements() * 4 * l.cells;
            break;
        case LayerMemory::None: break;
        }
        DeviceBudget& d = r.devices[size_t(l.device)];
        d.weights += weights.layers[il];
        d.kvCache += l.kBytes + l.vBytes;
        d.recurrent += l.stateBytes;
        ++d.layers;
        r.layers.push_back(l);
    }
    const int outDev = deviceOf(n);
    r.devices[size_t(outDev)].weights += weights.output + (outDev != 0 ? weights.outputDuplicate : 0);
    r.devices[size_t(outDev)].hasOutput = true;
    // llama-context output_reserve(n_seq_max): n_vocab floats per sequence, in host memory.
    r.devices[0].output = arch.vocab * 4 * o.parallel;

    estimateCompute(r, arch, ubatch);

    sumDevices(r);
    r.notes = weights.notes;
    if (o.context != r.nCtx)
        r.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "llama.cpp rounds the context %1 to %2 cells"),
                           {std::to_string(o.context), std::to_string(r.nCtx)}});
    if (arch.contextLength && r.nCtx > arch.contextLength)
        r.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "the context exceeds the trained %1 tokens"),
                           {std::to_string(arch.contextLength)}});
    return r;
}

std::optional<uint64_t> maxContext(const ModelArch& arch, const WeightSplit& weights, RunOptions o,
                                   const std::vector<double>& memoryGiB)
{
    const uint64_t cap = arch.contextLength ? arch.contextLength : (uint64_t(1) << 20);
    const uint64_t minCtx = kCtxPad * (o.unifiedKv ? 1 : o.parallel);
    auto fitsAt = [&](uint64_t ctx) {
        o.context = ctx;
        return runBudget(arch, weights, o, memoryGiB).fits();
    };
    if (cap < minCtx)
        return fitsAt(cap) ? std::optional<uint64_t>(cap) : std::nullopt;
    if (fitsAt(cap))
        return cap;
    if (!fitsAt(minCtx))
        return std::nullopt;
    // Every device's total grows with the context: bisect over multiples of 256 (fits at lo).
    uint64_t lo = minCtx / kCtxPad, hi = cap / kCtxPad + 1;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (fitsAt(mid * kCtxPad))
            lo = mid;
        else
            hi = mid;
    }
    return lo * kCtxPad;
}

std::optional<int> cacheTypeThatFits(const ModelArch& arch, const WeightSplit& weights, RunOptions o,
                                     const std::vector<double>& memoryGiB)
{
    for (int t : kvCacheTypes()) {
        if (t == GgmlBF16) // as large as f16
            continue;
        o.typeK = o.typeV = t;
        try {
            if (runBudget(arch, weights, o, memoryGiB).fits())
                return t;
        } catch (const Error&) {
            // a type this model's rows or the options cannot take
        }
    }
    return std::nullopt;
}

std::vector<uint64_t> commonContexts(const ModelArch& arch)
{
    std::vector<uint64_t> out;
    const uint64_t cap = arch.contextLength ? arch.contextLength : 131072;
    for (uint64_t c = 2048; c <= 131072 && c <= cap; c *= 2)
        out.push_back(c);
    if (cap < 131072 && (out.empty() || out.back() != cap))
        out.push_back(cap);
    return out;
}

} // namespace qs
