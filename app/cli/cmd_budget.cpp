// quantscope-cli budget [--params N[,N...]] [PATH] [--memory GiB] [--layer NxK] [--json]:
// effective bits per weight of every format (every scale, zero, index and table counted,
// amortised over an N x K layer) and the memory a model of each parameter count needs.
// With --context or --arch: the memory for running the model as llama.cpp allocates it
// (weights per device, KV cache, buffers) and the largest context that fits --memory.
#include "commands.h"
#include "base/counttext.h"

#include "analysis/budget.h"
#include "analysis/runbudget.h"
#include "base/error.h"
#include "base/localpath.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace qscli {
namespace {

// "7B", "13b", "1.5B", "405e9", "70000000000", "350M": a positive parameter count.
std::optional<uint64_t> parseCount(QString s)
{
    s = s.trimmed();
    double mult = 1;
    if (!s.isEmpty()) {
        const QChar last = s.back().toUpper();
        const double m = last == QLatin1Char('K')                  ? 1e3
            : last == QLatin1Char('M')                             ? 1e6
            : last == QLatin1Char('B') || last == QLatin1Char('G') ? 1e9
            : last == QLatin1Char('T')                             ? 1e12
                                                                   : 0;
        if (m != 0) {
            mult = m;
            s.chop(1);
        }
    }
    bool ok = false;
    const double v = s.toDouble(&ok) * mult;
    if (!ok || !(v >= 1) || v > 1e16)
        return std::nullopt;
    return uint64_t(std::llround(v));
}

std::string countText(uint64_t n)
{
    char buf[32];
    if (n >= 1000000000ull && n % 100000000ull == 0)
        std::snprintf(buf, sizeof buf, "%gB", double(n) / 1e9);
    else if (n >= 1000000ull && n % 100000ull == 0)
        std::snprintf(buf, sizeof buf, "%gM", double(n) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    return buf;
}

struct CheckpointSummary {
    uint64_t elements = 0; // logical weights plus every tensor outside them
    uint64_t storedBytes = 0;
    uint64_t weights = 0;
};

CheckpointSummary summarise(const qs::Checkpoint& c)
{
    CheckpointSummary s;
    std::vector<bool> member(c.tensors.size(), false);
    for (const qs::LogicalWeight& w : c.weights) {
        s.elements += w.elementCount();
        ++s.weights;
        for (const auto& m : w.members)
            if (m.second < member.size())
                member[m.second] = true;
    }
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        s.storedBytes += c.tensors[i].nbytes;
        if (!member[i])
            s.elements += c.tensors[i].elementCount();
    }
    return s;
}

const char* layerKindName(qs::LayerMemory k)
{
    switch (k) {
    case qs::LayerMemory::Full: return "full";
    case qs::LayerMemory::Sliding: return "sliding";
    case qs::LayerMemory::Recurrent: return "recurrent";
    case qs::LayerMemory::None: return "none";
    }
    return "";
}

QJsonObject budgetFigures(const qs::RunBudget& r)
{
    QJsonObject o;
    o[QStringLiteral("context")] = qint64(r.options.context);
    o[QStringLiteral("n_ctx")] = qint64(r.nCtx);
    o[QStringLiteral("weights_bytes")] = qint64(r.weightsBytes);
    o[QStringLiteral("kv_cache_bytes")] = qint64(r.kvCacheBytes);
    o[QStringLiteral("recurrent_bytes")] = qint64(r.recurrentBytes);
    o[QStringLiteral("output_bytes")] = qint64(r.outputBytes);
    o[QStringLiteral("compute_bytes_estimate")] = qint64(r.computeEstimate);
    o[QStringLiteral("total_bytes")] = qint64(r.totalBytes());
    return o;
}

// What `budget PATH --context N ...` or `budget --arch NAME ...` computed: the model, its
// weights, the options and the budget at the asked context and at the common ones.
struct MemoryBudget {
    QString label; // PATH or the --arch name
    qs::ModelArch arch;
    std::string weightsNote;
    qs::RunOptions options;
    std::vector<double> memory; // GiB: RAM, then each GPU
    qs::RunBudget run;
    std::optional<uint64_t> maxContext;
    std::optional<int> fitType; // the cache type that makes the asked context fit
    std::vector<qs::RunBudget> contexts;
};

// --context, --parallel, --ubatch, the cache types and the flags as llama.cpp takes them; the
// -ngl given in `gpuLayers` (the default needs the architecture). nullopt after printing an error.
std::optional<qs::RunOptions> runOptionsOf(const QCommandLineParser& p, std::optional<int>& gpuLayers)
{
    qs::RunOptions o;
    auto number = [&](const char* name, uint64_t lo, uint64_t hi, uint64_t& out) {
        if (!p.isSet(QLatin1String(name)))
            return true;
        bool ok = false;
        const qulonglong v = p.value(QLatin1String(name)).toULongLong(&ok);
        if (!ok || v < lo || v > hi) {
            std::fprintf(stderr, "quantscope-cli budget: --%s needs a whole number %llu .. %llu\n", name,
                         static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
            return false;
        }
        out = v;
        return true;
    };
    uint64_t parallel = 1, layers = 0, ubatch = 512;
    if (!number("context", 1, uint64_t(1) << 26, o.context) || !number("parallel", 1, 256, parallel)
        || !number("gpu-layers", 0, 100000, layers) || !number("ubatch", 1, 1 << 20, ubatch))
        return std::nullopt;
    if (p.isSet(QStringLiteral("gpu-layers")))
        gpuLayers = int(layers);
    o.parallel = uint32_t(parallel);
    o.ubatch = uint32_t(ubatch);
    o.swaFull = p.isSet(QStringLiteral("swa-full"));
    o.unifiedKv = p.isSet(QStringLiteral("kv-unified"));
    o.flashAttention = !p.isSet(QStringLiteral("no-flash-attn"));
    const bool both = p.isSet(QStringLiteral("cache-type"));
    if (both && (p.isSet(QStringLiteral("cache-type-k")) || p.isSet(QStringLiteral("cache-type-v")))) {
        std::fprintf(stderr, "quantscope-cli budget: --cache-type or --cache-type-k/--cache-type-v, not both\n");
        return std::nullopt;
    }
    for (const auto& [option, slot] : {std::pair{"cache-type-k", &o.typeK}, std::pair{"cache-type-v", &o.typeV}}) {
        const QString name = both ? p.value(QStringLiteral("cache-type")) : p.value(QLatin1String(option));
        if (name.isEmpty())
            continue;
        const auto t = qs::kvCacheTypeByName(name.toStdString());
        if (!t) {
            std::string list;
            for (int k : qs::kvCacheTypes())
                list += (list.empty() ? "" : ", ") + qs::kvCacheTypeName(k);
            std::fprintf(stderr, "quantscope-cli budget: unknown cache type '%s' (%s)\n", qPrintable(name),
                         list.c_str());
            return std::nullopt;
        }
        *slot = *t;
    }
    return o;
}

// The architecture and its weights: a published preset priced in --weights, or the
// checkpoint's own. False after printing an error.
bool modelOf(const QCommandLineParser& p, const QStringList& pos, MemoryBudget& b, qs::WeightSplit& weights)
{
    const QString archName = p.value(QStringLiteral("arch"));
    if (archName.isEmpty()) {
        if (p.isSet(QStringLiteral("weights"))) {
            std::fprintf(
                stderr,
                "quantscope-cli budget: --weights prices an --arch preset; a checkpoint's weights are its own\n");
            return false;
        }
        const auto c = qs::Checkpoint::read(qs::encodeLocalBytes(pos.first()));
        b.arch = qs::modelArchOf(*c);
        weights = qs::weightSplitOf(*c, b.arch);
        b.weightsNote = "the checkpoint's stored tensors";
        return true;
    }
    const auto a = qs::archPreset(archName.toStdString());
    if (!a) {
        std::string list;
        for (const std::string& n : qs::archPresetNames())
            list += (list.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "quantscope-cli budget: unknown --arch '%s' (%s)\n", qPrintable(archName), list.c_str());
        return false;
    }
    b.arch = *a;
    const std::string formatId = p.isSet(QStringLiteral("weights")) ? p.value(QStringLiteral("weights")).toStdString()
                                                                    : qs::publishedWeightsFormat().id;
    const qs::BudgetFormat* f = qs::budgetFormat(formatId);
    if (!f) {
        std::fprintf(stderr, "quantscope-cli budget: unknown --weights format '%s' (a format id of the budget table)\n",
                     formatId.c_str());
        return false;
    }
    const double bpw = qs::budgetBitsPerWeight(*f, 4096, 4096);
    weights = qs::weightSplitOfParams(b.arch, b.arch.params, bpw);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s parameters at %s (%.4f bits per weight)", countText(b.arch.params).c_str(),
                  formatId.c_str(), bpw);
    b.weightsNote = buf;
    return true;
}

// The budget at the asked context, the largest context and cache type that fit, and the
// common contexts.
void computeMemoryBudget(MemoryBudget& b, const qs::WeightSplit& weights)
{
    b.run = qs::runBudget(b.arch, weights, b.options, b.memory);
    if (!b.memory.empty()) {
        b.maxContext = qs::maxContext(b.arch, weights, b.options, b.memory);
        if (!b.run.fits())
            b.fitType = qs::cacheTypeThatFits(b.arch, weights, b.options, b.memory);
    }
    for (uint64_t ctx : qs::commonContexts(b.arch)) {
        qs::RunOptions t = b.options;
        t.context = ctx;
        try {
            b.contexts.push_back(qs::runBudget(b.arch, weights, t, b.memory));
        } catch (const qs::Error&) {
            // a context too short for the sequences: left out of the table
        }
    }
}

QJsonObject archJson(const qs::ModelArch& arch)
{
    QJsonObject a;
    a[QStringLiteral("arch")] = QString::fromStdString(arch.arch);
    a[QStringLiteral("source")] = QString::fromStdString(arch.source);
    a[QStringLiteral("layers")] = qint64(arch.layers);
    a[QStringLiteral("embedding_length")] = qint64(arch.embd);
    a[QStringLiteral("vocab_size")] = qint64(arch.vocab);
    a[QStringLiteral("context_length")] = qint64(arch.contextLength);
    a[QStringLiteral("key_length")] = qint64(arch.keyLength);
    a[QStringLiteral("value_length")] = qint64(arch.valueLength);
    a[QStringLiteral("sliding_window")] = qint64(arch.slidingWindow);
    a[QStringLiteral("mla")] = arch.mla;
    a[QStringLiteral("expert_count")] = qint64(arch.experts);
    a[QStringLiteral("expert_used_count")] = qint64(arch.expertsUsed);
    return a;
}

QJsonArray devicesJson(const qs::RunBudget& r)
{
    QJsonArray devices;
    for (const qs::DeviceBudget& d : r.devices) {
        QJsonObject j;
        j[QStringLiteral("name")] = QString::fromStdString(d.name);
        j[QStringLiteral("layers")] = d.layers;
        j[QStringLiteral("output_layer")] = d.hasOutput;
        j[QStringLiteral("weights_bytes")] = qint64(d.weights);
        j[QStringLiteral("weights_mapped")] = &d == &r.devices.front();
        j[QStringLiteral("kv_cache_bytes")] = qint64(d.kvCache);
        j[QStringLiteral("recurrent_bytes")] = qint64(d.recurrent);
        j[QStringLiteral("output_bytes")] = qint64(d.output);
        j[QStringLiteral("compute_bytes_estimate")] = qint64(d.compute);
        j[QStringLiteral("total_bytes")] = qint64(d.total());
        if (d.capacity) {
            j[QStringLiteral("memory_bytes")] = qint64(*d.capacity);
            j[QStringLiteral("fits")] = d.fits();
        }
        devices.append(j);
    }
    return devices;
}

QJsonArray layersJson(const qs::RunBudget& r)
{
    QJsonArray layers;
    for (const qs::LayerBudget& l : r.layers) {
        QJsonObject j;
        j[QStringLiteral("layer")] = qint64(l.layer);
        j[QStringLiteral("kind")] = QLatin1String(layerKindName(l.kind));
        j[QStringLiteral("cells")] = qint64(l.cells);
        j[QStringLiteral("k_bytes")] = qint64(l.kBytes);
        j[QStringLiteral("v_bytes")] = qint64(l.vBytes);
        j[QStringLiteral("state_bytes")] = qint64(l.stateBytes);
        j[QStringLiteral("device")] = QString::fromStdString(r.devices[size_t(l.device)].name);
        layers.append(j);
    }
    return layers;
}

void printMemoryBudgetJson(const MemoryBudget& b)
{
    const qs::RunBudget& r = b.run;
    const qs::RunOptions& o = b.options;
    QJsonObject root = budgetFigures(r);
    root[QStringLiteral("architecture")] = archJson(b.arch);
    root[QStringLiteral("weights_source")] = QString::fromStdString(b.weightsNote);
    root[QStringLiteral("parallel")] = qint64(o.parallel);
    root[QStringLiteral("cache_type_k")] = QString::fromStdString(qs::kvCacheTypeName(o.typeK));
    root[QStringLiteral("cache_type_v")] = QString::fromStdString(qs::kvCacheTypeName(o.typeV));
    root[QStringLiteral("gpu_layers")] = o.gpuLayers;
    root[QStringLiteral("swa_full")] = o.swaFull;
    root[QStringLiteral("kv_unified")] = o.unifiedKv;
    root[QStringLiteral("flash_attention")] = o.flashAttention;
    root[QStringLiteral("cells_per_stream")] = qint64(r.cellsPerStream);
    root[QStringLiteral("streams")] = qint64(r.streams);
    root[QStringLiteral("kv_bytes_per_token")] = qint64(r.kvBytesPerToken);
    root[QStringLiteral("devices")] = devicesJson(r);
    root[QStringLiteral("layers")] = layersJson(r);
    QJsonArray contexts;
    for (const qs::RunBudget& t : b.contexts) {
        QJsonObject j = budgetFigures(t);
        if (!b.memory.empty())
            j[QStringLiteral("fits")] = t.fits();
        contexts.append(j);
    }
    root[QStringLiteral("contexts")] = contexts;
    if (!b.memory.empty()) {
        QJsonArray m;
        for (double v : b.memory)
            m.append(v);
        root[QStringLiteral("memory_gib")] = m;
        root[QStringLiteral("fits")] = r.fits();
        root[QStringLiteral("max_context")] = b.maxContext ? QJsonValue(qint64(*b.maxContext)) : QJsonValue();
        if (!r.fits())
            root[QStringLiteral("cache_type_that_fits")] =
                b.fitType ? QJsonValue(QString::fromStdString(qs::kvCacheTypeName(*b.fitType))) : QJsonValue();
    }
    QJsonArray notes;
    for (const qs::Message& n : b.arch.notes)
        notes.append(QString::fromStdString(n.text()));
    for (const qs::Message& n : r.notes)
        notes.append(QString::fromStdString(n.text()));
    root[QStringLiteral("notes")] = notes;
    std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
}

// The model's line, the weights and the options the budget was taken with.
void printMemoryBudgetHeader(const MemoryBudget& b)
{
    const qs::ModelArch& arch = b.arch;
    const qs::RunOptions& o = b.options;
    uint32_t full = 0, sliding = 0, recurrent = 0;
    for (qs::LayerMemory k : arch.kinds) {
        full += k == qs::LayerMemory::Full;
        sliding += k == qs::LayerMemory::Sliding;
        recurrent += k == qs::LayerMemory::Recurrent;
    }
    std::printf("%s: %s (%s), %s", qPrintable(b.label), arch.arch.c_str(), arch.source.c_str(),
                qs::counted(arch.layers, "block", "blocks").c_str());
    if (full + sliding)
        std::printf(", K %u x V %u per KV head%s", arch.keyLength, arch.mla ? 0u : arch.valueLength,
                    arch.mla ? " (MLA: V is a view of K)" : "");
    if (sliding)
        std::printf(", %u of them sliding over %u tokens", sliding, arch.slidingWindow);
    if (recurrent)
        std::printf(", %u recurrent", recurrent);
    if (arch.contextLength)
        std::printf(", trained context %llu", static_cast<unsigned long long>(arch.contextLength));
    std::printf("\nweights: %s\n", b.weightsNote.c_str());
    std::printf(
        "context %llu = %llu cells (%u stream%s of %llu), K %s, V %s, %u sequence%s%s, flash attention %s, -ngl %d\n\n",
        static_cast<unsigned long long>(o.context), static_cast<unsigned long long>(b.run.nCtx), b.run.streams,
        b.run.streams == 1 ? "" : "s", static_cast<unsigned long long>(b.run.cellsPerStream),
        qs::kvCacheTypeName(o.typeK).c_str(), qs::kvCacheTypeName(o.typeV).c_str(), o.parallel,
        o.parallel == 1 ? "" : "s",
        !sliding        ? ""
            : o.swaFull ? ", full-size SWA cache"
                        : ", window-sized SWA cache",
        o.flashAttention ? "on" : "off", o.gpuLayers);
}

void printMemoryBudgetText(const MemoryBudget& b)
{
    const qs::RunBudget& r = b.run;
    printMemoryBudgetHeader(b);
    std::printf("%-20s %16s %12s\n", "", "bytes", "");
    const std::pair<const char*, uint64_t> lines[] = {{"weights", r.weightsBytes},
                                                      {"KV cache", r.kvCacheBytes},
                                                      {"recurrent state", r.recurrentBytes},
                                                      {"output buffer", r.outputBytes},
                                                      {"compute (estimate)", r.computeEstimate},
                                                      {"total", r.totalBytes()}};
    for (const auto& [name, bytes] : lines)
        std::printf("%-20s %16llu %12s\n", name, static_cast<unsigned long long>(bytes), sizeText(bytes).c_str());
    std::printf("KV cache per token: %llu bytes\n\n", static_cast<unsigned long long>(r.kvBytesPerToken));
    std::printf("%-6s %7s %12s %12s %12s %12s %12s %12s %10s\n", "device", "layers", "weights", "KV cache", "recurrent",
                "output", "compute*", "total", "memory");
    for (const qs::DeviceBudget& d : r.devices) {
        std::string layersText = std::to_string(d.layers) + (d.hasOutput ? "+out" : "");
        std::printf("%-6s %7s %12s %12s %12s %12s %12s %12s %10s%s\n", d.name.c_str(), layersText.c_str(),
                    sizeText(d.weights).c_str(), sizeText(d.kvCache).c_str(), sizeText(d.recurrent).c_str(),
                    sizeText(d.output).c_str(), sizeText(d.compute).c_str(), sizeText(d.total()).c_str(),
                    d.capacity ? sizeText(*d.capacity).c_str() : "-",
                    d.capacity ? (d.fits() ? "  fits" : "  over") : "");
    }
    std::printf("(* an estimate; CPU weights are memory-mapped from the file)\n");
    if (!b.memory.empty()) {
        if (b.maxContext)
            std::printf("\nlargest context that fits: %llu%s\n", static_cast<unsigned long long>(*b.maxContext),
                        b.arch.contextLength && *b.maxContext == b.arch.contextLength ? " (the whole trained context)"
                                                                                      : "");
        else
            std::printf("\nlargest context that fits: none (not even 256 tokens)\n");
        if (!r.fits())
            std::printf("cache type that makes context %llu fit: %s\n",
                        static_cast<unsigned long long>(b.options.context),
                        b.fitType ? qs::kvCacheTypeName(*b.fitType).c_str() : "none");
    }
    std::printf("\n%-10s %12s %12s%s\n", "context", "KV cache", "total", b.memory.empty() ? "" : "   fits");
    for (const qs::RunBudget& t : b.contexts)
        std::printf("%-10llu %12s %12s%s\n", static_cast<unsigned long long>(t.options.context),
                    sizeText(t.kvCacheBytes + t.recurrentBytes).c_str(), sizeText(t.totalBytes()).c_str(),
                    b.memory.empty() ? ""
                        : t.fits()   ? "   yes"
                                     : "   no");
    for (const qs::Message& n : b.arch.notes)
        std::printf("note: %s\n", n.text().c_str());
    for (const qs::Message& n : r.notes)
        std::printf("note: %s\n", n.text().c_str());
}

// The budget of running the model: `budget PATH --context N ...` or `budget --arch NAME ...`.
int runMemoryBudget(const QCommandLineParser& p, const QStringList& pos, const std::vector<double>& memory)
{
    const QString archName = p.value(QStringLiteral("arch"));
    if (pos.isEmpty() == archName.isEmpty()) {
        std::fprintf(stderr,
                     "quantscope-cli budget: give a checkpoint PATH or --arch NAME (not both) with --context\n");
        return 2;
    }
    std::optional<int> gpuLayers;
    const std::optional<qs::RunOptions> options = runOptionsOf(p, gpuLayers);
    if (!options)
        return 2;
    MemoryBudget b;
    b.label = pos.isEmpty() ? archName : pos.first();
    b.options = *options;
    b.memory = memory;
    qs::WeightSplit weights;
    if (!modelOf(p, pos, b, weights))
        return 2;
    // -ngl: with GPU memory sizes and no --gpu-layers, every block and the output layer.
    b.options.gpuLayers = gpuLayers ? *gpuLayers : memory.size() > 1 ? int(b.arch.layers) + 1 : 0;
    computeMemoryBudget(b, weights);
    if (p.isSet(QStringLiteral("json")))
        printMemoryBudgetJson(b);
    else
        printMemoryBudgetText(b);
    return 0;
}

// The options of the format table and of running a model, as --help lists them.
void addBudgetOptions(QCommandLineParser& p)
{
    p.setApplicationDescription(
        QStringLiteral("Effective bits per weight of every format and the memory a model needs in each."));
    p.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral(
            "Optional checkpoint: its parameter count replaces the defaults and its own bits per weight are shown."),
        QStringLiteral("[PATH]"));
    p.addOptions({
        {QStringLiteral("params"),
         QStringLiteral("Parameter counts, comma separated (7B, 1.5B, 350M, 405e9). Default: 1B,7B,13B,70B,405B."),
         QStringLiteral("N")},
        {QStringLiteral("memory"),
         QStringLiteral("Memory in GiB: mark which sizes fit. With --context: "
                        "RAM[,GPU0[,GPU1...]], the largest context that fits."),
         QStringLiteral("GiB")},
        {QStringLiteral("layer"),
         QStringLiteral(
             "Layer shape N x K the per-layer costs (g_idx, tables) are amortised over. Default: 4096x4096."),
         QStringLiteral("NxK")},
        {QStringLiteral("json"), QStringLiteral("Print JSON.")},
    });
    // Running the model (llama.cpp's allocation).
    p.addOptions({
        {QStringLiteral("context"),
         QStringLiteral(
             "Context length as llama.cpp's -c (shared by the sequences): the memory for running the model."),
         QStringLiteral("N")},
        {QStringLiteral("arch"),
         QStringLiteral("A published architecture instead of PATH: %1.").arg(QString::fromStdString([] {
             std::string l;
             for (const std::string& n : qs::archPresetNames())
                 l += (l.empty() ? "" : ", ") + n;
             return l;
         }())),
         QStringLiteral("NAME")},
        {QStringLiteral("weights"),
         QStringLiteral("With --arch: the format the weights are priced in (a format id above). Default: bf16."),
         QStringLiteral("FORMAT")},
        {QStringLiteral("parallel"), QStringLiteral("Parallel sequences (-np). Default: 1."), QStringLiteral("P")},
        {QStringLiteral("cache-type"),
         QStringLiteral("K and V cache type: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl. Default: f16."),
         QStringLiteral("T")},
        {QStringLiteral("cache-type-k"), QStringLiteral("K cache type (-ctk)."), QStringLiteral("T")},
        {QStringLiteral("cache-type-v"), QStringLiteral("V cache type (-ctv)."), QStringLiteral("T")},
        {QStringLiteral("gpu-layers"),
         QStringLiteral("Layers on the GPU (-ngl): the last L blocks; blocks + 1 adds the output layer. "
                        "Default: all with GPU memory given, else 0."),
         QStringLiteral("L")},
        {QStringLiteral("ubatch"), QStringLiteral("Physical batch (-ub). Default: 512."), QStringLiteral("N")},
        {QStringLiteral("swa-full"), QStringLiteral("Size sliding-window layers like the others (--swa-full).")},
        {QStringLiteral("kv-unified"), QStringLiteral("One KV stream for all sequences (--kv-unified).")},
        {QStringLiteral("no-flash-attn"),
         QStringLiteral("Without flash attention (-fa off): V transposed, no quantized V cache.")},
    });
}

// What `budget [PATH] [--params ...]` computed: a table of every format per parameter count.
struct FormatTables {
    QString path; // the checkpoint, when one was given
    std::optional<CheckpointSummary> checkpoint;
    std::vector<uint64_t> counts;
    std::optional<double> memGiB;
    uint64_t layerN = 4096, layerK = 4096;
    std::vector<std::vector<qs::BudgetRow>> tables; // one per count, the same format order
};

void printFormatTablesJson(const FormatTables& t)
{
    QJsonObject root;
    root[QStringLiteral("layer")] = QJsonArray{qint64(t.layerN), qint64(t.layerK)};
    QJsonArray pc;
    for (uint64_t n : t.counts)
        pc.append(qint64(n));
    root[QStringLiteral("params")] = pc;
    if (t.memGiB)
        root[QStringLiteral("memory_gib")] = *t.memGiB;
    if (const auto& ckpt = t.checkpoint) {
        QJsonObject c;
        c[QStringLiteral("path")] = t.path;
        c[QStringLiteral("elements")] = qint64(ckpt->elements);
        c[QStringLiteral("stored_bytes")] = qint64(ckpt->storedBytes);
        c[QStringLiteral("weights")] = qint64(ckpt->weights);
        c[QStringLiteral("bpw")] = ckpt->elements ? double(ckpt->storedBytes) * 8.0 / double(ckpt->elements) : 0.0;
        root[QStringLiteral("checkpoint")] = c;
    }
    QJsonArray formats;
    for (size_t f = 0; f < t.tables.front().size(); ++f) {
        const qs::BudgetRow& r0 = t.tables.front()[f];
        QJsonObject o;
        o[QStringLiteral("id")] = QString::fromStdString(r0.format.id);
        o[QStringLiteral("bpw")] = r0.bitsPerWeight;
        o[QStringLiteral("asymptotic_bpw")] = qs::asymptoticBitsPerWeight(r0.format);
        o[QStringLiteral("breakdown")] = QString::fromStdString(qs::budgetBreakdown(r0.format, t.layerN, t.layerK));
        QJsonArray sizes;
        for (size_t i = 0; i < t.tables.size(); ++i) {
            const qs::BudgetRow& r = t.tables[i][f];
            QJsonObject s;
            s[QStringLiteral("params")] = qint64(t.counts[i]);
            s[QStringLiteral("bytes")] = r.bytes;
            s[QStringLiteral("gb")] = r.gb;
            s[QStringLiteral("gib")] = r.gib;
            if (r.fits)
                s[QStringLiteral("fits")] = *r.fits;
            sizes.append(s);
        }
        o[QStringLiteral("sizes")] = sizes;
        formats.append(o);
    }
    root[QStringLiteral("formats")] = formats;
    std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
}

void printFormatTablesText(const FormatTables& t)
{
    if (const auto& ckpt = t.checkpoint)
        std::printf("%s: %s in %s = %.4f bits per weight (%s)\n\n", qPrintable(t.path),
                    qs::counted(ckpt->elements, "element", "elements").c_str(),
                    qs::counted(ckpt->storedBytes, "byte", "bytes").c_str(),
                    ckpt->elements ? double(ckpt->storedBytes) * 8.0 / double(ckpt->elements) : 0.0,
                    qs::counted(ckpt->weights, "logical weight", "logical weights").c_str());
    std::string fitNote;
    if (t.memGiB) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " (* = fits in %g GiB)", *t.memGiB);
        fitNote = buf;
    }
    std::printf("Bits per weight amortised over a %llu x %llu layer; sizes as GB / GiB%s.\n\n",
                static_cast<unsigned long long>(t.layerN), static_cast<unsigned long long>(t.layerK), fitNote.c_str());
    std::printf("%-20s %9s", "format", "bpw");
    for (uint64_t n : t.counts)
        std::printf(" %20s", countText(n).c_str());
    std::printf("\n");
    for (size_t f = 0; f < t.tables.front().size(); ++f) {
        const qs::BudgetRow& r0 = t.tables.front()[f];
        std::printf("%-20s %9.4f", r0.format.id.c_str(), r0.bitsPerWeight);
        for (const std::vector<qs::BudgetRow>& table : t.tables) {
            const qs::BudgetRow& r = table[f];
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.2f / %.2f%s", r.gb, r.gib, r.fits ? (*r.fits ? " *" : "  ") : "");
            std::printf(" %20s", cell);
        }
        std::printf("\n");
    }
}

// The format table: --memory as one size, --layer, the checkpoint's own count.
int runFormatTables(const QCommandLineParser& p, const QStringList& pos, std::vector<uint64_t> counts)
{
    FormatTables t;
    if (p.isSet(QStringLiteral("memory"))) {
        bool ok = false;
        const double m = p.value(QStringLiteral("memory")).toDouble(&ok);
        if (!ok || !(m > 0) || !std::isfinite(m)) {
            std::fprintf(stderr, "quantscope-cli budget: --memory needs a positive number of GiB\n");
            return 2;
        }
        t.memGiB = m;
    }
    if (p.isSet(QStringLiteral("layer"))) {
        const QStringList nk = p.value(QStringLiteral("layer")).toLower().split(QLatin1Char('x'));
        bool okN = false, okK = false;
        if (nk.size() == 2) {
            t.layerN = nk[0].toULongLong(&okN);
            t.layerK = nk[1].toULongLong(&okK);
        }
        if (!okN || !okK || t.layerN == 0 || t.layerK == 0 || t.layerN > (1ull << 32) || t.layerK > (1ull << 32)) {
            std::fprintf(stderr, "quantscope-cli budget: --layer needs N x K, e.g. 4096x11008\n");
            return 2;
        }
    }
    if (!pos.isEmpty()) {
        t.path = pos.first();
        const auto c = qs::openCheckpoint(qs::encodeLocalBytes(pos.first()));
        t.checkpoint = summarise(*c);
        if (!p.isSet(QStringLiteral("params")))
            counts = {std::max<uint64_t>(t.checkpoint->elements, 1)};
    }
    t.counts = counts.empty() ? qs::budgetDefaultParamCounts() : counts;
    for (uint64_t n : t.counts)
        t.tables.push_back(qs::budgetTable(n, t.memGiB, t.layerN, t.layerK));
    if (p.isSet(QStringLiteral("json")))
        printFormatTablesJson(t);
    else
        printFormatTablesText(t);
    return 0;
}

// --memory RAM[,GPU0[,GPU1...]] in GiB; nullopt after printing an error.
std::optional<std::vector<double>> memorySizes(const QCommandLineParser& p)
{
    std::vector<double> mem;
    if (p.isSet(QStringLiteral("memory")))
        for (const QString& s : p.value(QStringLiteral("memory")).split(QLatin1Char(','))) {
            bool ok = false;
            const double m = s.toDouble(&ok);
            if (!ok || !(m > 0) || !std::isfinite(m)) {
                std::fprintf(stderr,
                             "quantscope-cli budget: --memory needs positive GiB, RAM first then each GPU: '%s'\n",
                             qPrintable(s));
                return std::nullopt;
            }
            mem.push_back(m);
        }
    return mem;
}

} // namespace

int runBudget(const QStringList& args)
{
    QCommandLineParser p;
    addBudgetOptions(p);
    if (const auto code = parseOrUsage(p, args))
        return *code;
    const QStringList pos = p.positionalArguments();
    if (pos.size() > 1) {
        std::fprintf(stderr, "quantscope-cli budget: at most one PATH\n");
        return 2;
    }

    std::vector<uint64_t> counts;
    if (p.isSet(QStringLiteral("params"))) {
        for (const QString& s : p.value(QStringLiteral("params")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto n = parseCount(s);
            if (!n) {
                std::fprintf(stderr, "quantscope-cli budget: bad parameter count '%s'\n", qPrintable(s));
                return 2;
            }
            counts.push_back(*n);
        }
        if (counts.empty()) {
            std::fprintf(stderr, "quantscope-cli budget: --params needs at least one count\n");
            return 2;
        }
    }
    static const char* const runOptions[] = {"context",    "arch",         "weights",      "parallel",
                                             "cache-type", "cache-type-k", "cache-type-v", "gpu-layers",
                                             "ubatch",     "swa-full",     "kv-unified",   "no-flash-attn"};
    bool running = false;
    for (const char* o : runOptions)
        running = running || p.isSet(QLatin1String(o));
    if (!running)
        return runFormatTables(p, pos, counts);
    if (!p.isSet(QStringLiteral("context")) && !p.isSet(QStringLiteral("arch"))) {
        std::fprintf(stderr,
                     "quantscope-cli budget: the options of running a model need --context N (or --arch NAME)\n");
        return 2;
    }
    if (p.isSet(QStringLiteral("params")) || p.isSet(QStringLiteral("layer"))) {
        std::fprintf(stderr,
                     "quantscope-cli budget: --params and --layer belong to the format table, not to --context\n");
        return 2;
    }
    const std::optional<std::vector<double>> mem = memorySizes(p);
    if (!mem)
        return 2;
    try {
        return runMemoryBudget(p, pos, *mem);
    } catch (const qs::Error& e) {
        std::fprintf(stderr, "quantscope-cli budget: %s\n", e.what());
        return 2;
    }
}

} // namespace qscli
