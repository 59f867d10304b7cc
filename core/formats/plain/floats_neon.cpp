// NEON path of the plain float kernels (arm64): F16 and BF16 eight at a time, F32 copied; the
// other dtypes, and the tail, through the scalar reference. Safetensors data need not be aligned,
// so everything is read as bytes.
#include "formats/plain/floats.h"

#include "base/half_neon.h"

#include <cstring>

namespace qs {

void floatElementsNeon(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const uint8_t* p = t.bytes.data();
    uint64_t i = 0;
    if (t.dtype == DType::F16) {
        for (; i + 8 <= n; i += 8)
            neon::halves8(p + 2 * (e0 + i), out + i);
    } else if (t.dtype == DType::BF16) {
        for (; i + 8 <= n; i += 8)
            neon::bf16s8(p + 2 * (e0 + i), out + i);
    } else if (t.dtype == DType::F32) {
        std::memcpy(out, p + 4 * e0, 4 * n);
        return;
    }
    floatElementsScalar(t, e0 + i, n - i, out + i);
}

} // namespace qs
