// Layout specs of the unquantized element types (every plain format id of formats/formatid.h:
// packAxis None, one stored value per element) and of the formats detection only names
// (EXL2, EXL3, quanto: their member tensors are listed, no locate()).
#include "formats/layoutspec_util.h"
#include "formats/plain/plain.h"

#include "container/dtype.h"
#include "formats/formatid.h"

namespace qs {

namespace {

using layout::tensor;

constexpr DType kPlainTypes[] = {DType::BOOL,    DType::U8,          DType::I8,          DType::U16,     DType::I16,
                                 DType::U32,     DType::I32,         DType::U64,         DType::I64,     DType::F16,
                                 DType::BF16,    DType::F32,         DType::F64,         DType::C64,     DType::F8_E4M3,
                                 DType::F8_E5M2, DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ, DType::F8_E8M0, DType::F4,
                                 DType::F6_E2M3, DType::F6_E3M2};

LayoutSpec plainSpec(DType t)
{
    const unsigned bits = dtypeBits(t);
    const std::string dt(dtypeName(t));
    const bool subByte = bits < 8;
    LayoutSpec s;
    s.id = plainFormatId(t);
    s.name = "plain " + dt;
    s.bitWidths = {int(bits)};
    s.wordBits = subByte ? 8 : int(bits);
    s.packAxis = subByte ? PackAxis::In : PackAxis::None;
    s.straddles = bits == 6;
    s.signedness = dtypeIsFloat(t)                                                  ? CodeSignedness::Float
        : (t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64) ? CodeSignedness::TwosComplement
                                                                                    : CodeSignedness::Unsigned;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = weight[n][k]";
    s.exactness = dtypeIsFloat(t) && bits <= 32 && t != DType::C64 ? "exact: every value is representable in f32"
        : t == DType::F64                                          ? "RNE of binary64 to f32"
                                                                   : "not a float weight: values are shown raw";
    s.tensors = {tensor(
        "weight", dt, "[N, K] (any rank: leading dims fold into N)",
        [](const LayoutParams& p) {
            return std::vector<uint64_t>{p.N, p.K};
        },
        "the values")};
    s.padding = subByte ? "N*K*bits must be a multiple of 8 (safetensors rule)" : "none";
    if (subByte)
        s.notes = {"the safetensors reference defines no element order for sub-byte dtypes; locate() assumes "
                   "torch's float4_e2m1fn_x2 order (element 0 in the low bits) and, for FP6, an LSB-first stream: "
                   "unverified until a real file is seen"};
    s.locate = [bits](const LayoutParams& p, uint64_t row, uint64_t col) {
        if (bits >= 8)
            return layout::plainElement("weight", bits, p, row, col);
        ElementLocation e;
        e.tensor = "weight";
        e.wordBits = 8;
        const uint64_t bit = (row * p.K + col) * bits;
        e.pieceCount = layout::streamPieces(e.pieces, bit, int(bits), 0, 8);
        e.slot = 8 % bits == 0 ? int((row * p.K + col) % (8 / bits)) : -1;
        return e;
    };
    return s;
}

LayoutSpec namedOnly(const char* id, const char* name, std::vector<std::string> roles, const char* note)
{
    LayoutSpec s;
    s.id = id;
    s.name = name;
    s.packAxis = PackAxis::None;
    s.formula = "not decoded: named by detection only";
    for (std::string& r : roles)
        s.tensors.push_back(tensor(
            std::move(r), "?", "not modelled", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
            "member tensor detection recognises", true));
    s.notes = {note, "no locate(): the element layout is not modelled"};
    return s;
}

} // namespace

void registerPlainLayouts(LayoutRegistry& r)
{
    for (DType t : kPlainTypes)
        r.add(plainSpec(t));
    r.add(namedOnly("exl2", "ExLlamaV2 EXL2",
                    {"q_weight", "q_scale", "q_scale_max", "q_groups", "q_group_map", "q_perm", "q_invperm"},
                    "mixed 2..8-bit groups with a row permutation"));
    r.add(namedOnly("exl3", "ExLlamaV3 EXL3", {"trellis", "suh", "svh", "mcg", "mul1"}, "trellis-coded quantization"));
    r.add(namedOnly("quanto", "optimum-quanto", {"weight._data", "weight._scale", "weight._shift"},
                    "qtensor data with scale (and shift)"));
}

} // namespace qs
