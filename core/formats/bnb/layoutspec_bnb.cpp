// Layout specs of bitsandbytes 4-bit NF4 / FP4 and LLM.int8 (spec safetensors-quant.md B.5,
// B.6). locate() uses the element order of formats/bnb/bnb.h: the [N, K] weight flattened row-major,
// element 2i in the HIGH nibble of byte i, one absmax per `blocksize` flat elements.
#include "formats/layoutspec_util.h"
#include "formats/bnb/bnb.h"

namespace qs {

namespace {

using layout::blobTensor;
using layout::tensor;

// LayoutParams::groupSize carries the blocksize (flat elements per absmax); 0 = bnb's default 64.
uint64_t blocksize(const LayoutParams& p)
{
    return p.groupSize ? p.groupSize : 64;
}

uint64_t blocks(const LayoutParams& p)
{
    return ceilDiv(p.N * p.K, blocksize(p));
}

LayoutSpec bnb4(bool fp4)
{
    LayoutSpec s;
    s.id = fp4 ? "bnb-fp4" : "bnb-nf4";
    s.name = fp4 ? "bitsandbytes FP4 (its own E2M1 variant)" : "bitsandbytes NF4 (4-bit NormalFloat)";
    s.bitWidths = {4};
    s.wordBits = 8;
    s.packAxis = PackAxis::Block;
    s.slotOrder = {1, 0};
    s.signedness = CodeSignedness::Float;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = fp4 ? "W[e] = FP4[q_e] * absmax[e / blocksize], e = n*K + k; FP4 = sign bit 3, |x| = "
                      "[0, 1/192, 2/3, 1, 1/3, 1/2, 1/6, 1/4][q & 7]"
                    : "W[e] = NF4[q_e] * absmax[e / blocksize], e = n*K + k (NF4: 16 N(0,1) quantiles in [-1, 1])";
    s.exactness = "one f32 product, then one RNE to the JSON dtype in the reference; nested absmax = "
                  "fl32(fl32(nested_quant_map[u8] * nested_absmax[block / 256]) + nested_offset)";
    s.tensors = {
        tensor(
            "weight", "U8", "[ceil(N*K/2), 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.N * p.K, 2), 1};
            },
            "flat 4-bit codes, element 2i in the high nibble of byte i"),
        tensor(
            "absmax", "F32", "[ceil(N*K/blocksize)] (U8 codes when nested)",
            [](const LayoutParams& p) { return std::vector<uint64_t>{blocks(p)}; }, "per-block absmax"),
        tensor(
            "quant_map", "F32", "[16]", [](const LayoutParams&) { return std::vector<uint64_t>{16}; },
            "the code table (informational: dequantization uses the built-in table)", true),
        tensor(
            "nested_absmax", "F32", "[ceil(blocks/256)]",
            [](const LayoutParams& p) { return std::vector<uint64_t>{ceilDiv(blocks(p), 256)}; },
            "nested only: absmax of each 256 absmax codes", true),
        tensor(
            "nested_quant_map", "F32", "[256]", [](const LayoutParams&) { return std::vector<uint64_t>{256}; },
            "nested only: the 8-bit signed dynamic map of the absmax codes", true),
        blobTensor("quant_state", "U8", "[bytes of the JSON]",
                   "JSON: quant_type, blocksize, dtype, shape [N, K], nested_blocksize, nested_offset"),
    };
    s.padding = "when N*K is odd the last low nibble is padding; the last block may be short";
    s.notes = {"the original shape lives only in the quant_state JSON (the weight is a flat byte column)",
               "element 0 sits in the HIGH nibble (torch float4 and NVFP4 put it in the low one)",
               "with nested quantization absmax holds U8 codes: the block's scale index names that code"};
    if (fp4)
        s.notes.push_back("code 8 decodes to +0.0: upstream writes the Python int -0 (spec B.5 says -0.0)");
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t e = row * p.K + col;
        ElementLocation loc;
        loc.tensor = "weight";
        loc.wordBits = 8;
        loc.slot = (e & 1) ? 0 : 1;
        loc.pieceCount = 1;
        loc.pieces[0] = {e / 2, uint8_t((e & 1) ? 0 : 4), 4};
        loc.group = e / blocksize(p);
        loc.scaleTensor = "absmax";
        loc.scaleIndex = loc.group;
        return loc;
    };
    return s;
}

LayoutSpec bnbInt8()
{
    LayoutSpec s;
    s.id = "bnb-int8";
    s.name = "bitsandbytes LLM.int8 (row-wise absmax, SCB)";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = CodeSignedness::TwosComplement;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = q[n][k] * SCB[n] * fl32(1/127)";
    s.exactness = "two f32 roundings: fl32(fl32(q * SCB) * 0.007874015718698502f)";
    s.tensors = {
        tensor(
            "weight", "I8", "[N, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            "signed codes, one per byte"),
        tensor(
            "SCB", "F32", "[N]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.N}; }, "per-row absmax"),
        tensor(
            "weight_format", "U8", "[]", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
            "0 = row-major (older col32/turing/ampere tile values are not decoded)", true),
    };
    s.padding = "none: one byte per element";
    s.notes = {"outlier handling (llm_int8_threshold) acts on activations; nothing extra is stored"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("weight", 8, p, row, col);
        e.group = 0;
        e.scaleTensor = "SCB";
        e.scaleIndex = row;
        return e;
    };
    return s;
}

} // namespace

void registerBnbLayouts(LayoutRegistry& r)
{
    r.add(bnb4(false));
    r.add(bnb4(true));
    r.add(bnbInt8());
}

} // namespace qs
