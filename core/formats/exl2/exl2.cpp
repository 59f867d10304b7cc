#include "formats/exl2/exl2.h"

#include "base/half.h"
#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/dtype.h"

#include <algorithm>
#include <string>

namespace qs {

namespace {

// An integer member's values; q_groups and the permutations are int16 in the kernel, read
// unsigned there (the loader's .short() of a permutation past 32767 wraps the same way).
std::vector<int64_t> exl2Ints(const WeightData& w, const std::string& role)
{
    const TensorEntry& e = w.entry(role);
    if (!dtypeIsInteger(e.dtype))
        failWeight(w.weight,
                   "'" + std::string(e.name) + "' is " + std::string(dtypeName(e.dtype)) + ", not an integer tensor");
    const auto bytes = w.bytes(role);
    const uint64_t n = bytes.size() * 8 / dtypeBits(e.dtype);
    std::vector<int64_t> v(n);
    for (uint64_t i = 0; i < n; ++i)
        v[i] = e.dtype == DType::I16 ? int64_t(uint16_t(readInt(bytes, e.dtype, i))) : readInt(bytes, e.dtype, i);
    return v;
}

// Checks that `perm` holds each of 0 .. K-1 once.
void checkPermutation(const LogicalWeight& lw, const std::vector<int64_t>& perm, const std::string& tensor)
{
    std::vector<bool> seen(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) {
        const int64_t v = perm[k];
        if (v < 0 || uint64_t(v) >= perm.size() || seen[size_t(v)])
            failWeight(lw,
                       "'" + tensor + "' is not a permutation of 0.." + std::to_string(perm.size() - 1) + ": "
                           + (v < 0 || uint64_t(v) >= perm.size() ? "value " : "repeated value ") + std::to_string(v)
                           + " at " + std::to_string(k));
        seen[size_t(v)] = true;
    }
}

} // namespace

std::vector<Exl2Group> exl2Groups(std::span<const int64_t> q, uint64_t packedRows, uint64_t K, const std::string& what)
{
    if (q.empty() || q.size() % 2)
        throw Error(what + ": q_groups holds " + std::to_string(q.size()) + " values, not (bits, first row) pairs");
    const uint64_t G = q.size() / 2;
    std::vector<Exl2Group> out(G);
    uint64_t row = 0;
    for (uint64_t g = 0; g < G; ++g) {
        const int64_t b = q[2 * g];
        const std::string name = "q_groups: group " + std::to_string(g) + " ";
        if (b != 2 && b != 3 && b != 4 && b != 5 && b != 6 && b != 8)
            throw Error(what + ": " + name + "has bit width " + std::to_string(b) + ", not 2, 3, 4, 5, 6 or 8");
        if (g > 0 && b > out[g - 1].bits)
            throw Error(what + ": " + name + "(" + std::to_string(b) + " bits) follows a group of "
                        + std::to_string(out[g - 1].bits)
                        + " bits: the reconstruct kernel reads the 8, 6, 5, 4, 3 and 2-bit rows in that order");
        const int64_t first = q[2 * g + 1], end = g + 1 < G ? q[2 * g + 3] : int64_t(packedRows);
        if ((g == 0 && first != 0) || end <= first || uint64_t(end) > packedRows)
            throw Error(what + ": " + name + "starts at packed row " + std::to_string(first) + ", the next at "
                        + std::to_string(end) + ": not an increasing range from 0 within q_weight's "
                        + std::to_string(packedRows) + " rows");
        const uint64_t packed = uint64_t(end - first);
        if ((packed * 32) % uint64_t(b) || (packed * 32 / uint64_t(b)) % 32)
            throw Error(what + ": " + name + "spans " + std::to_string(packed)
                        + " packed rows, not whole 32-row groups of " + std::to_string(b) + "-bit codes");
        out[g] = {int(b), uint64_t(first), row, packed * 32 / uint64_t(b)};
        row += out[g].rows;
    }
    if (row != K)
        throw Error(what + ": q_groups over q_weight's " + std::to_string(packedRows) + " packed rows give "
                    + std::to_string(row) + " input rows, the permutation " + std::to_string(K));
    return out;
}

Exl2Place Exl2::place(uint64_t stored) const
{
    const auto it = std::upper_bound(groups.begin(), groups.end(), stored,
                                     [](uint64_t r, const Exl2Group& g) { return r < g.firstRow; });
    const uint64_t g = uint64_t(it - groups.begin()) - 1;
    const uint64_t bit = (stored - groups[g].firstRow) * uint64_t(groups[g].bits);
    return {uint32_t(groups[g].firstPacked + bit / 32), uint8_t(bit % 32), uint8_t(groups[g].bits), uint32_t(g)};
}

float Exl2::scale(uint64_t g, uint64_t n) const
{
    const unsigned s = scaleCode(g, n) + 1;
    return halfToFloat(floatToHalf(float(s * s) * scaleMax[g]));
}

float Exl2::value(const Exl2Place& p, uint64_t n) const
{
    const int q = int(code(p, n)) - (1 << (p.bits - 1));
    return halfToFloat(floatToHalf(float(q) * scale(p.group, n)));
}

Exl2 exl2State(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    Exl2 s;

    const TensorEntry& qw = w.entry("q_weight");
    if (qw.dtype != DType::I32 || qw.shape.size() != 2)
        failWeight(lw,
                   "'" + std::string(qw.name) + "' is " + std::string(dtypeName(qw.dtype)) + " " + shapeText(qw.shape)
                       + ", EXL2 stores I32 [packed rows, N]");
    const uint64_t packedRows = qw.shape[0];
    s.rows = qw.shape[1];
    s.qweight = w.bytes("q_weight").data();

    // The kernel writes stored row j to row q_perm[j]; the loader makes q_perm from q_invperm
    // when the file has none.
    std::vector<int64_t> perm;
    if (w.has("q_perm")) {
        perm = exl2Ints(w, "q_perm");
        checkPermutation(lw, perm, std::string(w.entry("q_perm").name));
    }
    if (w.has("q_invperm")) {
        std::vector<int64_t> inv = exl2Ints(w, "q_invperm");
        checkPermutation(lw, inv, std::string(w.entry("q_invperm").name));
        if (perm.empty()) {
            perm.resize(inv.size());
            for (size_t k = 0; k < inv.size(); ++k)
                perm[size_t(inv[k])] = int64_t(k);
        }
    }
    if (perm.empty())
        failWeight(lw, "has neither q_invperm nor q_perm");
    s.cols = perm.size();
    if (lw.shape.size() != 2 || lw.outFeatures() != s.rows || lw.inFeatures() != s.cols)
        failWeight(lw,
                   "q_weight and the permutation give [" + std::to_string(s.rows) + ", " + std::to_string(s.cols)
                       + "], the weight is " + shapeText(lw.shape));
    s.storedRow.resize(s.cols);
    for (uint64_t j = 0; j < s.cols; ++j)
        s.storedRow[size_t(perm[j])] = uint32_t(j);

    s.groups = exl2Groups(exl2Ints(w, "q_groups"), packedRows, s.cols, what);
    const uint64_t G = s.groups.size();

    const TensorEntry& sc = w.entry("q_scale");
    if (s.rows % 8)
        failWeight(lw, "N = " + std::to_string(s.rows) + " is not a multiple of 8: q_scale packs 8 columns a word");
    if (sc.dtype != DType::I32 || w.bytes("q_scale").size() != checkedMul(checkedMul(G, s.rows / 8, what), 4, what))
        failWeight(lw,
                   "'" + std::string(sc.name) + "' is " + std::string(dtypeName(sc.dtype)) + " " + shapeText(sc.shape)
                       + ", EXL2 stores I32 [" + std::to_string(G) + ", " + std::to_string(s.rows / 8) + "] for "
                       + std::to_string(G) + " groups");
    s.qscale = w.bytes("q_scale").data();

    const TensorEntry& qm = w.entry("q_scale_max");
    if (qm.dtype != DType::F16 || w.bytes("q_scale_max").size() != 2 * G)
        failWeight(lw,
                   "'" + std::string(qm.name) + "' is " + std::string(dtypeName(qm.dtype)) + " " + shapeText(qm.shape)
                       + ", EXL2 stores F16 [" + std::to_string(G) + "]");
    s.scaleMax.resize(G);
    for (uint64_t g = 0; g < G; ++g)
        s.scaleMax[g] = halfToFloat(floatToHalf(halfAt(w.bytes("q_scale_max").data() + 2 * g) * (1.0f / 256)));

    s.column.resize(s.cols);
    for (uint64_t k = 0; k < s.cols; ++k)
        s.column[k] = s.place(s.storedRow[k]);
    return s;
}

void exl2RowsScalar(const Exl2& s, uint64_t r0, uint64_t r1, float* out)
{
    for (uint64_t n = r0; n < r1; ++n)
        for (uint64_t k = 0; k < s.cols; ++k)
            *out++ = s.value(s.column[k], n);
}

void dequantExl2Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Exl2, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, exl2State, exl2RowsScalar,
        simdKernel(path, SimdKernels<Exl2RowsFn>{QS_X86(exl2RowsAvx512), QS_X86(exl2RowsAvx2)}));
}

} // namespace qs
