#include "analysis/repack.h"

#include "analysis/quantize_checkpoint.h"
#include "analysis/streamwriter.h"
#include "base/error.h"
#include "base/parallel.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/opencheckpoint.h"
#include "formats/target.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <map>
#include <numeric>

namespace qs {

namespace {

std::string weightError(const Checkpoint& c, const LogicalWeight& w, const std::string& what)
{
    return c.path + ": weight '" + w.name + "': " + what;
}

// The permutation that makes the groups contiguous (stable sort by group) when the target has
// no g_idx; applies it to the codes. Throws when the groups are not all full.
std::vector<int32_t> makeContiguous(WeightCodes& m)
{
    std::vector<int32_t> perm(m.cols);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int32_t a, int32_t b) { return m.gIdx[size_t(a)] < m.gIdx[size_t(b)]; });
    for (uint64_t i = 0; i < m.cols; ++i)
        if (uint64_t(m.gIdx[size_t(perm[i])]) != i / m.groupSize)
            throw Error("act-order groups are not all " + std::to_string(m.groupSize)
                        + " channels: sorting by g_idx does not give contiguous groups");
    std::vector<uint8_t> codes(m.codes.size());
    for (uint64_t n = 0; n < m.rows; ++n)
        for (uint64_t i = 0; i < m.cols; ++i)
            codes[n * m.cols + i] = m.codes[n * m.cols + uint64_t(perm[i])];
    m.codes = std::move(codes);
    for (uint64_t i = 0; i < m.cols; ++i)
        m.gIdx[i] = int32_t(i / m.groupSize);
    return perm;
}

// The module's output tensors when the target is a safetensors format, for the header bound.
constexpr size_t kMaxTensorsPerWeight = 6;
constexpr size_t kMaxSuffix = 24; // ".weight_zero_point", ".input_perm", ...

} // namespace

WeightCodes readLogicalMatrix(const Checkpoint& ckpt, const LogicalWeight& w, bool withCodes)
{
    const FormatInfo* f = findFormat(w.format);
    const FamilyRow* row = f && f->affineCodes ? familyRow(f->family) : nullptr;
    WeightCodes m;
    try {
        if (!row || !row->codes || !row->codes(WeightData{ckpt, w}, m, withCodes ? CodeParts::All : CodeParts::Groups))
            throw Error("format '" + w.format + "' has no integer codes and zero points to repack");
    } catch (const Error& e) {
        const std::string msg = e.what();
        throw Error(msg.rfind(ckpt.path, 0) == 0 ? msg : weightError(ckpt, w, msg));
    }
    if (m.groupSize == 0)
        m.groupSize = m.cols;
    return m;
}

std::vector<std::string> repackTargets()
{
    std::vector<std::string> out, gguf;
    for (const FormatInfo& f : formatInfos())
        if (f.repackTarget)
            (ggufOutput(f).on() ? gguf : out).push_back(f.id);
    out.insert(out.end(), gguf.begin(), gguf.end());
    return out;
}

const FormatInfo& parseRepackTarget(std::string_view text)
{
    const FormatInfo* f = resolveFormatId(text);
    const FamilyTargets* t = f && f->repackTarget ? familyTargets(*f) : nullptr;
    if (t && t->pack && t->packKeepsGroupIndex)
        return *f;
    std::string list;
    for (const std::string& s : repackTargets())
        list += (list.empty() ? "" : ", ") + s;
    throw Error("--to: repack cannot produce '" + std::string(text) + "'; targets: " + list);
}

RepackResult repackCheckpoint(const Checkpoint& src, const std::string& out, const RepackOptions& opt)
{
    const FormatInfo& target = parseRepackTarget(opt.to);
    const std::string& to = target.id;
    const FamilyTargets& targets = *familyTargets(target);
    const GgufOutput ggufOut = ggufOutput(target);
    const bool gguf = ggufOut.on();
    const int ggmlT = ggufOut.type;
    // GGUF blocks are whole along K; a weight whose K is not (llama.cpp checks every
    // weight's ne against the model, so it cannot be padded) is written as F32.
    const auto ggufFallback = [&](uint64_t K) { return K % ggufOut.blockWeights != 0; };
    RepackResult res;
    res.output = out;
    checkOutputPath(out, src.sources(), gguf ? OutputKind::File : OutputKind::Folder);
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
    scheme.format = &target;
    std::map<std::string, std::string> inexactNotes; // added to a weight's note when its read-back differs
    std::map<std::string, std::vector<int32_t>> perms;
    std::map<std::string, bool> fallback; // GGUF: weights stored as F32 (K not whole blocks)
    res.weights.resize(todo.size());
    size_t done = 0;
    const auto progress = [&](const std::string& name) {
        ++done;
        if (opt.progress.report)
            opt.progress(done, todo.size() * (opt.verify ? 2 : 1), name);
    };
    // Reads, repacks and forgets one weight: only its own tensors are in memory at a time.
    const auto repackOne = [&](size_t wi) -> std::vector<StoredTensor> {
        const LogicalWeight& w = *todo[wi];
        opt.progress.check();
        RepackWeight& rw = res.weights[wi];
        rw.name = w.name;
        rw.from = w.format;
        std::vector<StoredTensor> t;
        try {
            if (gguf && ggufFallback(w.inFeatures())) {
                // llama.cpp's quantize keeps such a tensor in float (F16) too; F32 holds it exactly.
                std::vector<float> x = dequantizeWeight(src, w, bestSimdPath(), opt.threads);
                rw.note = "K = " + std::to_string(w.inFeatures()) + " is not a whole number of "
                    + std::to_string(ggufOut.blockWeights) + "-weight blocks: stored as F32";
                t.push_back(storedTensor("weight", DType::F32, {w.outFeatures(), w.inFeatures()}, x));
                progress(w.name);
                return t;
            }
            WeightCodes m = readLogicalMatrix(src, w);
            const bool keepsGroupIndex = targets.packKeepsGroupIndex(target);
            std::vector<int32_t> perm;
            if (!keepsGroupIndex && m.actOrder()) {
                perm = makeContiguous(m);
                rw.permuted = true;
            }
            scheme.bits = m.bits;
            scheme.groupSize = m.groups == 1 ? -1 : int64_t(m.groupSize);
            scheme.symmetric = m.symmetric();
            scheme.actOrder |= m.actOrder() && keepsGroupIndex;
            scheme.modelDtype = m.scaleType;
            PackedWeight packed = targets.pack(m, scheme);
            t = std::move(packed.tensors);
            rw.note = std::move(packed.note);
            if (!packed.inexactNote.empty())
                inexactNotes[w.name] = std::move(packed.inexactNote);
            if (!perm.empty()) {
                t.push_back(storedTensor("input_perm", DType::I32, {m.cols}, perm));
                if (!gguf) // GGUF names them in its metadata, laid out before any weight is read
                    scheme.inputPermutations.push_back(w.name);
                perms[w.name] = std::move(perm);
            }
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
                plan.push_back(GgufTensor{w.name + ".weight", ggmlT, {K, N}, {}});
                if (!targets.packKeepsGroupIndex(target) && readLogicalMatrix(src, w, false).actOrder()) {
                    plan.push_back(GgufTensor{w.name + ".input_perm", GgmlI32, {K}, {}});
                    scheme.inputPermutations.push_back(w.name);
                }
                continue;
            }
            if (member[i])
                continue;
            const int type = t.dtype == DType::Ggml ? t.ggmlType : ggufOut.plainType(t.dtype);
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
            meta.insert(
                meta.begin(),
                {"general.architecture",
                 MetaValue{
                     MetaValue::Type::String, MetaValue::Type::U8,
                     src.config.value(QStringLiteral("model_type")).toString(QStringLiteral("llama")).toStdString()}});
        meta.emplace_back("general.quantization_version",
                          MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(2)});
        meta.emplace_back("general.file_type",
                          MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(llamaFileType(ggmlT))});
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
                for (const StoredTensor& o : repackOne(it->second))
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
                reserve += kMaxTensorsPerWeight
                    * SafetensorsStreamWriter::entryBound(todo[it->second]->name + std::string(kMaxSuffix, ' '), 2);
            else if (!member[i])
                reserve += SafetensorsStreamWriter::entryBound(src.tensors[i].name, src.tensors[i].shape.size());
        }
        res.leftAlone = writeIntoFolder(out, opt.force, [&] {
            SafetensorsStreamWriter writer(out + "/model.safetensors", reserve);
            for (size_t i = 0; i < src.tensors.size(); ++i) {
                const TensorEntry& t = src.tensors[i];
                if (const auto it = firstMember.find(i); it != firstMember.end()) {
                    const std::string& name = todo[it->second]->name;
                    for (const StoredTensor& o : repackOne(it->second))
                        writer.append(name + "." + o.suffix, o.dtype, o.shape, o.bytes);
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
        opt.progress.check();
        const LogicalWeight* a = src.findWeight(rw.name);
        const LogicalWeight* b = dst->findWeight(gguf ? rw.name + ".weight" : rw.name);
        const std::string expect = fallback.count(rw.name) ? ggufFormatId(ggmlTypeName(GgmlF32)) : to;
        if (!b)
            fail(out, "the repacked weight '" + rw.name + "' is not found when the output is read back");
        if (b->format != expect)
            fail(out, "weight '" + rw.name + "' reads back as " + b->format + ", not " + expect);
        const uint64_t K = a->inFeatures(), N = a->outFeatures();
        if (b->inFeatures() != K || b->outFeatures() != N)
            fail(out,
                 "weight '" + rw.name + "' reads back as [" + std::to_string(b->outFeatures()) + ", "
                     + std::to_string(b->inFeatures()) + "], not [" + std::to_string(N) + ", " + std::to_string(K)
                     + "]");
        // Row chunks of about 1 MiB per side, OpenMP across chunks, partial sums combined in
        // chunk order: constant memory and the same figures for any thread count.
        const auto it = perms.find(rw.name);
        const uint64_t rows = dequantChunkRows(K, uint64_t(1) << 18);
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
        if (const auto why = inexactNotes.find(rw.name); !rw.exact && why != inexactNotes.end())
            rw.note += (rw.note.empty() ? "" : "; ") + why->second;
        ++done;
        if (opt.progress.report)
            opt.progress(done, todo.size() * 2, rw.name);
    }
    return collectNotes();
}

} // namespace qs
