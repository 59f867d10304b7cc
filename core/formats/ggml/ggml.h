#pragma once
// Dequantization of every ggml tensor type (../shared/spec/gguf.md section 2) to float32,
// bit for bit as ggml's scalar to_float: a plain scalar reference and an AVX2 fast path.
#include "container/ggmltype.h"
#include "formats/findings.h"
#include "formats/kernel.h"
#include "formats/probecheck.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace qs {

// The block geometry (container/ggmltype.h) of a type that has a dequantizer here; nullptr
// for unknown and removed ids.
const GgmlTypeInfo* ggmlTypeTraits(int ggmlType);
// True when the type has a dequantizer here (every id that ggmlTypeTraits knows).
bool ggmlTypeDecodable(int ggmlType);

// Dequantizes `nrows` rows of `rowElems` elements each (rowElems a multiple of the block size;
// the rows lie back to back in `src`, as in a GGUF blob). Unknown types or a bad rowElems throw.
// The reference is a plain loop in ggml's order of operations; the fast path uses the AVX-512
// or AVX2 kernel of the type that `path` allows (the caller checked bestSimdPath()) and OpenMP
// for large inputs.
void dequantizeGgmlRowsRef(int ggmlType, const uint8_t* src, uint64_t nrows, uint64_t rowElems, float* out);
void dequantizeGgmlRows(int ggmlType, const uint8_t* src, uint64_t nrows, uint64_t rowElems, float* out, SimdPath path);

// DequantRowsFn for the logical weights of format gguf-*: member role "weight" is the stored
// tensor; rows are the product of its outer dims, each inFeatures() (= ne0) long.
void dequantGgufWeightRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

namespace ggml {
// Block kernels: `nblocks` consecutive blocks of one type -> nblocks * blockWeights floats.
using BlocksFn = void (*)(const uint8_t* src, uint64_t nblocks, float* out);
BlocksFn refBlocksFn(int ggmlType); // nullptr when unknown
BlocksFn avx2BlocksFn(int ggmlType); // nullptr when the type has no AVX2 kernel (the reference serves)
BlocksFn avx512BlocksFn(int ggmlType); // nullptr when the type has no AVX-512 kernel (AVX2 serves)
BlocksFn neonBlocksFn(int ggmlType); // arm64; nullptr when the type has no NEON kernel
// The kernel `path` runs for the type: its best one at or below the path.
BlocksFn blocksFn(int ggmlType, SimdPath path);
} // namespace ggml

struct RecipeRules;
// general.file_type and llama-quantize's type choice and fallback rules (ggml_recipe.cpp).
const RecipeRules& ggmlRecipeRules();

// verify's checks of GGUF block weights (ggml_verify.cpp).
void verifyGgufWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
// Their block or sub-block scales (ggml_scales.cpp): whether the weight's type has a block scale
// and blocks that tile the row, whether it is a k-quant with integer sub-block scales, the grid.
bool ggufBlockScalesApply(const Checkpoint& ckpt, const LogicalWeight& w);
bool ggufSubBlockScalesApply(const Checkpoint& ckpt, const LogicalWeight& w);
GroupScales ggufGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                            const std::atomic<bool>* cancel);
// The decoded block parameters of an element (FamilyRow::blockValues, formats/wordmap.h).
struct BlockValues;
BlockValues ggufBlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col,
                            bool wholeBlock);
// The same from one block's bytes of `type`, for element e of the block; empty for a type
// without blocks.
struct BlockValue;
std::vector<BlockValue> ggufBlockValuesOf(int type, const uint8_t* block, uint32_t e, bool wholeBlock);

// The report's seed probe checks of the block map and the row dequantizers (ggml_probe.cpp).
std::vector<ProbeCheck> ggmlProbe(const ProbeInput& in);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_gguf.cpp) and what the family writes (ggml_targets.cpp).
void registerGgufLayouts(LayoutRegistry& r);
const FamilyTargets& ggmlTargets();

namespace detect {
class Context;
struct Group;
// Detection (ggml_detect.cpp), reached through the family row (formats/family.h).
bool ggufCheckpoint(Context& cx);
} // namespace detect

} // namespace qs
