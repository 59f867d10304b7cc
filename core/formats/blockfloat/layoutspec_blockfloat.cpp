// Layout specs of the block-scaled floats: gpt-oss MXFP4 experts (transformers' blocks and
// scales), ModelOpt NVFP4 and ModelOpt FP8. Both FP4 layouts put element 2j of a row in the LOW
// nibble of byte j, as formats/blockfloat/blockfloat.h reads them.
#include "formats/layoutspec_util.h"
#include "formats/blockfloat/blockfloat.h"

namespace qs {

namespace {

using layout::tensor;

// Element (row, col) of two E2M1 codes a byte along K, a scale byte per `block` codes.
LayoutSpec fp4Base(const char* id, const char* name)
{
    LayoutSpec s;
    s.id = id;
    s.name = name;
    s.bitWidths = {4};
    s.wordBits = 8;
    s.packAxis = PackAxis::In;
    s.signedness = CodeSignedness::Float;
    s.zeroPoint = ZeroPointKind::None;
    return s;
}

LayoutSpec mxfp4()
{
    LayoutSpec s = fp4Base("hf-mxfp4", "gpt-oss MXFP4 experts (transformers quant_method mxfp4)");
    s.formula = "W[e][n][k] = E2M1(q[e][n][k]) * 2^(scales[e][n][k/32] - 127)";
    s.exactness = "one f32 product, exact but for overflow (scale 254 with |E2M1| >= 2 gives +-inf); "
                  "upstream's bf16 holds every product exactly, subnormals included";
    s.tensors = {
        tensor(
            "blocks", "U8", "[N, K/32, 16] (MoE: [E, out, K/32, 16])",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 32), 16};
            },
            "32 E2M1 codes per 16-byte block, element 2j in the LOW nibble of byte j"),
        tensor(
            "scales", "U8", "[N, K/32] (MoE: [E, out, K/32])",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 32)};
            },
            "E8M0 exponent per block: 2^(e - 127)"),
    };
    s.padding = "none: K is whole blocks of 32";
    s.refuses = [](const LayoutParams& p) -> std::string {
        return p.K % 32 ? "K must be a multiple of 32" : std::string();
    };
    s.notes = {"the experts' leading dim folds into N: row = e * out + n; the logical weight is [E, out, in]",
               "gate_up_proj rows interleave gate (0::2) and up (1::2) as stored; nothing is reordered",
               "code 8 decodes to -0.0 (transformers' and gpt-oss' FP4_VALUES)",
               "scale byte 255 (NaN in the OCP MX spec) decodes as transformers' ldexp does: +-inf, 0 * inf = NaN"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        return layout::nibbleBlockElement("blocks", "scales", 32, p, row, col);
    };
    return s;
}

LayoutTensor activationScale()
{
    return tensor(
        "input_scale", "F32", "[]", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
        "activation scale (static W4A4 / W8A8): not used to dequantize the weight", true);
}

LayoutSpec nvfp4()
{
    LayoutSpec s = fp4Base("modelopt-nvfp4", "NVIDIA ModelOpt NVFP4");
    s.formula = "W[n][k] = E2M1(q[n][k]) * (fp8(weight_scale[n][k/16]) * weight_scale_2)";
    s.exactness = "two f32 roundings, as NVFP4QTensor.dequantize: the block scale fp8 * weight_scale_2, then the "
                  "E2M1 value times it";
    s.tensors = {
        tensor(
            "weight", "U8", "[N, K/2]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 2)};
            },
            "E2M1 pairs along K, element 2j in the LOW nibble"),
        tensor(
            "weight_scale", "F8_E4M3", "[N, K/16]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 16)};
            },
            "FP8 E4M3 scale per 16 elements"),
        tensor(
            "weight_scale_2", "F32", "[]", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
            "global multiplier of the block scales (weight amax / (6 * 448)): the reciprocal of "
            "compressed-tensors' weight_global_scale"),
        activationScale(),
    };
    s.padding = "ModelOpt pads K to whole blocks of 16";
    s.refuses = [](const LayoutParams& p) -> std::string {
        return p.K % 16 ? "K must be a multiple of 16" : std::string();
    };
    s.notes = {"group size is fixed at 16 (LayoutParams::groupSize is ignored)",
               "code 8 decodes to +0.0: ModelOpt's e2m1_values table has +0 there"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        return layout::nibbleBlockElement("weight", "weight_scale", 16, p, row, col);
    };
    return s;
}

LayoutSpec fp8()
{
    LayoutSpec s;
    s.id = "modelopt-fp8";
    s.name = "NVIDIA ModelOpt FP8 (per tensor)";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = CodeSignedness::Float;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = fp8(weight[n][k]) * weight_scale";
    s.exactness = "one f32 product (from_quantized_weight), as compressed-tensors' FP8";
    s.tensors = {
        tensor(
            "weight", "F8_E4M3", "[N, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            "FP8 E4M3 values"),
        tensor(
            "weight_scale", "F32", "[]", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
            "per-tensor scale (weight amax / 448)"),
        activationScale(),
    };
    s.padding = "none: one byte per element";
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("weight", 8, p, row, col);
        e.scaleTensor = "weight_scale";
        e.scaleIndex = 0;
        return e;
    };
    return s;
}

} // namespace

void registerBlockFloatLayouts(LayoutRegistry& r)
{
    r.add(mxfp4());
    r.add(nvfp4());
    r.add(fp8());
}

} // namespace qs
