#include "formats/wordmap.h"
#include "base/intmath.h"

#include "container/checkpoint.h"
#include "base/error.h"
#include "base/half.h"
#include "formats/family.h"
#include "formats/kernel.h"
#include "formats/layoutsize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace qs {

namespace {

// Base tiles larger than this are not searched: the table would cost more than it saves.
constexpr uint64_t kMaxTileElements = uint64_t(1) << 16;
constexpr uint64_t kWindow = 128;
// locate() calls the whole search may make. The bit map builds its WordMap on the GUI thread:
// a layout with no tile (a [2^32, 2^32] shape) tried every candidate over windows of 2^17 rows,
// past 60 s. A real layout finds its tile in a small fraction of this.
constexpr uint64_t kMaxProbes = uint64_t(1) << 24;

// Powers of two below `n`, then `n` itself (a tile spanning the whole axis).
std::vector<uint64_t> periodCandidates(uint64_t n)
{
    std::vector<uint64_t> out;
    for (uint64_t p = 1; p < n && p <= kMaxTileElements; p *= 2)
        out.push_back(p);
    out.push_back(std::max<uint64_t>(n, 1));
    return out;
}

// Same pieces, shifted by one word distance. `stride` is learned on first use (~0 = unset).
bool sameShape(const ElementLocation& a, const ElementLocation& b, uint64_t& stride)
{
    if (a.pieceCount != b.pieceCount || a.pieceCount == 0 || a.tensor != b.tensor)
        return false;
    for (uint8_t i = 0; i < a.pieceCount; ++i) {
        const BitPiece &p = a.pieces[i], &q = b.pieces[i];
        if (p.bit != q.bit || p.width != q.width || q.word < p.word)
            return false;
        const uint64_t d = q.word - p.word;
        if (stride == ~uint64_t(0))
            stride = d;
        else if (d != stride)
            return false;
    }
    return true;
}

} // namespace

LayoutParams layoutParams(const LogicalWeight& weight)
{
    LayoutParams p;
    p.K = weight.inFeatures();
    p.N = weight.outFeatures();
    p.bits = weight.bits;
    p.groupSize = weight.groupSize > 0 ? uint64_t(weight.groupSize) : 0;
    if (const auto it = weight.params.find("row_groups"); it != weight.params.end())
        p.rowGroups = parseRowGroups(it->second, p.K);
    if (const FamilyRow* row = familyRowOf(weight.format); row && row->layoutParams)
        row->layoutParams(weight, p);
    return p;
}

WordMap::WordMap(const LayoutSpec& spec, const LayoutParams& params)
    : m_spec(&spec)
    , m_params(params)
{
    if (!spec.locate)
        throw Error("layout '" + spec.id + "': no locate()");
    if (params.K == 0 || params.N == 0)
        throw Error("layout '" + spec.id + "': empty weight");
    m_wordBits = spec.locate(params, 0, 0).wordBits;
    if (spec.elementsIn) {
        // No tile: every word is answered by the spec; elements are coloured by their flat
        // index, and the word count is the code tensor's size.
        const LayoutTensor* codes = findTensor(spec, spec.locate(params, 0, 0).tensor);
        if (!codes || !sizedByParams(*codes))
            throw Error("layout '" + spec.id + "': locate() names a tensor without a fixed shape");
        m_flat = true;
        m_tileCols = std::min(params.N * params.K, kMaxTileElements);
        m_wordCount = tensorBytes(spec, *codes, params) * 8 / m_wordBits;
        return;
    }

    const bool flatFirst = spec.packAxis == PackAxis::None || spec.packAxis == PackAxis::Block;
    // Row groups of several widths or sizes (EXL2) repeat nothing along K: a shorter period could
    // pass the search's window and then miss the groups past it.
    const bool mixed = std::any_of(params.rowGroups.begin(), params.rowGroups.end(), [&](const RowGroup& g) {
        return g.bits != params.rowGroups[0].bits || g.rows != params.rowGroups[0].rows;
    });
    auto search2d = [&] {
        // Smallest tile first, so the table stays small.
        std::vector<std::pair<uint64_t, uint64_t>> pairs;
        for (uint64_t tr : periodCandidates(params.N))
            for (uint64_t tc : mixed ? std::vector<uint64_t>{params.K} : periodCandidates(params.K))
                if (tr <= kMaxTileElements / tc) // tr * tc, which wraps for two axes near 2^32
                    pairs.emplace_back(tr, tc);
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](const auto& a, const auto& b) { return a.first * a.second < b.first * b.second; });
        for (const auto& [tr, tc] : pairs)
            if (tryPeriod2d(tr, tc))
                return true;
        return false;
    };
    auto searchFlat = [&] {
        if (mixed || params.N > ~uint64_t(0) / params.K)
            return false;
        for (uint64_t te : periodCandidates(params.N * params.K))
            if (te <= kMaxTileElements && tryPeriodFlat(te))
                return true;
        return false;
    };
    const bool found = flatFirst ? (searchFlat() || search2d()) : (search2d() || searchFlat());
    if (!found)
        throw Error("layout '" + spec.id + "': no repeating tile of at most " + std::to_string(kMaxTileElements)
                    + " elements for [" + std::to_string(params.N) + ", " + std::to_string(params.K) + "]");
    buildTable();
}

void WordMap::probe()
{
    if (++m_probes > kMaxProbes)
        throw Error("layout '" + m_spec->id + "': no repeating tile found for [" + std::to_string(m_params.N) + ", "
                    + std::to_string(m_params.K) + "] within " + std::to_string(kMaxProbes) + " probes");
}

bool WordMap::tryPeriod2d(uint64_t tr, uint64_t tc)
{
    const LayoutParams& p = m_params;
    uint64_t sr = ~uint64_t(0), sc = ~uint64_t(0);
    // Shift-invariance over a window of several tiles (at least kWindow each way), so that a
    // small candidate cannot pass on a few lucky elements.
    const uint64_t rows = std::min(p.N, std::max(2 * tr, kWindow)), cols = std::min(p.K, std::max(2 * tc, kWindow));
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
            probe();
            const ElementLocation e = m_spec->locate(p, r, c);
            if (r + tr < p.N && !sameShape(e, m_spec->locate(p, r + tr, c), sr))
                return false;
            if (c + tc < p.K && !sameShape(e, m_spec->locate(p, r, c + tc), sc))
                return false;
        }
    m_flat = false;
    m_tileRows = tr;
    m_tileCols = tc;
    m_tilesRow = ceilDiv(p.N, tr);
    m_tilesCol = ceilDiv(p.K, tc);
    m_strideRow = m_tilesRow > 1 ? sr : 0;
    m_strideCol = m_tilesCol > 1 ? sc : 0;
    return true;
}

bool WordMap::tryPeriodFlat(uint64_t te)
{
    const LayoutParams& p = m_params;
    const uint64_t total = p.N * p.K;
    uint64_t s = ~uint64_t(0);
    for (uint64_t e = 0; e < std::min(std::max(2 * te, kWindow * kWindow / 16), total); ++e) {
        probe();
        if (e + te < total
            && !sameShape(m_spec->locate(p, e / p.K, e % p.K), m_spec->locate(p, (e + te) / p.K, (e + te) % p.K), s))
            return false;
    }
    m_flat = true;
    m_tileRows = 0;
    m_tileCols = te;
    m_tilesRow = 1;
    m_tilesCol = ceilDiv(total, te);
    m_strideRow = 0;
    m_strideCol = m_tilesCol > 1 ? s : 0;
    return true;
}

uint64_t WordMap::maxWord(uint64_t row, uint64_t col) const
{
    const ElementLocation e = m_spec->locate(m_params, row, col);
    uint64_t w = 0;
    for (uint8_t i = 0; i < e.pieceCount; ++i)
        w = std::max(w, e.pieces[i].word);
    return w;
}

void WordMap::buildTable()
{
    const LayoutParams& p = m_params;
    std::map<uint64_t, std::vector<Entry>> byOffset;
    auto add = [&](uint64_t r, uint64_t c, uint64_t tag) {
        const ElementLocation e = m_spec->locate(p, r, c);
        for (uint8_t i = 0; i < e.pieceCount; ++i) {
            auto& list = byOffset[e.pieces[i].word];
            if (list.empty() || list.back().row != (m_flat ? 0 : r) || list.back().col != tag)
                list.push_back({m_flat ? 0 : r, tag});
        }
    };
    if (m_flat) {
        for (uint64_t e = 0; e < std::min(m_tileCols, p.N * p.K); ++e)
            add(e / p.K, e % p.K, e);
    } else {
        for (uint64_t r = 0; r < std::min(m_tileRows, p.N); ++r)
            for (uint64_t c = 0; c < std::min(m_tileCols, p.K); ++c)
                add(r, c, c);
    }
    for (auto& [offset, list] : byOffset) {
        m_offsets.push_back(offset);
        m_atOffset.push_back(std::move(list));
    }

    // The highest word lies in one of the last tiles (strides are never negative); the edge
    // tiles may be partial, so the elements there are asked directly.
    if (m_flat) {
        const uint64_t total = p.N * p.K;
        const uint64_t from = total > 2 * m_tileCols ? total - 2 * m_tileCols : 0;
        for (uint64_t e = from; e < total; ++e)
            m_wordCount = std::max(m_wordCount, maxWord(e / p.K, e % p.K) + 1);
    } else {
        const uint64_t r0 = p.N > 2 * m_tileRows ? p.N - 2 * m_tileRows : 0;
        const uint64_t c0 = p.K > 2 * m_tileCols ? p.K - 2 * m_tileCols : 0;
        for (uint64_t r = r0; r < p.N; ++r)
            for (uint64_t c = c0; c < p.K; ++c)
                m_wordCount = std::max(m_wordCount, maxWord(r, c) + 1);
    }
}

void WordMap::appendCandidates(uint64_t word, std::vector<std::pair<uint64_t, uint64_t>>& out) const
{
    const LayoutParams& p = m_params;
    if (m_spec->elementsIn) {
        for (const auto& [r, c] : m_spec->elementsIn(p, word))
            if (r < p.N && c < p.K)
                out.emplace_back(r, c);
        return;
    }
    // Tiles (i, j) with i*SR + j*SC == d, i < m_tilesRow, j < m_tilesCol.
    auto tiles = [&](uint64_t d, auto&& take) {
        const bool rowsMove = m_tilesRow > 1 && m_strideRow > 0;
        const bool colsMove = m_tilesCol > 1 && m_strideCol > 0;
        if (!rowsMove && !colsMove) {
            if (d == 0)
                take(0, 0);
            return;
        }
        if (!rowsMove || !colsMove) {
            const uint64_t s = rowsMove ? m_strideRow : m_strideCol;
            const uint64_t n = rowsMove ? m_tilesRow : m_tilesCol;
            if (d % s == 0 && d / s < n)
                rowsMove ? take(d / s, 0) : take(0, d / s);
            return;
        }
        const bool colsLarger = m_strideCol >= m_strideRow;
        const uint64_t big = colsLarger ? m_strideCol : m_strideRow, nBig = colsLarger ? m_tilesCol : m_tilesRow;
        const uint64_t small = colsLarger ? m_strideRow : m_strideCol, nSmall = colsLarger ? m_tilesRow : m_tilesCol;
        for (uint64_t a = std::min(d / big, nBig - 1) + 1; a-- > 0;) {
            const uint64_t rest = d - a * big;
            if (rest / small >= nSmall)
                break;
            if (rest % small == 0)
                colsLarger ? take(rest / small, a) : take(a, rest / small);
        }
    };
    // Offsets above `word` cannot reach it; the table is sorted.
    const auto end = std::upper_bound(m_offsets.begin(), m_offsets.end(), word);
    for (auto it = m_offsets.begin(); it != end; ++it) {
        const auto& entries = m_atOffset[size_t(it - m_offsets.begin())];
        tiles(word - *it, [&](uint64_t i, uint64_t j) {
            for (const Entry& e : entries) {
                if (m_flat) {
                    const uint64_t flat = j * m_tileCols + e.col;
                    if (flat < p.N * p.K)
                        out.emplace_back(flat / p.K, flat % p.K);
                } else {
                    const uint64_t r = i * m_tileRows + e.row, c = j * m_tileCols + e.col;
                    if (r < p.N && c < p.K)
                        out.emplace_back(r, c);
                }
            }
        });
    }
}

std::vector<WordPiece> WordMap::piecesIn(uint64_t word) const
{
    std::vector<std::pair<uint64_t, uint64_t>> candidates;
    appendCandidates(word, candidates);
    std::vector<WordPiece> out;
    for (const auto& [r, c] : candidates) {
        const ElementLocation e = m_spec->locate(m_params, r, c);
        for (uint8_t i = 0; i < e.pieceCount; ++i)
            if (e.pieces[i].word == word)
                out.push_back({r, c, e.pieces[i].bit, e.pieces[i].width, i, e.pieceCount});
    }
    std::sort(out.begin(), out.end(), [](const WordPiece& a, const WordPiece& b) { return a.bit < b.bit; });
    return out;
}

uint64_t readPieces(std::span<const uint8_t> bytes, std::span<const BitPiece> pieces, uint32_t wordBits,
                    const std::string& what)
{
    uint64_t value = 0;
    unsigned shift = 0;
    for (const BitPiece& piece : pieces) {
        if (piece.width == 0 || piece.width > 64 || shift + piece.width > 64 || piece.bit + piece.width > wordBits
            || piece.word > (uint64_t(bytes.size()) * 8) / wordBits)
            throw Error(what + ": bit field outside the tensor (word " + std::to_string(piece.word) + ")");
        const uint64_t first = piece.word * wordBits + piece.bit;
        if (first + piece.width > uint64_t(bytes.size()) * 8)
            throw Error(what + ": bit field outside the tensor (word " + std::to_string(piece.word) + ")");
        for (unsigned b = 0; b < piece.width; ++b) {
            const uint64_t at = first + b;
            value |= uint64_t((bytes[size_t(at / 8)] >> (at % 8)) & 1u) << (shift + b);
        }
        shift += piece.width;
    }
    return value;
}

namespace {

double readFloat(std::span<const uint8_t> bytes, DType dtype, uint64_t index, const std::string& what)
{
    const unsigned size = dtypeBits(dtype) / 8;
    if (size == 0 || index >= bytes.size() / size)
        throw Error(what + ": element " + std::to_string(index) + " outside the tensor");
    const uint8_t* at = bytes.data() + index * size;
    switch (dtype) {
    case DType::F16: {
        uint16_t h;
        std::memcpy(&h, at, 2);
        return halfToFloat(h);
    }
    case DType::BF16: {
        uint16_t h;
        std::memcpy(&h, at, 2);
        return bf16ToFloat(h);
    }
    case DType::F32: {
        float f;
        std::memcpy(&f, at, 4);
        return f;
    }
    case DType::F64: {
        double f;
        std::memcpy(&f, at, 8);
        return f;
    }
    default: throw Error(what + ": dtype " + std::string(dtypeName(dtype)) + " is not a float scale");
    }
}

// A GGUF block scale at byte `at` of the tensor, decoded by the kind of the field holding it.
bool readBlockScale(const LayoutSpec& spec, std::span<const uint8_t> bytes, uint64_t at, double& out,
                    const std::string& what)
{
    uint64_t blockBytes = 0;
    for (const BlockField& f : spec.blockFields)
        blockBytes = std::max<uint64_t>(blockBytes, uint64_t(f.byteOffset) + f.byteSize);
    if (blockBytes == 0)
        return false;
    const uint64_t inBlock = at % blockBytes;
    for (const BlockField& f : spec.blockFields) {
        if (inBlock < f.byteOffset || inBlock >= uint64_t(f.byteOffset) + f.byteSize)
            continue;
        const unsigned size = f.kind == "f32 scale" ? 4 : f.kind == "e8m0 scale" ? 1 : 2;
        if (at > bytes.size() || bytes.size() - at < size)
            throw Error(what + ": scale byte " + std::to_string(at) + " outside the tensor");
        if (f.kind == "f32 scale") {
            float v;
            std::memcpy(&v, bytes.data() + at, 4);
            out = v;
        } else if (f.kind == "e8m0 scale") {
            out = std::ldexp(1.0, int(bytes[size_t(at)]) - 127);
        } else {
            uint16_t h;
            std::memcpy(&h, bytes.data() + at, 2);
            out = halfToFloat(h);
        }
        return true;
    }
    return false;
}

} // namespace

ElementValues elementValues(const Checkpoint& ckpt, const LogicalWeight& weight, const LayoutSpec& spec,
                            const LayoutParams& params, uint64_t row, uint64_t col)
{
    if (row >= params.N || col >= params.K)
        throw Error(ErrorContext{ckpt.path, weight.name},
                    "element (" + std::to_string(row) + ", " + std::to_string(col) + ") outside the matrix");
    ElementValues v;
    v.zeroKind = spec.zeroPoint;
    const WeightData data{ckpt, weight};
    if (const FamilyRow* family = familyRowOf(weight.format); family && family->elementValues) {
        family->elementValues(data, row, col, v);
        return v;
    }
    const ElementLocation e = spec.locate(params, row, col);
    const std::string where = ckpt.path + ": weight '" + weight.name + "'";
    v.code = readPieces(data.bytes(e.tensor), std::span(e.pieces, e.pieceCount), e.wordBits,
                        where + " tensor " + std::string(e.tensor));
    v.group = e.group;
    if (!e.scaleTensor.empty()) {
        const TensorEntry& t = data.entry(e.scaleTensor);
        const std::string what = where + " tensor " + std::string(t.name);
        if (t.dtype == DType::Ggml)
            v.hasScale = readBlockScale(spec, data.bytes(e.scaleTensor), e.scaleIndex, v.scale, what);
        else if (dtypeIsFloat(t.dtype) && dtypeBits(t.dtype) >= 16) { // quantized scales (bnb nested) are not read here
            v.scale = readFloat(data.bytes(e.scaleTensor), t.dtype, e.scaleIndex, what);
            v.hasScale = true;
        }
    }
    if (!e.zeroTensor.empty() && e.zeroPieceCount > 0) {
        const TensorEntry& t = data.entry(e.zeroTensor);
        const uint32_t bits = t.dtype == DType::Ggml ? e.wordBits : dtypeBits(t.dtype);
        const uint64_t raw = readPieces(data.bytes(e.zeroTensor), std::span(e.zeroPieces, e.zeroPieceCount), bits,
                                        where + " tensor " + std::string(t.name));
        v.hasZero = true;
        switch (spec.zeroPoint) {
        case ZeroPointKind::StoredMinusOne: v.zero = double(raw) + 1; break;
        case ZeroPointKind::FloatBias:
            v.zero = t.dtype == DType::BF16 ? bf16ToFloat(uint16_t(raw))
                   : t.dtype == DType::F32  ? [&] { float f; const uint32_t u = uint32_t(raw); std::memcpy(&f, &u, 4); return double(f); }()
                                            : halfToFloat(uint16_t(raw));
            break;
        case ZeroPointKind::BlockMin: v.zero = halfToFloat(uint16_t(raw)); break;
        default: v.zero = double(raw); break;
        }
    } else if (spec.zeroPoint == ZeroPointKind::Implicit) {
        v.hasZero = true;
        v.zero = double(uint64_t(1) << (params.bits - 1));
    }
    return v;
}

uint32_t blockBytesOf(const LayoutSpec& spec)
{
    uint32_t bytes = 0;
    for (const BlockField& f : spec.blockFields)
        bytes = std::max(bytes, f.byteOffset + f.byteSize);
    return bytes;
}

int blockFieldAt(const LayoutSpec& spec, uint64_t byte)
{
    const uint32_t blockBytes = blockBytesOf(spec);
    if (blockBytes == 0)
        return -1;
    const uint64_t inBlock = byte % blockBytes;
    for (size_t i = 0; i < spec.blockFields.size(); ++i)
        if (inBlock >= spec.blockFields[i].byteOffset
            && inBlock < uint64_t(spec.blockFields[i].byteOffset) + spec.blockFields[i].byteSize)
            return int(i);
    return -1;
}

ByteContent byteContent(const WordMap& map, uint64_t byte)
{
    ByteContent out;
    const LayoutSpec& spec = map.spec();
    if (const uint32_t blockBytes = blockBytesOf(spec); blockBytes > 0) {
        out.field = blockFieldAt(spec, byte);
        out.block = byte / blockBytes;
        out.fieldStart = out.field >= 0 && byte % blockBytes == spec.blockFields[size_t(out.field)].byteOffset;
    }
    const uint32_t wordBits = map.wordBits();
    const uint64_t word = byte * 8 / wordBits;
    const int first = int(byte * 8 % wordBits); // the byte's first bit in its word
    const std::vector<WordPiece> pieces = map.piecesIn(word);
    for (size_t i = 0; i < pieces.size(); ++i) {
        const WordPiece& p = pieces[i];
        const int lo = std::max(int(p.bit), first), hi = std::min(int(p.bit) + int(p.width), first + 8);
        if (lo < hi)
            out.codes.push_back({p.row, p.col, uint8_t(lo - first), uint8_t(hi - lo), uint8_t(i)});
    }
    return out;
}

uint64_t WordMap::tileIndex(uint64_t row, uint64_t col) const
{
    if (m_flat)
        return (row * m_params.K + col) % m_tileCols;
    return (row % m_tileRows) * std::min<uint64_t>(m_tileCols, m_params.K) + col % m_tileCols;
}

BlockValues blockValues(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t row, uint64_t col,
                        bool wholeBlock)
{
    const FamilyRow* family = familyRowOf(weight.format);
    if (!family || !family->blockValues)
        return {};
    if (row >= weight.outFeatures() || col >= weight.inFeatures())
        throw Error(ErrorContext{ckpt.path, weight.name},
                    "element (" + std::to_string(row) + ", " + std::to_string(col) + ") outside the matrix");
    return family->blockValues(ckpt, weight, row, col, wholeBlock);
}

} // namespace qs
