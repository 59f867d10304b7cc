#include "formats/layoutsize.h"

#include "base/error.h"
#include "base/intmath.h"
#include "container/dtype.h"
#include "formats/formatid.h"

namespace qs {

const GgmlTypeInfo* ggmlTypeOfSpec(const LayoutSpec& spec)
{
    if (spec.container != LayoutContainer::Gguf)
        return nullptr;
    for (const GgmlTypeInfo& t : ggmlTypes())
        if (t.hasSize() && ggufFormatId(t.name) == spec.id)
            return &t;
    return nullptr;
}

uint64_t shapeProduct(const std::vector<uint64_t>& shape, const std::string& what)
{
    uint64_t n = 1;
    for (uint64_t d : shape)
        if (__builtin_mul_overflow(n, d, &n))
            throw Error("report: " + what + ": shape overflows 64 bits");
    return n;
}

uint64_t tensorBytes(const LayoutSpec& spec, const LayoutTensor& t, const LayoutParams& p, std::string_view dtype)
{
    const uint64_t count = shapeProduct(t.shape(p), spec.id + " " + t.role);
    const std::string type = dtype.empty() ? t.dtype : std::string(dtype);
    uint64_t unit = 0, bytes = 0;
    if (type == "block") {
        const GgmlTypeInfo* g = ggmlTypeOfSpec(spec);
        if (!g)
            throw Error("report: " + spec.id + ": block tensor without a ggml type");
        unit = g->blockBytes;
    } else if (const auto d = dtypeFromName(type); d && dtypeBits(*d)) {
        if (dtypeBits(*d) % 8) // sub-byte elements (F4, F6): packed, the last byte padded
            return count / 8 * dtypeBits(*d) + ceilDiv(count % 8 * dtypeBits(*d), 8);
        unit = dtypeBits(*d) / 8;
    } else if (const GgmlTypeInfo* g = ggmlTypeOfSpec(spec)) {
        unit = g->blockBytes; // plain ggml types (I8, F64 ...) with one weight per "block"
    } else {
        throw Error("report: " + spec.id + " " + t.role + ": unknown dtype " + type);
    }
    if (__builtin_mul_overflow(count, unit, &bytes))
        throw Error("report: " + spec.id + " " + t.role + ": size overflows 64 bits");
    return bytes;
}

const LayoutTensor* findTensor(const LayoutSpec& spec, std::string_view role)
{
    for (const LayoutTensor& t : spec.tensors)
        if (t.role == role)
            return &t;
    return nullptr;
}

} // namespace qs
