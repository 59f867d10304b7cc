// Detection of EXL2 linear layers: q_weight with q_groups and the row permutation. The row
// groups are read here (a small tensor) so that the weight's parameters carry its bit mix.
#include "formats/exl2/exl2.h"

#include "base/error.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"
#include "formats/layoutspec.h"

#include <QtGlobal>

#include <cstdio>

namespace qs::detect {

bool exl2Group(Context& cx, const Group& g)
{
    const int iw = g.find("q_weight");
    if (iw < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "exl2";
    // q_group_map is what the loader computes from q_groups; a file that stores it keeps it here.
    for (const char* role : {"q_weight", "q_scale", "q_scale_max", "q_groups", "q_invperm", "q_perm", "q_group_map"})
        cx.add(w, role, g.find(role));
    const int ip = g.find("q_invperm") >= 0 ? g.find("q_invperm") : g.find("q_perm"), ig = g.find("q_groups");
    const auto& W = cx.tensor(iw).shape;
    if (W.size() == 2 && ip >= 0 && cx.tensor(ip).shape.size() == 1) {
        const uint64_t K = cx.tensor(ip).shape[0];
        w.shape = {W[1], K};
        if (ig >= 0)
            if (auto q = cx.ints(ig, w)) {
                if (cx.tensor(ig).dtype == DType::I16) // uint16 in the kernel
                    for (int64_t& v : *q)
                        v = int64_t(uint16_t(v));
                try {
                    const std::vector<Exl2Group> groups = exl2Groups(*q, W[0], K, "weight '" + g.prefix + "'");
                    std::vector<RowGroup> runs;
                    uint64_t codeBits = 0;
                    bool sameRows = true;
                    for (const Exl2Group& x : groups) {
                        runs.push_back({x.bits, x.rows, x.firstRow, x.firstPacked});
                        codeBits += x.rows * uint64_t(x.bits);
                        sameRows = sameRows && x.rows == groups.front().rows;
                    }
                    w.bits = groups.front().bits; // the widest
                    w.groupSize = sameRows ? int64_t(groups.front().rows) : 0;
                    char average[32];
                    std::snprintf(average, sizeof average, "%.3f", double(codeBits) / double(K));
                    w.params[QT_TRANSLATE_NOOP("qs::Message", "row_groups")] = rowGroupsText(runs);
                    w.params[QT_TRANSLATE_NOOP("qs::Message", "code_bits_average")] = average;
                } catch (const Error& e) {
                    w.notes.push_back(
                        {QT_TRANSLATE_NOOP("qs::Message", "q_groups do not describe q_weight: %1"), {e.what()}});
                }
            }
    }
    if (const std::string method = cx.config().method(); !method.empty() && method != "exl2")
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "config says quant_method %1, but the tensors are EXL2's"), {method}});
    w.evidence.push_back(
        {QT_TRANSLATE_NOOP("qs::Message", "q_weight %1 with q_groups and the row permutation (EXL2)"), {shapeText(W)}});
    if (w.shape.empty())
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
