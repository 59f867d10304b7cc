#pragma once
// The family table: one row per format family (one folder under core/formats/ each). Code
// outside a family's folder reaches the family's kernels, codes and layouts only through its
// row, and asks a format's traits (formats/formatid.h) instead of comparing ids, as Tiled
// reaches map formats only through its registry and ggml reads one type_traits row per type.
//
// A family fills its row in <folder>/<folder>_family.cpp; formats/families.def lists the rows,
// one line each.
#include "formats/findings.h"
#include "formats/formatid.h"
#include "formats/kernel.h"
#include "formats/probecheck.h"
#include "formats/scalegrid.h"
#include "formats/tally.h"

#include <span>
#include <vector>

namespace qs {

class LayoutRegistry;
struct WeightCodes;
struct FamilyTargets;
struct RecipeRules;
struct BlockValues;
struct ElementValues;
struct LayoutParams;
enum class CodeParts : uint8_t;
struct LogicalWeight;
namespace detect {
class Context;
struct Group;
class QuantConfig;
} // namespace detect

// The context of the names FamilyRow::displayName gives: the widgets translate them in it.
inline constexpr const char* kFamilyNameContext = "qs::FamilyName";

struct FamilyRow {
    FormatFamily family = FormatFamily::Unknown;
    std::string_view name; // the folder: "gptq", "ggml", ...
    // Adds the family's format ids with their traits (formatInfos() lists them).
    void (*formats)(FormatList& out) = nullptr;
    // Adds the family's LayoutSpecs (one per format id).
    void (*registerLayouts)(LayoutRegistry&) = nullptr;
    // The rows kernel of one of the family's formats; nullptr when that format is not decoded.
    DequantRowsFn (*dequant)(const FormatInfo& format) = nullptr;
    // The logical integer codes with their scales and zeros (FormatInfo::integerCodes);
    // false when this weight has none (a float-coded variant). Throws on malformed tensors.
    bool (*codes)(const WeightData& weight, WeightCodes& out, CodeParts parts) = nullptr;

    // ---- writing the family's formats: quantize, repack, the budget table (formats/target.h) ----
    const FamilyTargets* targets = nullptr;
    // What the views call one of the family's formats where they group formats ("GPTQ", "AWQ",
    // "bitsandbytes 4-bit": the Budget view's format filter), marked
    // QT_TRANSLATE_NOOP("qs::FamilyName", ...).
    const char* (*displayName)(const FormatInfo& format) = nullptr;

    // ---- Detection (formats/detect.cpp asks the rows in table order; formats/detectutil.h) ----
    // Adds the parts of the quantization config only this family defines (its sources, its
    // ConfigPart: GPTQModel's `dynamic`, MLX's per-module entries, compressed-tensors' groups).
    void (*readConfig)(const Checkpoint& ckpt, detect::QuantConfig& config) = nullptr;
    // Claims every tensor of a checkpoint whose container the family owns (GGUF); false
    // for any other container.
    bool (*detectCheckpoint)(detect::Context& cx) = nullptr;
    // Claims a group of tensors sharing a module prefix: adds its weights to cx and returns
    // true, or returns false and leaves the group to the next row.
    bool (*detectGroup)(detect::Context& cx, const detect::Group& group) = nullptr;
    // Runs once every weight is detected, for notes that need them all (GPTQ: v1 and v2
    // symmetric zeros mixed across weights).
    void (*detectAcross)(std::vector<LogicalWeight>& weights) = nullptr;
    // Member names with a dot of their own ("weight.absmax"): a tensor name splits into module
    // prefix and member before one of them rather than at its last dot.
    std::span<const std::string_view> dottedMembers = {};
    // Member names of the family's quantized weights: a tensor no row claims that is named so is
    // noted as a stray member.
    std::span<const std::string_view> memberNames = {};

    // --- verify, group scales, the layout report (analysis/verify.cpp, analysis/groupscales.cpp, report/) ---
    // The format checks of one of the family's formats; nullptr when the format has none
    // (verify then dequantizes the weight and checks its values).
    VerifyFn (*verify)(const FormatInfo& format) = nullptr;
    // The reader of a format's per-group parameters; nullptr when the format stores none.
    GroupScalesFn (*groupScales)(const FormatInfo& format) = nullptr;
    // Whether that reader applies to this weight's tensors (GGUF: a block type with a block
    // scale, whose blocks tile the row); nullptr: it applies to every weight of the format.
    bool (*groupScalesApply)(const Checkpoint& ckpt, const LogicalWeight& weight) = nullptr;
    // Whether the weight's blocks carry integer sub-block scales that GgufScaleLevel::SubBlock
    // shows (GGUF k-quants); nullptr: no format of the family has them.
    bool (*subBlockScales)(const Checkpoint& ckpt, const LogicalWeight& weight) = nullptr;
    // The layout report's seed probe checks of the family's own packer or block map on codes
    // placed by a spec's locate() (report/probes.cpp); nullptr: the placement checks only.
    PackProbeFn packProbe = nullptr;
    // The decoded block parameters of an element (formats/wordmap.h: blockValues); nullptr:
    // the family stores none beyond the element's scale and zero.
    BlockValues (*blockValues)(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t row, uint64_t col,
                               bool wholeBlock) = nullptr;
    // An element's code, group, scale and zero as the family's kernels read them (GPTQ: g_idx
    // and the v1 zero rules applied), into `out` (zeroKind is set); nullptr: read where the
    // LayoutSpec's locate() puts them (formats/wordmap.h: elementValues).
    void (*elementValues)(const WeightData& weight, uint64_t row, uint64_t col, ElementValues& out) = nullptr;
    // The locate() parameters a weight's format takes beyond K, N, bits and group size
    // (LayoutParams: AQLM's codebooks and out_group), from the detected weight; nullptr: none.
    void (*layoutParams)(const LogicalWeight& weight, LayoutParams& params) = nullptr;

    // ---- the statistics (analysis/stats.cpp, formats/tally.h) ----
    // The code-domain steps of weightHistograms for a weight (its code histogram, its stored
    // scales, its values tallied without dequantizing); nullptr, or a null result: the values
    // are dequantized and scanned, and no codes or scales are counted.
    WeightTallyFn weightTally = nullptr;
    // The reference round trip of one of the family's formats (compareRequantized); nullptr: the
    // format has none. A format can be requantized exactly when its row gives one.
    RequantizeFn (*requantize)(const FormatInfo& format) = nullptr;
    // Whether that round trip takes a code width, group size and symmetry (the affine rules:
    // stats --bits/--group-size/--sym, the Error view's settings); false: the format fixes them.
    bool requantizeShaped = false;

    // ---- the recipe summary (analysis/recipe.h, formats/recipe.h) ----
    // The nominal type and each weight's verdict against it; nullptr: the family has no recipe.
    const RecipeRules* recipe = nullptr;
};

std::span<const FamilyRow> familyRows();
// The row of `family`; nullptr for Other and Unknown (named only, never decoded).
const FamilyRow* familyRow(FormatFamily family);
// The row of a format id's family; nullptr when the id is unknown or its family has no row.
const FamilyRow* familyRowOf(std::string_view formatId);
// Whether the format's row gives a reference round trip for it (FamilyRow::requantize), and
// whether that one takes a code width, group size and symmetry (FamilyRow::requantizeShaped).
bool hasRequantizer(const FormatInfo& format);
bool requantizerTakesShape(const FormatInfo& format);
// The row's displayName of `format`; "" when its family has none.
const char* familyDisplayName(const FormatInfo& format);

// Each family's row (defined in its folder), one per line of formats/families.def.
#define QS_FAMILY(value, row, listed) const FamilyRow& row##Family();
#include "formats/families.def"
#undef QS_FAMILY

} // namespace qs
