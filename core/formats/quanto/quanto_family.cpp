#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/wordmap.h"
#include "formats/quanto/quanto.h"

#include <QtGlobal>

namespace qs {
namespace {

bool isQuanto(const FormatInfo& format)
{
    return format.family == FormatFamily::Quanto;
}

DequantRowsFn quantoDequant(const FormatInfo& format)
{
    return isQuanto(format) ? dequantQuantoRows : nullptr;
}

// qint2/qint4 codes with their scales and float shifts (biases = -shift) or integer zeros;
// qint8 codes stored q + 128 with the zero 128, as the offset formats give them. qfloat8
// codes are floats: none.
bool quantoCodes(const WeightData& data, WeightCodes& c, CodeParts parts)
{
    const Quanto s = quantoState(data);
    if (s.kind == Quanto::Kind::QFloat8)
        return false;
    c.rows = s.rows;
    c.cols = s.cols;
    c.bits = s.bits;
    c.scaleType = s.scale.dtype();
    const int offset = s.kind == Quanto::Kind::QInt8 ? 128 : 0;
    if (parts == CodeParts::All) {
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = uint8_t(int(s.code(e / s.viewCols, e % s.viewCols)) + offset);
    }
    // A view row is a group of viewCols flat elements (a whole row when ungrouped).
    rowGroups(c, s.viewCols, [&](uint64_t r) { return s.scale.at(r); });
    if (c.groups == 0)
        return true;
    const uint64_t cells = c.groups * c.rows;
    const auto viewRow = [&](uint64_t i) { return (i % c.rows) * c.groups + i / c.rows; }; // grid cell -> view row
    if (s.kind == Quanto::Kind::QInt8) {
        c.zeros.assign(cells, offset);
    } else if (!s.intShift.empty()) {
        c.zeros.resize(cells);
        for (uint64_t i = 0; i < cells; ++i)
            c.zeros[i] = s.shiftInt(viewRow(i));
    } else {
        c.biases.resize(cells);
        for (uint64_t i = 0; i < cells; ++i)
            c.biases[i] = -s.shift.at(viewRow(i));
    }
    return true;
}

// An element's code, scale and shift as the kernels read them: a float shift as the bias it is
// (w = q * scale - shift), an integer shift as the zero point it is.
void quantoElementValues(const WeightData& data, uint64_t row, uint64_t col, ElementValues& v)
{
    const Quanto s = quantoState(data);
    const uint64_t e = row * s.cols + col, r = e / s.viewCols;
    v.code = s.code(r, e % s.viewCols);
    v.group = s.viewCols < s.cols ? col / s.viewCols : 0;
    v.hasScale = true;
    v.scale = s.scale.at(r);
    if (s.kind != Quanto::Kind::QBits)
        return;
    v.hasZero = true;
    if (s.intShift.empty()) {
        v.zeroKind = ZeroPointKind::FloatBias;
        v.zero = -double(s.shift.at(r));
    } else {
        v.zeroKind = ZeroPointKind::Stored;
        v.zero = s.shiftInt(r);
    }
}

VerifyFn quantoVerify(const FormatInfo& format)
{
    return isQuanto(format) ? verifyQuantoWeight : nullptr;
}

GroupScalesFn quantoGroupScalesOf(const FormatInfo& format)
{
    return isQuanto(format) ? quantoGroupScales : nullptr;
}

const char* quantoDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "optimum-quanto");
}

// Member names with dots of their own: the PackedTensor's inner tensor first, so that it is not
// split as a member "_data" of a module "<prefix>.weight._data".
constexpr std::string_view kQuantoDottedMembers[] = {"weight._data._data", "weight._data", "weight._scale",
                                                     "weight._shift"};

void quantoFormats(FormatList& out)
{
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"quanto-qint2", 2, GroupAffine, Int, true, false, NoRule, false, false, "",
         "optimum-quanto qint2: codes packed along the first axis, scale and float shift per row or group"},
        {"quanto-qint4", 4, GroupAffine, Int, true, false, NoRule, false, false, "",
         "optimum-quanto qint4: codes packed along the first axis, scale and float shift per row or group"},
        {"quanto-qint8", 8, RowInt8, Int, true, false, NoRule, false, false, "",
         "optimum-quanto qint8: int8 codes, one scale per output row"},
        {"quanto-qfloat8", 8, ScaledFloat, Flt, false, false, NoRule, false, false, "",
         "optimum-quanto qfloat8: float8 values (E4M3FN, E5M2, E4M3FNUZ), one scale per output row"},
    };
    for (const FormatRow& f : kFormats)
        out.add(f);
}

} // namespace

const FamilyRow& quantoFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Quanto, "quanto", quantoFormats, registerQuantoLayouts, quantoDequant, quantoCodes};
        // detection
        r.readConfig = detect::quantoReadConfig;
        r.detectGroup = detect::quantoGroup;
        r.dottedMembers = kQuantoDottedMembers;
        r.targets = &quantoTargets();
        r.displayName = quantoDisplayName;
        // verify and group scales
        r.verify = quantoVerify;
        r.groupScales = quantoGroupScalesOf;
        r.elementValues = quantoElementValues;
        r.recipe = &recipeFromConfig();
        return r;
    }();
    return row;
}

} // namespace qs
