// A plain float tensor read as a reference (stats --ref, formats/dequant.h), through the float
// kernels.
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/dequant.h"
#include "formats/plain/floats.h"

namespace qs {

std::optional<DType> plainFloatType(const TensorEntry& t)
{
    if (t.dtype == DType::F32 || t.dtype == DType::F16 || t.dtype == DType::BF16)
        return t.dtype;
    if (t.dtype == DType::Ggml)
        switch (t.ggmlType) {
        case GgmlF32: return DType::F32;
        case GgmlF16: return DType::F16;
        case GgmlBF16: return DType::BF16;
        default: break;
        }
    return std::nullopt;
}

void readFloatRows(const Checkpoint& ckpt, const TensorEntry& t, DType type, uint64_t K, uint64_t r0, uint64_t r1,
                   float* out, SimdPath path)
{
    const FloatTensor ft{type, ckpt.bytes(t), 0, K};
    const auto kernel =
        simdKernel(path, SimdKernels<FloatElementsFn>{nullptr, QS_X86(floatElementsAvx2), QS_NEON(floatElementsNeon)});
    (kernel ? kernel : floatElementsScalar)(ft, r0 * K, (r1 - r0) * K, out);
}

} // namespace qs
