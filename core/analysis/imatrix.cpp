#include "analysis/imatrix.h"

#include "analysis/namemap.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/shapetext.h"
#include "container/gguf.h"
#include "container/mappedfile.h"
#include "formats/dequant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

namespace qs {

namespace {

const std::string kSumsSuffix = ".in_sum2";
const std::string kCountsSuffix = ".counts";
const std::string kActivationSumsSuffix = ".in_sum";

bool stripSuffix(std::string& s, const std::string& suffix)
{
    if (!s.ends_with(suffix))
        return false;
    s.resize(s.size() - suffix.size());
    return true;
}

std::vector<float> floatsOf(std::span<const uint8_t> bytes, uint64_t n)
{
    if (bytes.size() / 4 < n)
        throw Error("fewer bytes than " + std::to_string(n) + " floats"); // the GGUF reader checked the sizes
    std::vector<float> v(static_cast<size_t>(n));
    std::memcpy(v.data(), bytes.data(), size_t(n) * 4);
    return v;
}

// A little-endian reader over the legacy file that checks every length against what is left.
class LegacyReader {
public:
    LegacyReader(const std::string& path, std::span<const uint8_t> bytes)
        : m_path(path)
        , m_bytes(bytes)
    {
    }
    size_t left() const { return m_bytes.size() - m_at; }
    int32_t i32(const std::string& what)
    {
        need(4, what);
        int32_t v;
        std::memcpy(&v, m_bytes.data() + m_at, 4);
        m_at += 4;
        return v;
    }
    std::span<const uint8_t> take(uint64_t n, const std::string& what)
    {
        need(n, what);
        const auto s = m_bytes.subspan(m_at, size_t(n));
        m_at += size_t(n);
        return s;
    }
    [[noreturn]] void bad(const std::string& what) const
    {
        fail(m_path, what + " (at byte " + std::to_string(m_at) + ")");
    }

private:
    void need(uint64_t n, const std::string& what) const
    {
        if (n > left())
            fail(m_path,
                 "truncated: " + what + " needs " + std::to_string(n) + " bytes at byte " + std::to_string(m_at) + ", "
                     + std::to_string(left()) + " left");
    }
    std::string m_path;
    std::span<const uint8_t> m_bytes;
    size_t m_at = 0;
};

Imatrix readLegacyImatrix(const std::string& path, std::span<const uint8_t> bytes)
{
    LegacyReader in(path, bytes);
    Imatrix im;
    im.path = path;
    im.format = ImatrixFormat::Legacy;
    const int32_t n = in.i32("the entry count");
    // Each entry takes at least 12 bytes and a name byte: a count beyond that is a lie.
    if (n < 1 || uint64_t(n) > in.left() / 13)
        in.bad("entry count " + std::to_string(n) + " is not 1 .. " + std::to_string(in.left() / 13)
               + " (what the file's size allows)");
    std::set<std::string> seen;
    for (int32_t i = 0; i < n; ++i) {
        const std::string entry = "entry " + std::to_string(i + 1) + " of " + std::to_string(n);
        const int32_t len = in.i32(entry + ": name length");
        if (len < 1)
            in.bad(entry + ": name length " + std::to_string(len));
        const auto nameBytes = in.take(uint64_t(len), entry + ": name");
        ImatrixEntry e;
        e.name.assign(reinterpret_cast<const char*>(nameBytes.data()), nameBytes.size());
        const std::string named = entry + " '" + e.name + "'";
        if (!seen.insert(e.name).second)
            in.bad(named + ": a second entry of that name");
        const int32_t ncall = in.i32(named + ": ncall");
        const int32_t nval = in.i32(named + ": value count");
        if (ncall < 0)
            in.bad(named + ": ncall " + std::to_string(ncall) + " is negative");
        if (nval < 1)
            in.bad(named + ": value count " + std::to_string(nval));
        std::vector<float> v =
            floatsOf(in.take(uint64_t(nval) * 4, named + ": " + std::to_string(nval) + " values"), uint64_t(nval));
        // llama-quantize divides by ncall (the writer stored mean x^2 times ncall).
        for (float& x : v) {
            if (ncall > 0)
                x /= float(ncall);
            if (!std::isfinite(x) || x < 0)
                in.bad(named + ": value " + std::to_string(x) + " is not a finite non-negative mean of squares");
        }
        e.columns = uint64_t(nval);
        e.importance = std::move(v);
        e.counts = {float(ncall)};
        im.entries.push_back(std::move(e));
    }
    // The trailer, absent from older files: the last call count and the dataset name, both or
    // neither.
    if (in.left() > 0) {
        const int32_t lastCall = in.i32("the last-call count after the entries");
        im.chunkCount = lastCall > 0 ? uint64_t(lastCall) : 0;
        const int32_t len = in.i32("the dataset name length");
        if (len < 0)
            in.bad("dataset name length " + std::to_string(len));
        const auto d = in.take(uint64_t(len), "the dataset name");
        if (len > 0)
            im.datasets.emplace_back(reinterpret_cast<const char*>(d.data()), d.size());
        if (in.left() > 0)
            in.bad(std::to_string(in.left()) + " bytes after the dataset name");
    }
    return im;
}

std::optional<uint64_t> imatrixMetaCount(const Checkpoint& c, std::string_view key)
{
    const MetaValue* v = c.meta(key);
    if (!v)
        return std::nullopt;
    if (const auto* u = std::get_if<uint64_t>(&v->value))
        return *u;
    if (const auto* i = std::get_if<int64_t>(&v->value); i && *i >= 0)
        return uint64_t(*i);
    fail(c.path, "metadata key '" + std::string(key) + "' is not a non-negative integer");
}

Imatrix readGgufImatrix(const std::string& path, std::shared_ptr<MappedFile> map)
{
    Checkpoint c;
    c.container = Container::Gguf;
    c.path = path;
    readGguf(c, std::move(map));
    c.buildIndex();
    Imatrix im;
    im.path = path;
    im.format = ImatrixFormat::Gguf;
    if (const MetaValue* t = c.meta("general.type")) {
        const auto* s = std::get_if<std::string>(&t->value);
        if (!s || *s != "imatrix")
            fail(path,
                 "general.type is " + t->toDisplayString()
                     + ", not \"imatrix\": a GGUF model, not an importance matrix");
    }
    if (const MetaValue* d = c.meta("imatrix.datasets")) {
        const auto* items = std::get_if<std::vector<MetaValue>>(&d->value);
        if (!items)
            fail(path, "metadata key 'imatrix.datasets' is not an array");
        for (const MetaValue& item : *items) {
            const auto* s = std::get_if<std::string>(&item.value);
            if (!s)
                fail(path,
                     "metadata key 'imatrix.datasets' holds a " + std::string(metaTypeName(item.type))
                         + ", not strings");
            im.datasets.push_back(*s);
        }
    }
    im.chunkCount = imatrixMetaCount(c, "imatrix.chunk_count").value_or(0);
    im.chunkSize = imatrixMetaCount(c, "imatrix.chunk_size").value_or(0);

    std::map<std::string, std::pair<const TensorEntry*, const TensorEntry*>> pairs; // sums, counts
    for (const TensorEntry& t : c.tensors) {
        std::string name(t.name);
        if (stripSuffix(name, kSumsSuffix))
            pairs[name].first = &t;
        else if (stripSuffix(name, kCountsSuffix))
            pairs[name].second = &t;
        else if (!stripSuffix(name, kActivationSumsSuffix))
            fail(path,
                 "tensor '" + std::string(t.name)
                     + "' is none of <weight>.in_sum2, .counts, .in_sum: not an importance matrix");
    }
    if (pairs.empty())
        fail(path, "no <weight>.in_sum2 tensors: not an importance matrix");
    for (const auto& [name, p] : pairs) {
        const auto& [sums, counts] = p;
        if (!sums || !counts)
            fail(path, "entry '" + name + "': " + (sums ? kCountsSuffix : kSumsSuffix) + " is missing");
        for (const TensorEntry* t : {sums, counts})
            if (t->ggmlType != 0) // GGML_TYPE_F32
                fail(path, "tensor '" + std::string(t->name) + "' is " + std::string(t->typeName) + ", not F32");
        ImatrixEntry e;
        e.name = name;
        e.matrices = counts->elementCount();
        const uint64_t all = sums->elementCount();
        if (e.matrices == 0 || all == 0 || all % e.matrices != 0
            || (sums->shape.size() >= 2 && sums->shape.front() != e.matrices))
            fail(path,
                 "entry '" + name + "': " + std::string(sums->name) + " is " + shapeText(sums->shape) + ", not ["
                     + std::to_string(e.matrices) + ", channels] for the " + std::to_string(e.matrices) + " counts of "
                     + std::string(counts->name));
        e.columns = all / e.matrices;
        e.counts = floatsOf(c.bytes(*counts), e.matrices);
        const std::vector<float> s = floatsOf(c.bytes(*sums), all);
        e.importance.resize(size_t(all));
        for (uint64_t m = 0; m < e.matrices; ++m) {
            const float n = e.counts[size_t(m)];
            if (!std::isfinite(n) || n < 0)
                fail(path,
                     "entry '" + name + "': count " + std::to_string(n) + " of matrix " + std::to_string(m)
                         + " is not a finite non-negative number");
            for (uint64_t k = 0; k < e.columns; ++k) {
                const size_t i = size_t(m * e.columns + k);
                if (!std::isfinite(s[i]) || s[i] < 0)
                    fail(path,
                         "entry '" + name + "': sum of squares " + std::to_string(s[i]) + " at matrix "
                             + std::to_string(m) + " channel " + std::to_string(k) + " is not finite and non-negative");
                // A matrix that saw no rows weighs every channel alike, as llama-quantize does.
                e.importance[i] = n > 0 ? s[i] / n : 1.0f;
            }
        }
        im.entries.push_back(std::move(e));
    }
    return im;
}

Imatrix readImatrixMap(const std::string& path, std::shared_ptr<MappedFile> map)
{
    const auto bytes = map->bytes();
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0)
        return readGgufImatrix(path, std::move(map));
    Imatrix im = readLegacyImatrix(path, bytes);
    std::sort(im.entries.begin(), im.entries.end(),
              [](const ImatrixEntry& a, const ImatrixEntry& b) { return a.name < b.name; });
    return im;
}

// The experts of a weight: its leading dimension when it has three or more.
uint64_t matricesOf(const LogicalWeight& w)
{
    return w.shape.size() >= 3 ? w.shape.front() : 1;
}

std::string fitProblem(const ImatrixEntry& e, const LogicalWeight& w)
{
    const uint64_t K = w.inFeatures(), E = matricesOf(w);
    if (e.importance.size() == E * K && (e.matrices == E || (e.matrices == 1 && e.columns == E * K)))
        return {};
    std::string have = std::to_string(e.columns) + " channels";
    if (e.matrices > 1)
        have = std::to_string(e.matrices) + " matrices of " + have;
    std::string want = std::to_string(K) + " input channels";
    if (E > 1)
        want = std::to_string(E) + " matrices of " + want;
    return "the imatrix entry '" + e.name + "' has " + have + ", the weight " + shapeText(w.shape) + " needs " + want;
}

} // namespace

const ImatrixEntry* Imatrix::find(std::string_view name) const
{
    const auto it = std::lower_bound(entries.begin(), entries.end(), name,
                                     [](const ImatrixEntry& e, std::string_view n) { return e.name < n; });
    return it != entries.end() && it->name == name ? &*it : nullptr;
}

std::string_view imatrixFormatName(ImatrixFormat f)
{
    return f == ImatrixFormat::Gguf ? "GGUF" : "legacy .dat";
}

Imatrix readImatrix(const std::string& path)
{
    return readImatrixMap(path, std::make_shared<MappedFile>(path));
}

Imatrix readImatrixMemory(const std::string& name, std::span<const uint8_t> bytes)
{
    return readImatrixMap(name, std::make_shared<MappedFile>(name, bytes));
}

size_t ImatrixMatch::fitting() const
{
    return size_t(std::count_if(weights.begin(), weights.end(), [](const ImatrixWeightMatch& m) { return m.fits(); }));
}

size_t ImatrixMatch::mismatched() const
{
    return size_t(
        std::count_if(weights.begin(), weights.end(), [](const ImatrixWeightMatch& m) { return m.lengthMismatch(); }));
}

const ImatrixWeightMatch* ImatrixMatch::find(std::string_view weightName) const
{
    for (const ImatrixWeightMatch& m : weights)
        if (m.weight->name == weightName)
            return &m;
    return nullptr;
}

ImatrixWeightMatch matchImatrixWeight(const Imatrix& imatrix, const Checkpoint& ckpt, const LogicalWeight& w)
{
    ImatrixWeightMatch m;
    m.weight = &w;
    if (w.shape.size() < 2) {
        m.problem = "not a matrix: llama-imatrix collects matrix inputs only";
        return m;
    }
    // The name and, for a module prefix, its ".weight" tensor; then the same of its GGUF name.
    std::vector<std::string> names;
    const auto add = [&names](const std::string& n) {
        for (const std::string& c : {n, n + ".weight"})
            if (!c.ends_with(".weight.weight") && std::find(names.begin(), names.end(), c) == names.end())
                names.push_back(c);
    };
    add(w.name);
    if (const std::string g = hfToGguf(w.name, ggufArchOf(checkpointArchitecture(ckpt))); !g.empty())
        add(g);
    for (const std::string& n : names)
        if (const ImatrixEntry* e = imatrix.find(n)) {
            m.entry = e;
            m.problem = fitProblem(*e, w);
            return m;
        }
    m.problem = "no imatrix entry (looked for";
    for (size_t i = 0; i < names.size(); ++i)
        m.problem += (i ? ", " : " ") + names[i];
    m.problem += ")";
    return m;
}

ImatrixMatch matchImatrix(const Imatrix& imatrix, const Checkpoint& ckpt)
{
    ImatrixMatch out;
    std::set<std::string> used;
    for (const LogicalWeight& w : ckpt.weights)
        if (w.shape.size() >= 2) {
            out.weights.push_back(matchImatrixWeight(imatrix, ckpt, w));
            if (out.weights.back().entry)
                used.insert(out.weights.back().entry->name);
        }
    for (const ImatrixEntry& e : imatrix.entries)
        if (!used.count(e.name))
            out.unusedEntries.push_back(e.name);
    return out;
}

ImportanceSummary summarizeImportance(const ImatrixEntry& e)
{
    ImportanceSummary s;
    if (e.importance.empty())
        return s;
    double sum = 0;
    s.min = s.max = e.importance.front();
    for (float v : e.importance) {
        sum += v;
        s.min = std::min(s.min, double(v));
        s.max = std::max(s.max, double(v));
    }
    s.mean = sum / double(e.importance.size());
    return s;
}

ImportanceRanking rankByImportance(const Checkpoint& ckpt, const ImatrixMatch& match, const Checkpoint* ref,
                                   const RequantizeSpec* spec, const StatsOptions& opt)
{
    ImportanceRanking out;
    if (!ref && !spec)
        throw Error(ErrorContext{ckpt.path}, "ranking by importance needs a reference or a format to requantize to");
    for (const ImatrixWeightMatch& m : match.weights) {
        if (!m.fits())
            continue;
        const LogicalWeight& w = *m.weight;
        if (!canDequantize(w.format)) {
            out.skipped.push_back(w.name + ": no dequantizer for format " + w.format);
            continue;
        }
        StatsOptions o = opt;
        o.importance = &m.entry->importance;
        try {
            WeightComparison c;
            if (ref) {
                const ReferenceMatch rm = findReference(ckpt, w, *ref);
                if (!rm.found()) {
                    out.skipped.push_back(w.name + ": " + rm.problem);
                    continue;
                }
                c = compareWeight(ckpt, w, *ref, rm, o);
            } else {
                c = compareRequantized(ckpt, w, *spec, o);
            }
            ImportanceRankRow r;
            r.weight = w.name;
            r.format = w.format;
            r.elements = w.elementCount();
            r.bitsPerWeight = w.bitsPerWeight();
            r.mse = c.error.rmse * c.error.rmse;
            r.weightedSumSq = c.error.weightedSumSq;
            out.rows.push_back(std::move(r));
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            out.skipped.push_back(w.name + ": " + e.what());
        }
    }
    double total = 0;
    for (const ImportanceRankRow& r : out.rows)
        total += r.weightedSumSq;
    for (ImportanceRankRow& r : out.rows)
        r.share = total > 0 ? r.weightedSumSq / total : 0;
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const ImportanceRankRow& a, const ImportanceRankRow& b) {
        return a.weightedSumSq > b.weightedSumSq;
    });
    return out;
}

} // namespace qs
