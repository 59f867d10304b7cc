#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/compressed_tensors/ct.h"

namespace qs {
namespace {

DequantRowsFn ctDequant(const FormatInfo& format)
{
    const std::string& f = format.id;
    return f == "compressed-tensors" || f == "compressed-tensors-int" || f == "compressed-tensors-fp8" ? dequantCtRows
                                                                                                    : nullptr;
}

bool ctCodes(const WeightData& data, WeightCodes& c)
{
    const CtPacked s = ctPackedState(data);
    if (s.source == CtPacked::Source::Fp8)
        return false;
    const int offset = 1 << (s.bits - 1);
    c.rows = s.rows;
    c.cols = s.cols;
    c.codes.resize(s.rows * s.cols);
    for (uint64_t n = 0; n < s.rows; ++n)
        for (uint64_t k = 0; k < s.cols; ++k)
            c.codes[n * s.cols + k] = uint8_t(s.code(n, k) + offset);
    c.groups = s.groups;
    c.scales.resize(s.groups * s.rows);
    c.zeros.resize(s.groups * s.rows);
    for (uint64_t g = 0; g < s.groups; ++g)
        for (uint64_t n = 0; n < s.rows; ++n) {
            c.scales[g * s.rows + n] = s.scaleAt(n, g);
            c.zeros[g * s.rows + n] = s.zeroAt(n, g) + offset;
        }
    c.gIdx.resize(s.cols);
    for (uint64_t k = 0; k < s.cols; ++k)
        c.gIdx[k] = int32_t(s.group(k));
    return true;
}

} // namespace

const FamilyRow& compressedTensorsFamily()
{
    static const FamilyRow row{FormatFamily::CompressedTensors, "compressed_tensors", registerCompressedTensorsLayouts, ctDequant, ctCodes,
                               // detection
                               nullptr, detect::compressedTensorsGroup, nullptr};
    return row;
}

} // namespace qs
