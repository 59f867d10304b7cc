#include "formats/layoutsize.h"

#include "base/error.h"
#include "base/intmath.h"
#include "container/dtype.h"
#include "formats/formatid.h"

#include <algorithm>

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

std::string layoutRefusal(const LayoutSpec& spec, const LayoutParams& p)
{
    if (spec.container != LayoutContainer::Gguf && !spec.bitWidths.empty()
        && std::find(spec.bitWidths.begin(), spec.bitWidths.end(), p.bits) == spec.bitWidths.end()) {
        std::string list;
        for (int b : spec.bitWidths)
            list += (list.empty() ? "" : ", ") + std::to_string(b);
        return std::to_string(p.bits) + " bits not supported (supported: " + list + ")";
    }
    if (spec.refuses)
        if (std::string why = spec.refuses(p); !why.empty())
            return why;
    for (const LayoutTensor& t : spec.tensors)
        if (!t.optional && sizedByParams(t) && shapeProduct(t.shape(p), t.role) == 0)
            return t.role + " has no elements at K = " + std::to_string(p.K) + ", N = " + std::to_string(p.N);
    if (!spec.locate)
        return {};
    // The last element must lie inside its tensor: catches K or N that the packing cannot hold.
    const ElementLocation e = spec.locate(p, p.N - 1, p.K - 1);
    const LayoutTensor* t = findTensor(spec, e.tensor);
    if (!t || !sizedByParams(*t))
        return "locate() names a tensor without a fixed shape";
    const uint64_t bytes = tensorBytes(spec, *t, p);
    for (int i = 0; i < e.pieceCount; ++i)
        if (ceilDiv(e.pieces[i].word * e.wordBits + e.pieces[i].bit + e.pieces[i].width, 8) > bytes)
            return "K = " + std::to_string(p.K) + ", N = " + std::to_string(p.N) + " do not fit the packing ("
                + spec.padding + ")";
    return {};
}

} // namespace qs
