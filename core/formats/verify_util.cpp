#include "formats/verify_util.h"

#include "base/shapetext.h"
#include "formats/layoutspec.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace qs {

size_t VerifyReport::errors() const
{
    return size_t(std::count_if(findings.begin(), findings.end(), [](const VerifyFinding& f) { return !f.warning; }));
}

namespace {

bool equalBytes(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed)
{
    return stored.size() == packed.size() && std::equal(stored.begin(), stored.end(), packed.begin());
}

// First differing 32-bit word (or byte, for byte-sized data), for the message.
Message firstDiff(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed, size_t unit)
{
    if (stored.size() != packed.size())
        return {QT_TRANSLATE_NOOP("qs::Message", "size %1 bytes, expected %2"),
                {std::to_string(stored.size()), std::to_string(packed.size())}};
    for (size_t i = 0; i + unit <= stored.size(); i += unit)
        if (std::memcmp(stored.data() + i, packed.data() + i, unit) != 0) {
            uint32_t a = 0, b = 0;
            std::memcpy(&a, stored.data() + i, unit);
            std::memcpy(&b, packed.data() + i, unit);
            const auto hex = [unit](uint32_t v) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "0x%0*x", int(2 * unit), v);
                return std::string(buf);
            };
            return {unit == 4 ? QT_TRANSLATE_NOOP("qs::Message", "word %1 is %2, repacked %3")
                              : QT_TRANSLATE_NOOP("qs::Message", "byte %1 is %2, repacked %3"),
                    {std::to_string(i / unit), hex(a), hex(b)}};
        }
    return QT_TRANSLATE_NOOP("qs::Message", "trailing bytes differ");
}

} // namespace

void checkRoundTrip(const FindingSink& add, const char* check, std::span<const uint8_t> stored,
                    const std::vector<uint8_t>& repacked, const char* differ, size_t unit)
{
    if (!equalBytes(stored, repacked))
        add(check, Message::quoting(differ, {firstDiff(stored, repacked, unit)}));
}

void countNonFinite(const FindingSink& add, uint64_t bad, uint64_t total, const char* message)
{
    if (bad)
        add("scale", Message(message, {std::to_string(bad), std::to_string(total)}));
}

void checkGroups(const FindingSink& add, uint64_t K, uint64_t G, uint64_t groupSize,
                 const std::function<uint64_t(uint64_t)>& groupOf)
{
    std::vector<uint64_t> count(G, 0);
    for (uint64_t k = 0; k < K; ++k) {
        const uint64_t g = groupOf(k);
        if (g >= G) {
            add("g_idx",
                Message(QT_TRANSLATE_NOOP("qs::Message", "g_idx[%1] = %2 is not one of the %3 groups"),
                        {std::to_string(k), std::to_string(g), std::to_string(G)}));
            return;
        }
        ++count[g];
    }
    for (uint64_t g = 0; g < G; ++g)
        if (count[g] > groupSize) {
            add("g_idx",
                Message(QT_TRANSLATE_NOOP("qs::Message", "group %1 has %2 channels, group size is %3"),
                        {std::to_string(g), std::to_string(count[g]), std::to_string(groupSize)}));
            return;
        }
}

void checkSpecShapes(const FindingSink& add, const Checkpoint& ckpt, const LogicalWeight& w, uint64_t K, uint64_t N,
                     int bits, uint64_t groupSize, std::initializer_list<std::string_view> roles)
{
    const LayoutSpec* spec = findLayoutSpec(w.format);
    if (!spec)
        return;
    const LayoutParams lp{K, N, bits, groupSize};
    for (const LayoutTensor& t : spec->tensors) {
        const int idx = w.member(t.role);
        if (idx < 0 || !sizedByParams(t) || t.role == "bias"
            || (roles.size() && std::find(roles.begin(), roles.end(), t.role) == roles.end()))
            continue;
        const std::vector<uint64_t> want = t.shape(lp);
        const std::vector<uint64_t>& got = ckpt.tensors[size_t(idx)].shape;
        if (got != want) {
            add("shape",
                Message(QT_TRANSLATE_NOOP("qs::Message", "%1 is %2, the %3 layout gives %4 = %5"),
                        {t.role, shapeText(got), w.format, t.shapeFormula, shapeText(want)}));
        }
    }
}

} // namespace qs
