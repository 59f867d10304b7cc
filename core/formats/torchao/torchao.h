#pragma once
// torchao's safetensors checkpoints (torchao/prototype/safetensors: flatten_tensor_state_dict,
// which transformers' TorchAoHfQuantizer saves with). A tensor subclass `<module>.<attr>` is
// stored as its data tensors, named `<module>.<attr>:<data>` (the first release) or
// `<module>._<attr>_<data>` (since), and the header's __metadata__ holds `tensor_names` (a JSON
// list) and, under each name, {"_type": subclass, "_data": its attributes,
// "_tensor_data_names": the data it stored}.
//
// Decoded: the plain kinds. Float8Tensor: W = f32(qdata) * scale, float8 qdata, an f32 scale
// per tensor, row or block (_dequantize_affine_float8); Int8Tensor (weight-only int8):
// W = f32(qdata) * scale, int8 qdata, symmetric (dequantize_affine without a zero point). Both
// return the original dtype (`dtype` in the metadata): the f32 product rounded (RNE) to it, as
// their dequantize() does. The packed kinds (int4 tile-packed, MX, NVFP4, ...) are named only.
#include "formats/kernel.h"
#include "formats/kernelutil.h"

#include <cstdint>
#include <span>

namespace qs {

struct Torchao {
    uint64_t rows = 0, cols = 0; // qdata [..., cols], the leading dims folded into rows
    std::span<const uint8_t> qdata; // one byte an element
    DType codeType = DType::I8; // I8 or a float8 dtype
    FloatView scale;
    Shape dims, block; // qdata's shape; elements a scale covers along each dim
    std::vector<uint64_t> scaleStride; // the scale's row-major strides
    DType dtype = DType::F32; // what dequantize() returns

    float code(uint8_t q) const;
    // The scale index of element (row, col).
    uint64_t scaleIndex(uint64_t row, uint64_t col) const;
};
Torchao torchaoState(const WeightData& w);

// Rows [r0, r1) into out: the scalar reference.
void torchaoRowsScalar(const Torchao& s, uint64_t r0, uint64_t r1, float* out);
void dequantTorchaoRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

class LayoutRegistry;
// The row's layouts (layoutspec_torchao.cpp).
void registerTorchaoLayouts(LayoutRegistry& r);

class Checkpoint;
namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (torchao_detect.cpp), reached through the family row (formats/family.h): the
// metadata indexed once (readConfig), the groups holding a `qdata` member claimed.
void torchaoReadConfig(const Checkpoint& ckpt, QuantConfig& config);
bool torchaoGroup(Context& cx, const Group& group);
} // namespace detect

} // namespace qs
