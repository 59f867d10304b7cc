// Layout specs of torchao's safetensors kinds (formats/torchao/torchao.h): Float8Tensor and
// Int8Tensor, one stored byte a weight beside a scale; the packed kinds named only.
#include "formats/layoutspec_util.h"
#include "formats/torchao/torchao.h"

namespace qs {

namespace {

using layout::tensor;

LayoutSpec plainKind(bool float8)
{
    LayoutSpec s;
    s.id = float8 ? "torchao-float8" : "torchao-int8";
    s.name = float8 ? "torchao Float8Tensor (safetensors)" : "torchao Int8Tensor (safetensors)";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = float8 ? CodeSignedness::Float : CodeSignedness::TwosComplement;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = dtype(f32(qdata[n][k]) * scale[n / bn][k / bk]), (bn, bk) = qdata's shape / scale's shape";
    s.exactness = "one f32 product, then one RNE to the weight's original dtype (the metadata's dtype), as "
                  "dequantize() returns it";
    s.tensors = {
        tensor(
            "qdata", float8 ? "F8_E4M3" : "I8", "[N, K] (any rank: leading dims fold into N)",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            float8 ? "float8 values (E4M3; E5M2 and the fnuz variants accepted)" : "signed int8 codes, symmetric"),
        tensor(
            "scale", "F32", "[N / bn, K / bk]: [1, 1] per tensor, [N, 1] per row",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.groups()};
            },
            float8 ? "f32 scale per tensor, row or block" : "scale per tensor, row or block, in the weight's dtype"),
    };
    s.padding = "none: one byte per element";
    s.notes = {"stored as <module>.<attr>:<data> (torchao's first safetensors release) or <module>._<attr>_<data>, "
               "with __metadata__ tensor_names and, for each, {_type, _data: block_size, dtype, ..., "
               "_tensor_data_names}",
               "locate() shows a scale per row and group of K; a block of several rows shares the first row's "
               "scale: the Bit map's panel reads the element's own scale through the family"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("qdata", 8, p, row, col);
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "scale";
        e.scaleIndex = row * p.groups() + e.group;
        return e;
    };
    return s;
}

} // namespace

void registerTorchaoLayouts(LayoutRegistry& r)
{
    r.add(plainKind(true));
    r.add(plainKind(false));
    r.add(layout::namedOnly(
        "torchao", "torchao tensor subclasses (safetensors), not decoded",
        {"qdata", "scale", "zero_point", "scale_and_zero", "per_tensor_scale", "act_per_tensor_scale"},
        "the packed kinds torchao serializes (Int4Tensor, Int4TilePackedTo4dTensor, Int4PlainInt32Tensor, "
        "Int4OpaqueTensor, IntxUnpackedToInt8Tensor, MXTensor, NVFP4Tensor) and qdata members whose metadata is "
        "missing or names an unknown _type"));
}

} // namespace qs
