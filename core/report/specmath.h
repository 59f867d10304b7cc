#pragma once
// Small shared helpers of the report builders: the bytes a spec's tensor occupies, the ggml
// type behind a gguf-* spec, and how numbers are written.
#include "container/ggmltype.h"
#include "formats/layoutspec.h"
#include "base/shapetext.h"

#include <cstdint>

namespace qs::report {

// The ggml type of a gguf-* spec; nullptr for other containers.
const GgmlTypeInfo* ggmlTypeOfSpec(const LayoutSpec& spec);
// Element count of a shape, throwing qs::Error on overflow.
uint64_t shapeProduct(const std::vector<uint64_t>& shape, const std::string& what);
// Stored bytes of tensor `t` at `p` ("block" tensors count whole blocks).
uint64_t tensorBytes(const LayoutSpec& spec, const LayoutTensor& t, const LayoutParams& p);
const LayoutTensor* findTensor(const LayoutSpec& spec, std::string_view role);
// `v` with `digits` significant digits (%g); "inf" / "-inf".
std::string num(double v, int digits = 4);

} // namespace qs::report
