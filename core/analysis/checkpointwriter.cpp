#include "analysis/checkpointwriter.h"

#include "analysis/streamwriter.h"
#include "base/error.h"
#include "base/outputpath.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "container/mappedfile.h"
#include "formats/detect.h"
#include "formats/opencheckpoint.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <map>

namespace qs {

namespace {

// `base` (the input's config.json, may be empty) with the target's quantization config
// inserted, as the upstream tool writes it.
QJsonObject quantizedConfig(const QJsonObject& base, const QuantScheme& s)
{
    QJsonObject cfg = base;
    if (const FamilyTargets* t = familyTargets(*s.format); t && t->config)
        t->config(s, cfg);
    if (!s.inputPermutations.empty()) {
        QJsonArray mods;
        for (const std::string& m : s.inputPermutations)
            mods.append(QString::fromStdString(m));
        QJsonObject qc = cfg.value(QStringLiteral("quantization_config")).toObject();
        qc.insert(QStringLiteral("input_permutations"),
                  QJsonObject{{QStringLiteral("modules"), mods},
                              {QStringLiteral("note"),
                               QStringLiteral("act-order columns sorted into contiguous groups: "
                                              "<module>.input_perm (I32 [K]) gathers the layer "
                                              "input, x' = x[perm], before this weight applies")}});
        cfg.insert(QStringLiteral("quantization_config"), qc);
    }
    if (!cfg.contains(QStringLiteral("torch_dtype")))
        cfg.insert(QStringLiteral("torch_dtype"), QString::fromStdString(torchDtypeName(s.modelDtype)));
    return cfg;
}

// A file of the output folder, written into its temporary file and not yet committed.
struct PendingFile {
    std::string name;
    QByteArray bytes;
    std::unique_ptr<AtomicFile> file;
};

// config.json and the side config the target's tool writes (quantize_config.json ...) into `dir`.
std::vector<PendingFile> writeQuantizedConfigs(const std::string& dir, const QJsonObject& baseConfig,
                                               const QuantScheme& s)
{
    std::vector<PendingFile> files;
    const auto add = [&](const std::string& name, const QJsonObject& o) {
        PendingFile f{name, QJsonDocument(o).toJson(QJsonDocument::Indented),
                      std::make_unique<AtomicFile>(dir + "/" + name)};
        f.file->write({reinterpret_cast<const uint8_t*>(f.bytes.constData()), size_t(f.bytes.size())});
        files.push_back(std::move(f));
    };
    add("config.json", quantizedConfig(baseConfig, s));
    QJsonObject side;
    const FamilyTargets* t = familyTargets(*s.format);
    const std::string name = t && t->sideConfig ? t->sideConfig(s, side) : std::string();
    if (!name.empty())
        add(name, side);
    return files;
}

// Names llama.cpp's converters give GGUF tensors (blk.N.*, token_embd, output, ...).
bool ggufStyleName(std::string_view n)
{
    for (const char* p : {"blk.", "token_embd", "output", "rope_", "pos_embd", "token_types", "cls", "enc.", "dec."})
        if (n.rfind(p, 0) == 0)
            return true;
    return false;
}

MetaValue u32Meta(uint64_t v)
{
    return MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, v};
}

class GgufCheckpointWriter : public CheckpointWriter {
public:
    GgufCheckpointWriter(const Checkpoint& src, const std::string& out, const FormatInfo& target, GgufOutput gguf,
                         bool inheritAnyMetadata)
        : CheckpointWriter(src, out, target)
        , m_gguf(gguf)
        , m_inheritAnyMetadata(inheritAnyMetadata)
    {
    }

    void checkInput() const override
    {
        if (m_src.container == Container::Gguf)
            return;
        for (const TensorEntry& t : m_src.tensors)
            if (!ggufStyleName(t.name))
                fail(m_src.path,
                     "GGUF output keeps tensor names, and '" + std::string(t.name)
                         + "' is not a GGUF name (blk.N.*, token_embd, output...), which llama.cpp cannot load: "
                           "use a GGUF input, or convert the names first");
    }

    uint32_t floatFallback(uint64_t cols) const override
    {
        return m_gguf.weightType(m_gguf.type, cols) == m_gguf.type ? 0 : m_gguf.blockWeights;
    }

    bool namesByModule() const override { return false; }
    bool fixedLayout() const override { return true; }

    void copy(size_t tensor) override
    {
        const TensorEntry& t = m_src.tensors[tensor];
        const int type = t.dtype == DType::Ggml ? t.ggmlType : m_gguf.plainType(t.dtype);
        if (type < 0)
            throw Error(ErrorContext{m_src.path, {}, std::string(t.name)},
                        std::string(dtypeName(t.dtype)) + " has no GGUF type");
        m_plan.push_back(GgufTensor{std::string(t.name), type, {t.shape.rbegin(), t.shape.rend()}, {}});
        m_items.push_back({tensor, false});
    }

    void convert(ConvertedWeight w) override
    {
        const int type = m_gguf.weightType(m_gguf.type, w.shape.back());
        m_plan.push_back(GgufTensor{w.ggufName, type, {w.shape.rbegin(), w.shape.rend()}, {}});
        if (type == m_gguf.type && w.permutes && w.permutes()) {
            m_plan.push_back(GgufTensor{w.module + ".input_perm", GgmlI32, {w.shape.back()}, {}});
            m_permutations.push_back(w.module + ".input_perm");
        }
        m_types.push_back(type);
        m_items.push_back({m_converted.size(), true});
        m_converted.push_back(std::move(w));
    }

    void write(const Produce& produce, const std::function<void()>& finish, const QuantScheme&, const QJsonObject&,
               const Verify& verify) override
    {
        GgufStreamWriter writer(m_out, metadata(), m_plan);
        for (const Item& item : m_items) {
            if (item.converted) {
                for (const StoredTensor& o : produce(item.index))
                    writer.append(o.bytes);
                continue;
            }
            const TensorEntry& t = m_src.tensors[item.index];
            writer.append(m_src.bytes(t));
            m_copied.emplace_back(t.name);
        }
        if (finish)
            finish();
        writer.finish();
        if (verify)
            verify(*openCheckpoint(writer.tempPath()));
        writer.commit();
    }

    ReadBack readBack(size_t converted) const override
    {
        const int type = m_types[converted];
        return {m_converted[converted].ggufName, type == m_gguf.type ? m_target.id : ggufFormatId(ggmlTypeName(type))};
    }

private:
    // The input's metadata but its file type, quantization version and split keys; an
    // architecture (config.json's model_type, else llama) when it has none; the target's file
    // type; the input permutations' tensors by name.
    GgufMetadata metadata() const
    {
        GgufMetadata meta;
        bool hasArch = false;
        for (const auto& [k, v] : m_src.metadata) {
            if (k == "general.file_type" || k == "general.quantization_version" || k.rfind("split.", 0) == 0)
                continue;
            hasArch |= k == "general.architecture";
            if (m_inheritAnyMetadata || m_src.container == Container::Gguf)
                meta.emplace_back(k, v);
        }
        if (!hasArch) {
            const QString arch = m_src.config.value(QStringLiteral("model_type")).toString(QStringLiteral("llama"));
            meta.insert(
                meta.begin(),
                {"general.architecture", MetaValue{MetaValue::Type::String, MetaValue::Type::U8, arch.toStdString()}});
        }
        meta.emplace_back("general.quantization_version", u32Meta(2));
        meta.emplace_back("general.file_type", u32Meta(uint64_t(m_gguf.fileType)));
        if (!m_permutations.empty()) {
            std::vector<MetaValue> names;
            for (const std::string& p : m_permutations) {
                MetaValue v; // built in place: GCC 12 misreads the variant's copy from a temporary as uninitialized
                v.value = p;
                names.push_back(std::move(v));
            }
            meta.emplace_back("quantscope.input_permutations",
                              MetaValue{MetaValue::Type::Array, MetaValue::Type::String, std::move(names)});
        }
        return meta;
    }

    GgufOutput m_gguf;
    bool m_inheritAnyMetadata;
    std::vector<GgufTensor> m_plan;
    std::vector<int> m_types; // each converted weight's GGUF type
    std::vector<std::string> m_permutations;
};

class SafetensorsCheckpointWriter : public CheckpointWriter {
public:
    SafetensorsCheckpointWriter(const Checkpoint& src, const std::string& out, const FormatInfo& target, bool force)
        : CheckpointWriter(src, out, target)
        , m_force(force)
    {
    }

    void checkInput() const override
    {
        if (m_src.container == Container::Gguf)
            fail(m_src.path,
                 "safetensors targets need a safetensors or PyTorch input (GGUF names and metadata have no "
                 "safetensors form here)");
    }

    uint32_t floatFallback(uint64_t) const override { return 0; }
    bool namesByModule() const override { return true; }
    bool fixedLayout() const override { return false; }

    void copy(size_t tensor) override
    {
        const TensorEntry& t = m_src.tensors[tensor];
        // Its bytes are not its shape's (a PyTorch strided view): copied, they would be a wrong tensor.
        if (!t.known)
            fail(m_src.path, "tensor '" + std::string(t.name) + "' cannot be copied: " + t.note.text());
        m_reserve += SafetensorsStreamWriter::entryBound(t.name, t.shape.size());
        m_items.push_back({tensor, false});
    }

    void convert(ConvertedWeight w) override
    {
        m_reserve += kMaxTensorsPerWeight * SafetensorsStreamWriter::entryBound(std::string(w.nameBound, ' '), 2);
        m_items.push_back({m_converted.size(), true});
        m_converted.push_back(std::move(w));
    }

    void write(const Produce& produce, const std::function<void()>& finish, const QuantScheme& scheme,
               const QJsonObject& baseConfig, const Verify& verify) override
    {
        const std::map<std::string, std::string> meta{{"format", "pt"}};
        m_leftAlone = writeIntoFolder(m_out, m_force, [&] {
            SafetensorsStreamWriter writer(m_out + "/model.safetensors",
                                           SafetensorsStreamWriter::metadataBound(meta) + m_reserve);
            for (const Item& item : m_items) {
                size_t copy = item.index;
                if (item.converted) {
                    const ConvertedWeight& w = m_converted[item.index];
                    const std::vector<StoredTensor> q = produce(item.index);
                    for (const StoredTensor& o : q)
                        writer.append(w.module + "." + o.suffix, o.dtype, o.shape, o.bytes);
                    if (!q.empty())
                        continue;
                    copy = w.source;
                }
                const TensorEntry& t = m_src.tensors[copy];
                writer.append(std::string(t.name), t.dtype, t.shape, m_src.bytes(t));
                m_copied.emplace_back(t.name);
            }
            if (finish)
                finish();
            writer.finish(meta);
            std::vector<PendingFile> configs = writeQuantizedConfigs(m_out, baseConfig, scheme);
            if (verify) {
                const MappedFile model(writer.tempPath());
                std::vector<MemoryFile> files{{"model.safetensors", model.bytes()}};
                for (const PendingFile& f : configs)
                    files.push_back(
                        {f.name, {reinterpret_cast<const uint8_t*>(f.bytes.constData()), size_t(f.bytes.size())}});
                const auto written = Checkpoint::readMemory(files);
                written->weights = detectWeights(*written);
                verify(*written);
            }
            writer.commit();
            for (PendingFile& f : configs)
                f.file->commit();
        });
    }

    ReadBack readBack(size_t converted) const override { return {m_converted[converted].module, m_target.id}; }

private:
    // The most tensors a converted weight writes (bnb: weight, absmax, quant_map, nested absmax,
    // nested quant_map, quant_state).
    static constexpr uint64_t kMaxTensorsPerWeight = 6;
    bool m_force;
    uint64_t m_reserve = 0;
};

} // namespace

std::vector<std::string> writtenFormats(bool FormatInfo::*trait)
{
    std::vector<std::string> out, gguf;
    for (const FormatInfo& f : formatInfos())
        if (f.*trait)
            (ggufOutput(f).on() ? gguf : out).push_back(f.id);
    out.insert(out.end(), gguf.begin(), gguf.end());
    return out;
}

std::unique_ptr<CheckpointWriter> CheckpointWriter::open(const Checkpoint& src, const std::string& out,
                                                         const FormatInfo& target, bool force, bool inheritAnyMetadata)
{
    const GgufOutput gguf = ggufOutput(target);
    checkOutputPath(out, src.sources(), gguf.on() ? OutputKind::File : OutputKind::Folder);
    if (gguf.on())
        return std::make_unique<GgufCheckpointWriter>(src, out, target, gguf, inheritAnyMetadata);
    return std::make_unique<SafetensorsCheckpointWriter>(src, out, target, force);
}

} // namespace qs
