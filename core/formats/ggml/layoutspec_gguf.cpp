// Layout specs of every decodable ggml type (spec gguf.md section 2), derived from the block
// data in formats/ggml/ggml_blocks.h and the type table in container/ggmltype.h: nothing here is
// written per type, so the spec cannot drift from the block map the views and tests use.
#include "formats/layoutspec.h"
#include "formats/layoutspec_util.h"

#include "container/ggmltype.h"
#include "formats/formatid.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"

#include <algorithm>
#include <array>
#include <string>

namespace qs {

namespace {

// The roles that hold the element's own code, in the order they are looked for: plain types
// store a Value, scalar-quantized types a Code, IQ types a GridIndex, TQ1_0 a TritByte.
constexpr std::array<GgmlPieceRole, 4> kCodeRoles = {GgmlPieceRole::Value, GgmlPieceRole::Code,
                                                     GgmlPieceRole::GridIndex, GgmlPieceRole::TritByte};

GgmlPieceRole codeRole(const GgmlElementLocation& loc)
{
    for (GgmlPieceRole r : kCodeRoles)
        for (const GgmlBitPiece& p : loc.view())
            if (p.role == r)
                return r;
    return GgmlPieceRole::Code;
}

// Splits the pieces of `role` (bits continue across bytes in ggml_blocks) on word edges of
// the tensor; `blockStart` is the block's first byte in the tensor. Returns the piece count,
// or 4 when more than three pieces would be needed.
uint8_t splitPieces(BitPiece* out, const GgmlElementLocation& loc, GgmlPieceRole role, uint64_t blockStart,
                    uint32_t wordBits)
{
    uint8_t count = 0;
    for (const GgmlBitPiece& p : loc.view()) {
        if (p.role != role)
            continue;
        uint64_t bit = (blockStart + p.byteOffset) * 8 + p.bitOffset;
        uint32_t left = p.width;
        while (left > 0) {
            const uint32_t inWord = uint32_t(bit % wordBits);
            const uint32_t w = std::min(left, wordBits - inWord);
            if (count == 3)
                return 4;
            out[count++] = {bit / wordBits, uint8_t(inWord), uint8_t(w)};
            bit += w;
            left -= w;
        }
    }
    return count;
}

bool hasRole(const GgmlElementLocation& loc, GgmlPieceRole role)
{
    return std::any_of(loc.view().begin(), loc.view().end(), [role](const GgmlBitPiece& p) { return p.role == role; });
}

// The smallest word (8..64 bits, at least one element for plain types) in which the code and
// the block min of every element fit in three pieces, checked over eight blocks so that every
// alignment of the block to the word occurs.
uint32_t chooseWordBits(int type, const GgmlTypeInfo& t)
{
    for (uint32_t wordBits : {8u, 16u, 32u, 64u}) {
        if (t.blockWeights == 1 && wordBits < 8 * t.blockBytes)
            continue;
        bool fits = true;
        for (uint32_t e = 0; e < t.blockWeights && fits; ++e) {
            const GgmlElementLocation loc = ggmlLocateElement(type, e);
            for (uint64_t b = 0; b < 8 && fits; ++b) {
                BitPiece tmp[3];
                fits = splitPieces(tmp, loc, codeRole(loc), b * t.blockBytes, wordBits) <= 3
                    && splitPieces(tmp, loc, GgmlPieceRole::SuperMin, b * t.blockBytes, wordBits) <= 3;
            }
        }
        if (fits)
            return wordBits;
    }
    return 64;
}

CodeSignedness signedness(const GgmlTypeInfo& t, std::span<const GgmlBlockField> fields)
{
    const std::string_view n = t.name;
    if (t.blockWeights == 1)
        return n.front() == 'I' ? CodeSignedness::TwosComplement : CodeSignedness::Float;
    if (std::any_of(fields.begin(), fields.end(),
                    [](const GgmlBlockField& f) { return f.kind == GgmlFieldKind::Codes8; }))
        return CodeSignedness::TwosComplement;
    if (n.find("FP") != std::string_view::npos) // MXFP4 / NVFP4: an FP4 E2M1 table index
        return CodeSignedness::Float;
    return CodeSignedness::Unsigned;
}

LayoutSpec ggufSpec(int type, const GgmlTypeInfo& t)
{
    const auto fields = ggmlBlockFields(type);
    const uint32_t wordBits = chooseWordBits(type, t);
    const std::string bw = std::to_string(t.blockWeights), bb = std::to_string(t.blockBytes);
    const GgmlElementLocation loc0 = ggmlLocateElement(type, 0);
    const bool plain = t.blockWeights == 1;

    LayoutSpec s;
    s.id = ggufFormatId(t.name);
    s.name = "GGUF " + std::string(t.name);
    s.container = LayoutContainer::Gguf;
    const FormatInfo* info = findFormat(s.id);
    if (info && info->bits > 0)
        s.bitWidths = {info->bits};
    s.wordBits = int(wordBits);
    s.packAxis = plain ? PackAxis::None : PackAxis::Block;
    s.straddles = !plain && wordBits == 8
        && std::any_of(loc0.view().begin(), loc0.view().end(),
                       [](const GgmlBitPiece& p) { return p.bitOffset + p.width > 8; });
    s.signedness = signedness(t, fields);
    s.zeroPoint = hasRole(loc0, GgmlPieceRole::SuperMin) ? ZeroPointKind::BlockMin : ZeroPointKind::None;
    s.formula = plain ? "W[n][k] = element n*K + k"
                      : "W[n][k] = element k%" + bw + " of block n*(K/" + bw + ") + k/" + bw
            + (info ? " (" + info->description + ")" : "");
    s.exactness = "ggml's scalar to_float, bit for bit (formats/ggml/ggml.h)";
    s.tensors = {{"weight", plain ? std::string(t.name) : "block",
                  plain ? "[N, K]" : "[N, K/" + bw + "] blocks of " + bb + " bytes",
                  [bwt = uint64_t(t.blockWeights)](const LayoutParams& p) {
                      return std::vector<uint64_t>{p.N, p.K / bwt};
                  },
                  "the GGUF tensor, rows of K/" + bw + " blocks back to back", false}};
    for (const GgmlBlockField& f : fields)
        s.blockFields.push_back(
            {std::string(f.name), f.offset, f.size, std::string(ggmlFieldKindName(f.kind)), std::string(f.meaning)});
    s.padding = plain ? "none" : "K must be a multiple of " + bw + " (ggml rejects other rows); no padding exists";
    if (!plain)
        s.refuses = [bw, blockWeights = uint64_t(t.blockWeights)](const LayoutParams& p) {
            return p.K % blockWeights ? "K is not a multiple of the block size " + bw : std::string();
        };
    if (!plain) {
        s.notes.push_back(
            "locate(): pieces are " + std::string(ggmlPieceRoleName(codeRole(loc0))) + " bits in "
            + std::to_string(wordBits)
            + "-bit words of the tensor; scaleIndex is the byte of the block's super-scale; sub-block scales, "
              "signs and grid lanes are in ggmlLocateElement");
    }
    s.locate = [type, wordBits, blockWeights = uint64_t(t.blockWeights),
                blockBytes = uint64_t(t.blockBytes)](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = "weight";
        e.wordBits = wordBits;
        e.group = row * (p.K / blockWeights) + col / blockWeights;
        const uint64_t blockStart = e.group * blockBytes;
        const GgmlElementLocation loc = ggmlLocateElement(type, uint32_t(col % blockWeights));
        e.pieceCount = splitPieces(e.pieces, loc, codeRole(loc), blockStart, wordBits);
        for (const GgmlBitPiece& piece : loc.view())
            if (piece.role == GgmlPieceRole::SuperScale) {
                e.scaleTensor = "weight";
                e.scaleIndex = blockStart + piece.byteOffset;
                break;
            }
        if (hasRole(loc, GgmlPieceRole::SuperMin)) {
            e.zeroTensor = "weight";
            e.zeroPieceCount = splitPieces(e.zeroPieces, loc, GgmlPieceRole::SuperMin, blockStart, wordBits);
        }
        return e;
    };
    return s;
}

} // namespace

void registerGgufLayouts(LayoutRegistry& r)
{
    for (const GgmlTypeInfo& t : ggmlTypes())
        if (ggmlTypeDecodable(t.id))
            r.add(ggufSpec(t.id, t));
    r.add(
        layout::namedOnly("gguf-ik", "ik_llama.cpp GGUF types", {"weight"},
                          "ik_llama.cpp's own ggml type ids (133 and up: IQ2_K ... IQ6_K, IQ*_KS, IQ*_KT, IQ*_BN, "
                          "Q6_0, the row-interleaved *_R4/_R8): one tensor a weight, rows of blocks after a row "
                          "scale for the _KS/_KT/_BN types; the reader checks a tensor's bytes against ik_llama.cpp's "
                          "row size where its type traits are known"));
    r.add(layout::namedOnly("gguf-i2_s", "BitNet I2_S (GGUF)", {"weight"},
                            "BitNet's ggml fork: 2-bit codes 0, 1, 2 for -1, 0, +1, four a byte, then one f32 scale "
                            "(32 bytes kept), weights / 4 + 32 bytes in all; id 36 is mainline's removed IQ4_NL_4_4, "
                            "told apart by that size. The order of the codes depends on the quantizing machine (x86: "
                            "128 weights in 32 bytes, element j at byte j % 32, bits 6 - 2 * (j / 32); ARM: 64 in 16; "
                            "or four rows a byte)"));
}

} // namespace qs
