// libFuzzer target: what `diff` and the GUI's Diff view compute (diffCheckpoints, then the
// difference map and the values at one element of each pair). The first byte's low 3 bits pick
// the layout of A (qsfuzz::filesFromInput); its high 5 bits (mod 3) what B is:
// 0: A itself; every pair must then be equal wherever it is finite (the same bytes, read twice);
// 1: A with every 61st byte of each file's second half (where tensor data lies) flipped;
// 2: the rest split in two: a 4-byte little-endian length, then A's input (its own layout byte,
//    so a safetensors folder meets a GGUF: Hugging Face <-> GGUF names, the q/k permutation),
//    then B's.
// Every weight of both sides must be within kMaxAnalysedElements to diff them all; otherwise
// the pairs of weights within it are diffed one at a time (DiffOptions::weight), as
// `diff --weight` does.
#include "analysis/diff.h"
#include "fuzzcommon.h"

namespace {

bool allWithinCap(const qs::Checkpoint& c)
{
    for (const qs::LogicalWeight& w : c.weights)
        if (qs::whyNotDecoded(w).empty() && !qsfuzz::decodable(w, qsfuzz::kMaxAnalysedElements))
            return false;
    return true;
}

void checkSelf(const qs::DiffResult& r, bool self)
{
    if (!self)
        return;
    for (const qs::WeightDiff& d : r.weights)
        if (d.nameA == d.nameB && d.nonFinite == 0 && (d.differing != 0 || d.maxAbs != 0))
            abort();
}

void compare(const qs::Checkpoint& a, const qs::Checkpoint& b, bool self)
{
    qs::DiffOptions opt;
    opt.threads = 1;
    opt.path = qs::bestSimdPath();
    const bool whole = allWithinCap(a) && allWithinCap(b);
    if (whole)
        try {
            checkSelf(qs::diffCheckpoints(a, b, opt), self);
        } catch (const qs::Error&) {
        }
    const qs::WeightMatch m = qs::matchWeights(a, b);
    for (const qs::WeightPair& p : m.pairs) {
        if (!qsfuzz::decodable(*p.a, qsfuzz::kMaxAnalysedElements)
            || !qsfuzz::decodable(*p.b, qsfuzz::kMaxAnalysedElements))
            continue;
        if (!whole)
            try {
                opt.weight = p.a->name;
                checkSelf(qs::diffCheckpoints(a, b, opt), self);
            } catch (const qs::Error&) {
            }
        try {
            const qs::DiffMap map = qs::diffMap(a, b, p, 5, 3, opt);
            if (map.rows && map.cols)
                (void)qs::diffValuesAt(a, b, p, map.rows - 1, map.cols / 2, opt.path);
        } catch (const qs::Error&) {
        }
    }
}

// Each file copied with every 61st byte of its second half flipped.
std::vector<qs::MemoryFile> mutated(const std::vector<qs::MemoryFile>& files, std::vector<std::vector<uint8_t>>& store)
{
    std::vector<qs::MemoryFile> out;
    store.reserve(files.size());
    for (const qs::MemoryFile& f : files) {
        std::vector<uint8_t>& bytes = store.emplace_back(f.bytes.begin(), f.bytes.end());
        for (size_t i = bytes.size() / 2; i < bytes.size(); i += 61)
            bytes[i] ^= 0x5a;
        out.push_back({f.name, bytes});
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    try {
        switch ((data[0] >> 3) % 3) {
        case 0: {
            const auto a = qsfuzz::openDetected(qsfuzz::filesFromInput(data, size));
            compare(*a, *a, true);
            break;
        }
        case 1: {
            const std::vector<qs::MemoryFile> files = qsfuzz::filesFromInput(data, size);
            std::vector<std::vector<uint8_t>> store;
            const auto a = qsfuzz::openDetected(files);
            const auto b = qsfuzz::openDetected(mutated(files, store));
            compare(*a, *b, false);
            break;
        }
        default: {
            size_t at = 1, lenA = 0;
            for (int i = 0; i < 4 && at < size; ++i)
                lenA |= size_t(data[at++]) << (8 * i);
            lenA = std::min(lenA, size - at);
            const auto a = qsfuzz::openDetected(qsfuzz::filesFromInput(data + at, lenA));
            const auto b = qsfuzz::openDetected(qsfuzz::filesFromInput(data + at + lenA, size - at - lenA));
            compare(*a, *b, false);
            break;
        }
        }
    } catch (const qs::Error&) {
    }
    return 0;
}
