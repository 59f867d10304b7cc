#include "analysis/playground.h"

#include "base/error.h"
#include "base/intmath.h"
#include "container/checkpoint.h"
#include "formats/layoutspec.h"
#include "formats/wordmap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <optional>

namespace qs {
namespace {

// The words (the first maxWords by index) holding a piece of element (row, k) for each k of
// `columns` below `cols`; words past the tensor's `wordCount` are left out.
std::map<uint64_t, PlaygroundWord> wordsHolding(const LayoutSpec& spec, const LayoutParams& lp, uint64_t row,
                                                std::span<const uint64_t> columns, uint64_t cols, uint64_t wordCount,
                                                size_t maxWords)
{
    std::map<uint64_t, PlaygroundWord> words;
    for (const uint64_t k : columns) {
        if (k >= cols)
            continue;
        const ElementLocation e = spec.locate(lp, row, k);
        for (int p = 0; p < e.pieceCount; ++p)
            if (e.pieces[p].word < wordCount)
                words[e.pieces[p].word].index = e.pieces[p].word;
    }
    while (words.size() > maxWords)
        words.erase(std::prev(words.end()));
    return words;
}

// splitmix64: tiny, well mixed, and identical everywhere.
struct Generator {
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // (0, 1): never 0, so logarithms stay finite.
    double open01() { return (double(next() >> 11) + 0.5) * 0x1.0p-53; }
    double normal() // Box-Muller, one value per call
    {
        const double u = open01(), v = open01();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
    }
};

constexpr double kSigma = 0.02;

double sqnr(double signal, double noise)
{
    if (noise == 0)
        return std::numeric_limits<double>::infinity();
    if (signal == 0)
        return -std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(signal / noise);
}

// Everything of a group that follows from its columns and levels: the sorted levels' edges,
// the code counts, what is clamped (beyond an outer level by more than half the outer gap;
// affine: half of `step`, every gap), the error and the histogram.
void fillGroup(const PlaygroundResult& r, PlaygroundGroup& out, int bins, std::optional<float> step)
{
    const size_t codes = out.levels.size();
    // MLX scales may be negative: the levels then fall with the code.
    std::vector<float> sorted = out.levels;
    std::sort(sorted.begin(), sorted.end());
    out.lowLevel = sorted.front();
    out.highLevel = sorted.back();
    out.edges.resize(codes - 1);
    float largestGap = 0;
    for (size_t i = 0; i + 1 < codes; ++i) {
        out.edges[i] = 0.5f * (sorted[i] + sorted[i + 1]);
        largestGap = std::max(largestGap, sorted[i + 1] - sorted[i]);
    }
    out.step = step ? *step : largestGap;
    const float lowGap = step ? *step : codes > 1 ? sorted[1] - sorted[0] : 0.0f;
    const float highGap = step ? *step : codes > 1 ? sorted[codes - 1] - sorted[codes - 2] : 0.0f;

    const float* x = r.values.data();
    const uint8_t* c = r.quantized.codes.data();
    out.min = x[out.begin];
    out.max = x[out.begin];
    double signal = 0, noise = 0;
    out.codeCounts.assign(codes, 0);
    for (uint64_t k = out.begin; k < out.end; ++k) {
        out.min = std::min(out.min, x[k]);
        out.max = std::max(out.max, x[k]);
        ++out.codeCounts[c[k]];
        const double e = r.error[k];
        signal += double(x[k]) * x[k];
        noise += e * e;
        out.maxAbs = std::max(out.maxAbs, std::fabs(e));
        if (x[k] < out.lowLevel - 0.5f * lowGap)
            ++out.clippedLow;
        else if (x[k] > out.highLevel + 0.5f * highGap)
            ++out.clippedHigh;
    }
    out.rmse = std::sqrt(noise / double(out.end - out.begin));
    out.sqnrDb = sqnr(signal, noise);

    out.bins = bins;
    out.histLow = std::min<double>(out.min, out.lowLevel - 0.5 * lowGap);
    out.histHigh = std::max<double>(out.max, out.highLevel + 0.5 * highGap);
    if (!(out.histHigh > out.histLow))
        out.histHigh = out.histLow + 1e-6;
    out.histogram.assign(size_t(bins) * codes, 0);
    const double width = (out.histHigh - out.histLow) / bins;
    for (uint64_t k = out.begin; k < out.end; ++k) {
        const int bin = std::clamp(int((x[k] - out.histLow) / width), 0, bins - 1);
        ++out.histogram[size_t(bin) * codes + c[k]];
    }
}

PlaygroundGroup makeGroup(const PlaygroundResult& r, uint64_t g, int bins)
{
    const AffineQuantized& q = r.quantized;
    PlaygroundGroup out;
    out.begin = g * q.groupSize;
    out.end = std::min(q.cols, out.begin + q.groupSize);
    out.scale = q.scales[g * q.rows];
    out.zero = q.zeros[g * q.rows];
    const size_t codes = size_t(1) << q.bits;
    out.levels.resize(codes);
    for (size_t c = 0; c < codes; ++c)
        out.levels[c] = q.rule == AffineRule::Mlx ? float(c) * out.scale + out.zero : out.scale * (float(c) - out.zero);
    fillGroup(r, out, bins, std::fabs(out.scale));
    return out;
}

// Group g of the focus row of a block format: its levels from the family's table.
PlaygroundGroup makeBlockGroup(const PlaygroundResult& r, uint64_t g, int bins)
{
    const PlaygroundBlocks& b = r.blocks;
    PlaygroundGroup out;
    out.begin = g * b.groupSize;
    out.end = std::min(r.cols, out.begin + b.groupSize);
    out.block = out.begin / b.blockWeights;
    if (b.blockWeights > b.groupSize)
        out.subBlock = int(out.begin % b.blockWeights / b.groupSize);
    const float* levels = b.levels.data() + g * b.codeCount;
    out.levels.assign(levels, levels + b.codeCount);
    fillGroup(r, out, bins, std::nullopt);
    return out;
}

const StoredTensor* findStored(const PlaygroundResult& r, std::string_view suffix)
{
    for (const StoredTensor& t : r.stored)
        if (t.suffix == suffix)
            return &t;
    return nullptr;
}

} // namespace

std::vector<float> playgroundSamples(SampleDistribution d, uint64_t rows, uint64_t length, uint64_t seed)
{
    uint64_t total = 0;
    if (__builtin_mul_overflow(rows, length, &total) || total > (uint64_t(1) << 26))
        throw Error("playground: " + std::to_string(rows) + " x " + std::to_string(length) + " samples are too many");
    Generator gen{seed};
    std::vector<float> out(total);
    for (float& v : out) {
        double x = 0;
        switch (d) {
        case SampleDistribution::Normal: x = gen.normal(); break;
        case SampleDistribution::NormalOutliers:
            x = gen.normal();
            if (gen.next() % 64 == 0)
                x = (x < 0 ? -1 : 1) * (6.0 + 6.0 * gen.open01());
            break;
        case SampleDistribution::Uniform: x = std::sqrt(3.0) * (2.0 * gen.open01() - 1.0); break;
        case SampleDistribution::Laplace: {
            // Inverse CDF with b = 1/sqrt(2) (unit variance).
            const double u = gen.open01() - 0.5;
            x = -std::numbers::sqrt2 / 2 * (u < 0 ? -1 : 1) * std::log(1.0 - 2.0 * std::fabs(u));
            break;
        }
        }
        v = float(kSigma * x);
    }
    return out;
}

const PlaygroundAffineFormat* playgroundAffineFormatOf(const FormatInfo& format)
{
    static const std::vector<PlaygroundAffineFormat> formats = playgroundAffineFormats();
    for (const PlaygroundAffineFormat& f : formats)
        if (f.format == &format)
            return &f;
    return nullptr;
}

namespace {

// The affine format the options name; the first of the menu (GPTQ v1) when they name none.
const PlaygroundAffineFormat& affineFormatOf(const PlaygroundOptions& opt)
{
    static const std::vector<PlaygroundAffineFormat> formats = playgroundAffineFormats();
    const PlaygroundAffineFormat* f = opt.affine ? playgroundAffineFormatOf(*opt.affine) : &formats.front();
    if (!f || !f->run)
        throw Error("playground: " + opt.affine->id + " is not a playground affine format");
    return *f;
}

// Quantizes with the block format's own checkpoint quantizer and lets its family decode the
// tensors: the bytes are those a quantized file holds.
void quantizeBlocks(PlaygroundResult& r, const FormatInfo& format)
{
    const FamilyTargets* targets = familyTargets(format);
    if (!targets || !targets->quantizeScheme || !targets->quantize || !targets->playgroundDecode)
        throw Error("playground: " + format.id + " is not a playground block format");
    const PlaygroundBlockFormat* own = playgroundBlockFormatOf(format);
    QuantizeRequest request;
    if (const uint32_t size = r.options.blocksize; size != 0) {
        if (!own || std::find(own->blocksizes.begin(), own->blocksizes.end(), size) == own->blocksizes.end())
            throw Error("playground: " + format.id + " has no block size " + std::to_string(size));
        request.groupSize = size;
    }
    if (r.options.nested) {
        if (!own || !own->nestedOf)
            throw Error("playground: " + format.id + " has no nested block scales");
        request.doubleQuant = true;
    }
    QuantScheme scheme;
    scheme.format = &format;
    targets->quantizeScheme(request, scheme);
    std::vector<float> input = r.values;
    if (own && own->toolInput)
        own->toolInput(input);
    try {
        r.stored = targets->quantize(scheme, input.data(), r.rows, r.cols, false);
    } catch (const Error& e) {
        throw Error("playground: " + format.id + ": " + e.what());
    }
    r.blocks = targets->playgroundDecode(format, r.stored, r.rows, r.cols);
    AffineQuantized& q = r.quantized;
    q.rows = r.rows;
    q.cols = r.cols;
    q.bits = scheme.bits;
    q.groupSize = r.blocks.groupSize;
    q.groups = ceilDiv(r.cols, q.groupSize);
    q.codes = r.blocks.codes;
    r.dequantized = r.blocks.dequantized;
    const LayoutSpec* spec = findLayoutSpec(format.id);
    r.signedCodes = spec && spec->signedness == CodeSignedness::TwosComplement;
    if (spec && spec->locate) {
        const LayoutParams lp{r.cols, r.rows, q.bits, r.blocks.blockWeights};
        r.codeTensor = std::string(spec->locate(lp, 0, 0).tensor);
        r.hasLayout = spec->wordBits <= 32 && findStored(r, r.codeTensor) != nullptr;
    }
}

} // namespace

const PlaygroundBlockFormat* playgroundBlockFormatOf(const FormatInfo& format)
{
    static const std::vector<PlaygroundBlockFormat> formats = playgroundBlockFormats();
    for (const PlaygroundBlockFormat& f : formats)
        if (f.format == &format)
            return &f;
    return nullptr;
}

PlaygroundResult runPlayground(std::vector<float> values, uint64_t rows, uint64_t cols, const PlaygroundOptions& opt)
{
    uint64_t total = 0;
    if (rows == 0 || cols == 0 || __builtin_mul_overflow(rows, cols, &total) || values.size() != total)
        throw Error("playground: " + std::to_string(values.size()) + " values do not make a " + std::to_string(rows)
                    + " x " + std::to_string(cols) + " block");
    if (opt.histogramBins < 1 || opt.histogramBins > 4096)
        throw Error("playground: histogram bins must be 1..4096");
    for (uint64_t i = 0; i < total; ++i)
        if (!std::isfinite(values[i]))
            throw Error("playground: value " + std::to_string(i % cols) + " of row " + std::to_string(i / cols)
                        + " is not finite");

    PlaygroundResult r;
    r.options = opt;
    r.rows = rows;
    r.cols = cols;
    r.values = std::move(values);

    PlaygroundAffineRun packed;
    if (opt.block) {
        quantizeBlocks(r, *opt.block);
    } else {
        const PlaygroundAffineFormat& affine = affineFormatOf(opt);
        r.options.affine = affine.format;
        r.rule = affine.rule;
        AffineOptions ao;
        ao.bits = opt.bits;
        ao.granularity = opt.groupSize == 0 ? AffineGranularity::Channel : AffineGranularity::Group;
        ao.groupSize = opt.groupSize == 0 ? cols : opt.groupSize;
        ao.symmetric = opt.symmetric;
        ao.clipRatio = opt.clipRatio;
        ao.rule = r.rule;
        ao.codeScale = opt.scaleType;
        packed = affine.run(*affine.format, r.values.data(), rows, cols, ao, opt.scaleType);
        r.quantized = std::move(packed.quantized);
        r.dequantized = std::move(packed.dequantized);
    }

    r.error.resize(cols);
    double signal = 0, noise = 0;
    for (uint64_t k = 0; k < cols; ++k) {
        r.error[k] = r.dequantized[k] - r.values[k];
        signal += double(r.values[k]) * r.values[k];
        noise += double(r.error[k]) * r.error[k];
        r.maxAbs = std::max(r.maxAbs, double(std::fabs(r.error[k])));
    }
    r.rmse = std::sqrt(noise / double(cols));
    r.sqnrDb = sqnr(signal, noise);
    for (uint64_t g = 0; g < r.quantized.groups; ++g)
        r.groups.push_back(opt.block ? makeBlockGroup(r, g, opt.histogramBins) : makeGroup(r, g, opt.histogramBins));
    if (opt.block)
        return r;

    r.stored = std::move(packed.stored);
    r.packError = std::move(packed.packError);
    if (const LayoutSpec* spec = findLayoutSpec(r.options.affine->id); spec && spec->locate && r.packError.empty()) {
        const LayoutParams lp{cols, rows, opt.bits, r.quantized.groupSize};
        r.codeTensor = std::string(spec->locate(lp, 0, 0).tensor);
        r.hasLayout = spec->wordBits == 32 && findStored(r, r.codeTensor) != nullptr;
    }
    return r;
}

namespace {

LayoutParams blockLayoutParams(const PlaygroundResult& r, uint64_t rows)
{
    return {r.cols, rows, r.quantized.bits, r.blocks.blockWeights};
}

// Block formats: the words of the block holding column colBegin that carry its fields (and no
// element's code), then the words holding the codes of [colBegin, colEnd), each with every
// element piece and field byte in it.
std::vector<PlaygroundWord> playgroundBlockWords(const PlaygroundResult& r, const LayoutSpec& spec,
                                                 const StoredTensor& tensor, uint64_t colBegin, uint64_t colEnd,
                                                 size_t maxWords)
{
    std::vector<PlaygroundWord> out;
    const uint32_t wordBits = uint32_t(spec.wordBits);
    if (wordBits == 0 || wordBits > 32 || wordBits % 8 != 0)
        return out;
    const LayoutParams lp = blockLayoutParams(r, r.rows);
    const uint64_t wordBytes = wordBits / 8, wordCount = tensor.bytes.size() / wordBytes;
    const uint64_t bw = r.blocks.blockWeights;
    const uint64_t blockBegin = colBegin / bw * bw, blockEnd = std::min(r.cols, blockBegin + bw);
    std::optional<WordMap> map;
    try {
        map.emplace(spec, lp);
    } catch (const Error&) {
    }

    std::map<uint64_t, PlaygroundWord> words;
    std::map<uint64_t, std::vector<PlaygroundField>> pieces; // every element piece of the block, by word
    for (uint64_t k = blockBegin; k < blockEnd; ++k) {
        const ElementLocation e = spec.locate(lp, 0, k);
        for (int p = 0; p < e.pieceCount; ++p) {
            if (e.pieces[p].word >= wordCount)
                continue;
            PlaygroundField f;
            f.bit = e.pieces[p].bit;
            f.width = e.pieces[p].width;
            f.col = k;
            f.slot = e.slot;
            f.piece = p;
            f.pieces = e.pieceCount;
            f.code = r.quantized.codes[k];
            f.tile = map ? int64_t(map->tileIndex(0, k)) : -1;
            pieces[e.pieces[p].word].push_back(f);
            if (k >= colBegin && k < colEnd)
                words[e.pieces[p].word].index = e.pieces[p].word;
        }
    }
    // The block's fields: bytes of its struct that hold no code.
    if (const uint32_t blockBytes = blockBytesOf(spec); blockBytes > 0) {
        const uint64_t first = blockBegin / bw * blockBytes; // row 0: block b starts at b * blockBytes
        for (uint64_t w = first / wordBytes; w < (first + blockBytes) / wordBytes && w < wordCount; ++w)
            if (!pieces.count(w))
                words[w].index = w;
    }
    while (words.size() > maxWords)
        words.erase(std::prev(words.end()));
    for (auto& [index, word] : words) {
        uint32_t value = 0;
        std::memcpy(&value, tensor.bytes.data() + index * wordBytes, size_t(wordBytes)); // little-endian host
        word.value = value;
        if (const auto it = pieces.find(index); it != pieces.end()) {
            word.fields = it->second;
        } else {
            // Field bytes: one field per byte of the block struct.
            for (uint32_t byte = 0; byte < wordBytes; ++byte) {
                PlaygroundField f;
                f.bit = uint8_t(byte * 8);
                f.width = 8;
                f.field = blockFieldAt(spec, index * wordBytes + byte);
                if (f.field >= 0)
                    word.fields.push_back(f);
            }
        }
        std::sort(word.fields.begin(), word.fields.end(),
                  [](const PlaygroundField& a, const PlaygroundField& b) { return a.bit < b.bit; });
        out.push_back(std::move(word));
    }
    return out;
}

} // namespace

int playgroundWordBits(const PlaygroundResult& r)
{
    if (!r.options.block)
        return 32;
    const LayoutSpec* spec = findLayoutSpec(r.options.block->id);
    return spec ? spec->wordBits : 32;
}

std::vector<PlaygroundWord> playgroundWords(const PlaygroundResult& r, uint64_t colBegin, uint64_t colEnd,
                                            size_t maxWords)
{
    std::vector<PlaygroundWord> out;
    if (r.options.block) {
        const LayoutSpec* spec = findLayoutSpec(r.options.block->id);
        const StoredTensor* tensor = r.hasLayout ? findStored(r, r.codeTensor) : nullptr;
        colEnd = std::min(colEnd, r.cols);
        if (!spec || !tensor || colBegin >= colEnd || maxWords == 0 || r.blocks.blockWeights == 0)
            return out;
        return playgroundBlockWords(r, *spec, *tensor, colBegin, colEnd, maxWords);
    }
    const LayoutSpec* spec = findLayoutSpec(r.options.affine->id);
    const StoredTensor* tensor = r.hasLayout ? findStored(r, r.codeTensor) : nullptr;
    colEnd = std::min(colEnd, r.cols);
    if (!spec || !tensor || colBegin >= colEnd || maxWords == 0)
        return out;
    const LayoutParams lp{r.cols, r.rows, r.options.bits, r.quantized.groupSize};
    const uint64_t wordCount = tensor->bytes.size() / 4;

    std::vector<uint64_t> columns(colEnd - colBegin);
    std::iota(columns.begin(), columns.end(), colBegin);
    std::map<uint64_t, PlaygroundWord> words = wordsHolding(*spec, lp, 0, columns, r.cols, wordCount, maxWords);
    if (words.empty())
        return out;
    // Every element whose bits can share these words: a word holds at most 32 codes of a
    // row, so neighbours within 32 columns of the range, in every row of the block.
    const uint64_t lo = colBegin > 32 ? colBegin - 32 : 0;
    const uint64_t hi = std::min(r.cols, colEnd + 32);
    for (uint64_t row = 0; row < r.rows; ++row) {
        for (uint64_t k = lo; k < hi; ++k) {
            const ElementLocation e = spec->locate(lp, row, k);
            for (int p = 0; p < e.pieceCount; ++p) {
                auto it = words.find(e.pieces[p].word);
                if (it == words.end())
                    continue;
                PlaygroundField f;
                f.bit = e.pieces[p].bit;
                f.width = e.pieces[p].width;
                f.row = row;
                f.col = k;
                f.slot = e.slot;
                f.piece = p;
                f.pieces = e.pieceCount;
                f.code = r.quantized.codes[row * r.cols + k];
                it->second.fields.push_back(f);
            }
        }
    }
    for (auto& [index, word] : words) {
        std::memcpy(&word.value, tensor->bytes.data() + index * 4, 4); // little-endian host (x86-64)
        std::sort(word.fields.begin(), word.fields.end(),
                  [](const PlaygroundField& a, const PlaygroundField& b) { return a.bit < b.bit; });
        out.push_back(std::move(word));
    }
    return out;
}

void numberAsStored(std::vector<PlaygroundWord>& words, const PlaygroundResult& r, uint64_t weightRows,
                    uint64_t firstRow)
{
    if (r.options.block) {
        // One row of a block format: its words lie in the weight's tensor at one offset.
        const LayoutSpec* spec = findLayoutSpec(r.options.block->id);
        if (!spec || !spec->locate || weightRows < r.rows || firstRow > weightRows - r.rows)
            return;
        for (const PlaygroundWord& w : words)
            for (const PlaygroundField& f : w.fields)
                if (f.field < 0) {
                    const ElementLocation e = spec->locate(blockLayoutParams(r, weightRows), firstRow + f.row, f.col);
                    if (f.piece >= e.pieceCount)
                        return;
                    const uint64_t offset = e.pieces[f.piece].word - w.index;
                    for (PlaygroundWord& shifted : words)
                        shifted.index += offset;
                    return;
                }
        return;
    }
    const LayoutSpec* spec = findLayoutSpec(r.options.affine->id);
    if (!spec || !spec->locate || weightRows < r.rows || firstRow > weightRows - r.rows)
        return;
    const LayoutParams weight{r.cols, weightRows, r.options.bits, r.quantized.groupSize};
    for (PlaygroundWord& w : words)
        if (!w.fields.empty()) {
            const PlaygroundField& f = w.fields.front();
            const ElementLocation e = spec->locate(weight, firstRow + f.row, f.col);
            if (f.piece < e.pieceCount)
                w.index = e.pieces[f.piece].word;
        }
}

int64_t playgroundStoredMatches(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t row,
                                const PlaygroundResult& r)
{
    const FormatInfo* format = r.options.block;
    const PlaygroundBlockFormat* own = format ? playgroundBlockFormatOf(*format) : nullptr;
    if (!own || findFormat(weight.format) != format || weight.groupSize != int64_t(r.blocks.blockWeights) || r.rows != 1
        || weight.inFeatures() != r.cols || row >= weight.outFeatures())
        return -1;
    const LayoutSpec* spec = findLayoutSpec(format->id);
    const int m = weight.member(r.codeTensor);
    if (!spec || !spec->locate || m < 0 || size_t(m) >= ckpt.tensors.size())
        return -1;
    const std::span<const uint8_t> bytes = ckpt.bytes(ckpt.tensors[size_t(m)]);
    const LayoutParams lp = layoutParams(weight);
    const std::string what = ckpt.path + " " + weight.name;
    int64_t same = 0;
    for (uint64_t k = 0; k < r.cols; ++k) {
        const ElementLocation e = spec->locate(lp, row, k);
        same += readPieces(bytes, std::span(e.pieces, e.pieceCount), e.wordBits, what) == r.quantized.codes[k];
    }
    return same;
}

std::vector<PlaygroundWord> playgroundStoredWords(const Checkpoint& ckpt, const LogicalWeight& weight,
                                                  uint64_t rowBegin, uint64_t rows,
                                                  const std::vector<uint64_t>& columns, size_t maxWords)
{
    std::vector<PlaygroundWord> out;
    const FormatInfo* format = findFormat(weight.format);
    const LayoutSpec* spec = format && format->integerCodes ? findLayoutSpec(format->id) : nullptr;
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    if (!spec || !spec->locate || spec->wordBits != 32 || maxWords == 0 || rows == 0 || rowBegin >= N || K == 0)
        return out;
    const LayoutParams lp = layoutParams(weight);
    const int m = weight.member(spec->locate(lp, rowBegin, 0).tensor);
    if (m < 0 || size_t(m) >= ckpt.tensors.size())
        return out;
    const TensorEntry& tensor = ckpt.tensors[size_t(m)];
    const std::span<const uint8_t> bytes = ckpt.bytes(tensor);
    const uint64_t wordCount = bytes.size() / 4;
    const std::string what = ckpt.path + " " + weight.name + " tensor " + std::string(tensor.name);

    std::map<uint64_t, PlaygroundWord> words = wordsHolding(*spec, lp, rowBegin, columns, K, wordCount, maxWords);
    if (words.empty())
        return out;
    for (uint64_t i = 0; i < rows; ++i) {
        const uint64_t row = (rowBegin + i) % N;
        for (uint64_t k = 0; k < K; ++k) {
            const ElementLocation e = spec->locate(lp, row, k);
            std::optional<uint8_t> code;
            for (int p = 0; p < e.pieceCount; ++p) {
                const auto it = words.find(e.pieces[p].word);
                if (it == words.end())
                    continue;
                if (!code)
                    code = uint8_t(readPieces(bytes, std::span(e.pieces, e.pieceCount), e.wordBits, what));
                PlaygroundField f;
                f.bit = e.pieces[p].bit;
                f.width = e.pieces[p].width;
                f.row = i;
                f.col = k;
                f.slot = e.slot;
                f.piece = p;
                f.pieces = e.pieceCount;
                f.code = *code;
                it->second.fields.push_back(f);
            }
        }
    }
    for (auto& [index, word] : words) {
        std::memcpy(&word.value, bytes.data() + index * 4, 4); // little-endian host (x86-64)
        std::sort(word.fields.begin(), word.fields.end(),
                  [](const PlaygroundField& a, const PlaygroundField& b) { return a.bit < b.bit; });
        out.push_back(std::move(word));
    }
    return out;
}

} // namespace qs
