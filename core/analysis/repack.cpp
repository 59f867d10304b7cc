#include "analysis/repack.h"

#include "analysis/checkpointwriter.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/target.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>

namespace qs {

namespace {

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

// The longest suffix a safetensors target gives a weight's tensors, for the header bound.
constexpr size_t kMaxSuffix = 24; // ".weight_zero_point", ".input_perm", ...

} // namespace

WeightCodes readLogicalMatrix(const Checkpoint& ckpt, const LogicalWeight& w, bool withCodes)
{
    const FormatInfo* f = findFormat(w.format);
    const FamilyRow* row = f && f->affineCodes ? familyRow(f->family) : nullptr;
    WeightCodes m;
    // The codes' kernels name the weight in their messages; the checkpoint is what they lack.
    const bool read = row && row->codes && withContext(ErrorContext{ckpt.path}, [&] {
                          return row->codes(WeightData{ckpt, w}, m, withCodes ? CodeParts::All : CodeParts::Groups);
                      });
    if (!read)
        throw Error(ErrorContext{ckpt.path, w.name},
                    "format '" + w.format + "' has no integer codes and zero points to repack");
    if (m.groupSize == 0)
        m.groupSize = m.cols;
    return m;
}

std::vector<std::string> repackTargets()
{
    return writtenFormats(&FormatInfo::repackTarget);
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

namespace {

// The quantized weights, in the input's weight order; `member` marks their tensors.
std::vector<const LogicalWeight*> repackedWeights(const Checkpoint& src, std::vector<bool>& member)
{
    std::vector<const LogicalWeight*> todo;
    member.assign(src.tensors.size(), false);
    for (const LogicalWeight& w : src.weights) {
        const FormatInfo* f = findFormat(w.format);
        if (!f || !f->quantized)
            continue;
        todo.push_back(&w);
        for (const auto& [role, idx] : w.members)
            member[idx] = true;
    }
    if (todo.empty())
        fail(src.path, "no quantized weight to repack");
    return todo;
}

// What repacking one weight gave beside its tensors.
struct Repacked {
    size_t converted = 0; // its index among the writer's converted weights
    std::vector<int32_t> perm; // the input permutation written with it (act-order into no g_idx)
    std::string inexactNote; // why its read-back can differ
};

// One weight's logical codes in the target's tensors, or in F32 when the output stores it in
// float (`floatBlock`: the block width its K is not whole in); `scheme` takes its parameters.
std::vector<StoredTensor> repackWeight(const Checkpoint& src, const LogicalWeight& w, const FormatInfo& target,
                                       uint32_t floatBlock, int threads, QuantScheme& scheme, RepackWeight& rw,
                                       Repacked& extra)
{
    std::vector<StoredTensor> t;
    if (floatBlock) {
        // llama.cpp's quantize keeps such a tensor in float (F16) too; F32 holds it exactly.
        std::vector<float> x = dequantizeWeight(src, w, bestSimdPath(), threads);
        rw.note = "K = " + std::to_string(w.inFeatures()) + " is not a whole number of " + std::to_string(floatBlock)
            + "-weight blocks: stored as F32";
        t.push_back(storedTensor("weight", DType::F32, {w.outFeatures(), w.inFeatures()}, x));
        return t;
    }
    const FamilyTargets& targets = *familyTargets(target);
    WeightCodes m = readLogicalMatrix(src, w);
    // The reads above name the file and weight; the steps below name neither.
    const ErrorContext here{src.path, w.name};
    const bool keepsGroupIndex = targets.packKeepsGroupIndex(target);
    if (!keepsGroupIndex && m.actOrder()) {
        extra.perm = withContext(here, [&] { return makeContiguous(m); });
        rw.permuted = true;
    }
    scheme.bits = m.bits;
    scheme.groupSize = m.groups == 1 ? -1 : int64_t(m.groupSize);
    scheme.symmetric = m.symmetric();
    scheme.actOrder |= m.actOrder() && keepsGroupIndex;
    scheme.modelDtype = m.scaleType;
    PackedWeight packed = withContext(here, [&] { return targets.pack(m, scheme); });
    t = std::move(packed.tensors);
    rw.note = std::move(packed.note);
    extra.inexactNote = std::move(packed.inexactNote);
    if (!extra.perm.empty()) {
        t.push_back(storedTensor("input_perm", DType::I32, {m.cols}, extra.perm));
        scheme.inputPermutations.push_back(w.name);
    }
    return t;
}

// Dequantizes source `a` and output `b` in row chunks of about 1 MiB per side, OpenMP across
// chunks, partial sums combined in chunk order (constant memory, the same figures for any thread
// count), and fills rw's comparison; `perm` gathers the source's columns.
void compareRepacked(const Checkpoint& src, const LogicalWeight& a, const Checkpoint& dst, const LogicalWeight& b,
                     const std::vector<int32_t>& perm, int threads, RepackWeight& rw)
{
    const SimdPath path = bestSimdPath();
    const uint64_t K = a.inFeatures(), N = a.outFeatures();
    const uint64_t rows = dequantChunkRows(K, uint64_t(1) << 18);
    const int64_t chunks = int64_t(ceilDiv(N, rows));
    std::vector<double> sums(size_t(chunks), 0.0), maxima(size_t(chunks), 0.0);
    std::vector<uint64_t> mismatches(size_t(chunks), 0);
    struct Rows {
        std::vector<float> x, y;
    };
    runChunks<Rows>(uint64_t(chunks), threads, nullptr, [&](uint64_t c, Rows& buf) {
        const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
        buf.x.resize(size_t((r1 - r0) * K));
        buf.y.resize(buf.x.size());
        dequantizeRows(src, a, r0, r1, buf.x.data(), path);
        dequantizeRows(dst, b, r0, r1, buf.y.data(), path);
        double sum = 0, mx = 0;
        uint64_t differ = 0;
        for (uint64_t n = 0; n < r1 - r0; ++n)
            for (uint64_t i = 0; i < K; ++i) {
                const float xs = buf.x[n * K + (perm.empty() ? i : uint64_t(perm[i]))];
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
}

// The output weight `rw` reads back as, checked against what was written.
const LogicalWeight& readBackWeight(const Checkpoint& dst, const std::string& out, const ReadBack& expect,
                                    const RepackWeight& rw, const LogicalWeight& a)
{
    const LogicalWeight* b = dst.findWeight(expect.name);
    if (!b)
        fail(out, "the repacked weight '" + rw.name + "' is not found when the output is read back");
    if (b->format != expect.format)
        fail(out, "weight '" + rw.name + "' reads back as " + b->format + ", not " + expect.format);
    const uint64_t K = a.inFeatures(), N = a.outFeatures();
    if (b->inFeatures() != K || b->outFeatures() != N)
        fail(out,
             "weight '" + rw.name + "' reads back as [" + std::to_string(b->outFeatures()) + ", "
                 + std::to_string(b->inFeatures()) + "], not [" + std::to_string(N) + ", " + std::to_string(K) + "]");
    return *b;
}

// Compares each weight of the output as written (`dst`, not yet committed as `out`) with its
// source; `progress` after each.
void verifyRepacked(const Checkpoint& src, const Checkpoint& dst, const std::string& out,
                    const CheckpointWriter& writer, const std::vector<const LogicalWeight*>& todo,
                    const std::vector<Repacked>& extras, const RepackOptions& opt, std::vector<RepackWeight>& weights,
                    const std::function<void(const std::string&)>& progress)
{
    for (size_t wi = 0; wi < todo.size(); ++wi) {
        opt.progress.check();
        RepackWeight& rw = weights[wi];
        const LogicalWeight& a = *todo[wi];
        const LogicalWeight& b = readBackWeight(dst, out, writer.readBack(extras[wi].converted), rw, a);
        compareRepacked(src, a, dst, b, extras[wi].perm, opt.threads, rw);
        if (!rw.exact && !extras[wi].inexactNote.empty())
            rw.note += (rw.note.empty() ? "" : "; ") + extras[wi].inexactNote;
        progress(rw.name);
    }
}

} // namespace

RepackResult repackCheckpoint(const Checkpoint& src, const std::string& out, const RepackOptions& opt)
{
    const FormatInfo& target = parseRepackTarget(opt.to);
    const FamilyTargets& targets = *familyTargets(target);
    const auto writer = CheckpointWriter::open(src, out, target, opt.force, false);
    writer->checkInput();
    std::vector<bool> member;
    const std::vector<const LogicalWeight*> todo = repackedWeights(src, member);
    std::map<size_t, size_t> firstMember; // tensor index -> index into todo
    for (size_t wi = 0; wi < todo.size(); ++wi)
        firstMember[todo[wi]->members.front().second] = wi;

    RepackResult res;
    res.output = out;
    res.weights.resize(todo.size());
    std::vector<Repacked> extras(todo.size());
    size_t done = 0;
    const auto progress = [&](const std::string& name) {
        ++done;
        if (opt.progress.report)
            opt.progress(done, todo.size() * (opt.verify ? 2 : 1), name);
    };
    // The output in the input's tensor order, each weight in place of its first member. Whether
    // a weight gets an input permutation is known from its g_idx alone (no codes read).
    const bool keepsGroupIndex = targets.packKeepsGroupIndex(target);
    std::vector<size_t> order; // converted index -> todo index
    for (size_t i = 0; i < src.tensors.size(); ++i) {
        if (const auto it = firstMember.find(i); it != firstMember.end()) {
            const LogicalWeight& w = *todo[it->second];
            const auto permutes = [&src, &w, keepsGroupIndex] {
                return !keepsGroupIndex && readLogicalMatrix(src, w, false).actOrder();
            };
            extras[it->second].converted = order.size();
            order.push_back(it->second);
            writer->convert({i,
                             w.name,
                             w.name + ".weight",
                             {w.outFeatures(), w.inFeatures()},
                             w.name.size() + kMaxSuffix,
                             permutes});
        } else if (!member[i]) {
            writer->copy(i);
        }
    }

    QuantScheme scheme;
    scheme.format = &target;
    // Reads, repacks and forgets one weight: only its own tensors are in memory at a time.
    const auto repackOne = [&](size_t c) -> std::vector<StoredTensor> {
        const size_t wi = order[c];
        const LogicalWeight& w = *todo[wi];
        opt.progress.check();
        RepackWeight& rw = res.weights[wi];
        rw.name = w.name;
        rw.from = w.format;
        std::vector<StoredTensor> t =
            repackWeight(src, w, target, writer->floatFallback(w.inFeatures()), opt.threads, scheme, rw, extras[wi]);
        progress(w.name);
        return t;
    };
    QJsonObject base = src.config;
    base.remove(QStringLiteral("quantization"));
    base.remove(QStringLiteral("quantization_config"));
    // Verified before it is committed: a weight that reads back wrong, or a cancel, leaves nothing.
    CheckpointWriter::Verify verify;
    if (opt.verify)
        verify = [&](const Checkpoint& dst) {
            verifyRepacked(src, dst, out, *writer, todo, extras, opt, res.weights, progress);
        };
    writer->write(repackOne, {}, scheme, base, verify);
    res.copied = writer->copied();
    res.leftAlone = writer->leftAlone();
    for (const RepackWeight& rw : res.weights)
        if (!rw.note.empty())
            res.notes.push_back(rw.name + ": " + rw.note);
    return res;
}

} // namespace qs
