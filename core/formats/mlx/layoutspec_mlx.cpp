// Layout specs of MLX quantization (spec safetensors-quant.md B.8): affine (2, 3, 4, 5, 6,
// 8 bits; 3/5/6-bit codes straddle words) and the floating-point modes mxfp4, nvfp4 and mxfp8.
// Every mode packs codes as one LSB-first bitstream per row along K in uint32 words, as
// formats/mlx/mlx.h reads them; leading batch dims (MoE experts) fold into N.
#include "formats/layoutspec_util.h"
#include "formats/mlx/mlx.h"

namespace qs {

namespace {

using layout::tensor;

struct Mode {
    const char* id;
    const char* name;
    int bits; // 0: affine, any of 2..8
    uint64_t group; // 0: LayoutParams::groupSize (default 64)
    const char* scaleDtype;
    const char* formula;
};

// The floating-point modes fix b and g; affine takes them from the parameters.
uint64_t bitsOf(const Mode& m, const LayoutParams& p)
{
    return uint64_t(m.bits ? m.bits : p.bits);
}

uint64_t mlxGroupOf(const Mode& m, const LayoutParams& p)
{
    return m.group ? m.group : p.groupSize ? p.groupSize : 64;
}

LayoutSpec mlx(const Mode& m)
{
    const bool affine = m.bits == 0;
    LayoutSpec s;
    s.id = m.id;
    s.name = m.name;
    s.bitWidths = affine ? std::vector<int>{2, 3, 4, 5, 6, 8} : std::vector<int>{m.bits};
    s.packAxis = PackAxis::In;
    s.straddles = affine;
    s.signedness = affine ? CodeSignedness::Unsigned : CodeSignedness::Float;
    s.zeroPoint = affine ? ZeroPointKind::FloatBias : ZeroPointKind::None;
    s.formula = m.formula;
    s.exactness = affine ? "two RNE in the scales dtype (multiply, then add), as the MLX CPU path computes; "
                           "GPU kernels may fuse"
                         : "not decoded here: the code's float value times the decoded scale";
    s.tensors = {
        tensor(
            "weight", "U32", "[N, K*b/32]",
            [m](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K * bitsOf(m, p), 32)};
            },
            "codes along K, LSB-first bitstream per row"),
        tensor(
            "scales", m.scaleDtype, "[N, K/g]",
            [m](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, mlxGroupOf(m, p))};
            },
            affine ? "per-group scale (may be negative)" : "per-group scale"),
    };
    if (affine)
        s.tensors.push_back(tensor(
            "biases", m.scaleDtype, "[N, K/g]",
            [m](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, mlxGroupOf(m, p))};
            },
            "per-group bias added after scaling (-z*s for converted integer zeros)"));
    s.padding = "none: K % g == 0 and K*b % 32 == 0 are required";
    s.refuses = [m](const LayoutParams& p) -> std::string {
        if (p.K % mlxGroupOf(m, p) != 0)
            return "the group size must divide K";
        if (p.K * bitsOf(m, p) % 32 != 0)
            return "K * bits must be a multiple of 32";
        return {};
    };
    s.notes = {"leading dims ([E, N, K*b/32] for MoE experts) fold into N: row = flat index over them",
               "b and g are not fixed by the shapes alone (32 * words / groups = b * g): take them from the config"};
    if (affine)
        s.notes.push_back("an element's bias is biases[scaleIndex] (a float in the scales dtype, not bit fields)");
    if (!affine)
        s.notes.push_back("detected and laid out only: no dequantizer is registered for this mode");
    s.locate = [m](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t g = mlxGroupOf(m, p), groups = ceilDiv(p.K, g), b = bitsOf(m, p);
        ElementLocation e;
        e.tensor = "weight";
        e.pieceCount = layout::streamPieces(e.pieces, col * b, int(b), row * ceilDiv(p.K * b, 32), 32);
        e.slot = 32 % b == 0 ? int(col % (32 / b)) : -1;
        e.group = col / g;
        e.scaleTensor = "scales";
        e.scaleIndex = row * groups + e.group;
        if (m.bits == 0)
            e.zeroTensor = "biases";
        return e;
    };
    return s;
}

} // namespace

void registerMlxLayouts(LayoutRegistry& r)
{
    r.add(mlx({"mlx-affine", "MLX affine (mlx.core.quantize)", 0, 0, "F16",
               "W[n][k] = q[n][k] * scales[n][k/g] + biases[n][k/g], q unsigned 0..2^b-1"}));
    r.add(mlx({"mlx-mxfp4", "MLX mxfp4", 4, 32, "U8", "W[n][k] = E2M1(q[n][k]) * 2^(scales[n][k/32] - 127)"}));
    r.add(mlx({"mlx-nvfp4", "MLX nvfp4", 4, 16, "F8_E4M3", "W[n][k] = E2M1(q[n][k]) * fp8(scales[n][k/16])"}));
    r.add(mlx({"mlx-mxfp8", "MLX mxfp8", 8, 32, "U8", "W[n][k] = E4M3(q[n][k]) * 2^(scales[n][k/32] - 127)"}));
}

} // namespace qs
