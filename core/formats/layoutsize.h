#pragma once
// The bytes a LayoutSpec's tensors occupy at given parameters: the one size model. The layout
// report's tables and the budget table (analysis/budget.h) both count a format's bytes here.
#include "container/ggmltype.h"
#include "formats/layoutspec.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// The ggml type of a gguf-* spec; nullptr for other containers.
const GgmlTypeInfo* ggmlTypeOfSpec(const LayoutSpec& spec);
// Element count of a shape, throwing qs::Error on overflow.
uint64_t shapeProduct(const std::vector<uint64_t>& shape, const std::string& what);
// Stored bytes of tensor `t` at `p` ("block" tensors count whole blocks), its elements of
// `dtype` when one is given (a tensor a variant stores in another dtype: bnb's nested absmax codes).
uint64_t tensorBytes(const LayoutSpec& spec, const LayoutTensor& t, const LayoutParams& p, std::string_view dtype = {});
const LayoutTensor* findTensor(const LayoutSpec& spec, std::string_view role);
// Why `spec` cannot lay out an [N, K] weight at `p`, empty when it can: a code width it does not
// list, the spec's own refuses() (its padding rule), a tensor without elements, or a last element
// that falls outside its tensor. The one judge of a layout's parameters: the budget table leaves
// out a row it refuses, the layout report refuses to describe them.
std::string layoutRefusal(const LayoutSpec& spec, const LayoutParams& p);

} // namespace qs
