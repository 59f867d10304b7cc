#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/ggml/ggml.h"

namespace qs {
namespace {

// Every GGUF type, plain ones included, goes through the ggml row kernels.
DequantRowsFn ggmlDequant(const FormatInfo&)
{
    return dequantGgufWeightRows;
}

} // namespace

const FamilyRow& ggmlFamily()
{
    static const FamilyRow row{FormatFamily::Gguf, "ggml", registerGgufLayouts, ggmlDequant, nullptr,
                               // detection
                               detect::ggufCheckpoint, nullptr, nullptr};
    return row;
}

} // namespace qs
