#include "formats/layoutspec.h"

#include "formats/family.h"

#include <algorithm>

namespace qs {

std::string_view packAxisName(PackAxis a)
{
    switch (a) {
    case PackAxis::None: return "none";
    case PackAxis::In: return "in (K)";
    case PackAxis::Out: return "out (N)";
    case PackAxis::Tile: return "tile";
    case PackAxis::Block: return "block";
    }
    return "?";
}

std::string rowGroupsText(const std::vector<RowGroup>& groups)
{
    std::string out;
    for (size_t i = 0; i < groups.size();) {
        size_t j = i;
        while (j < groups.size() && groups[j].bits == groups[i].bits && groups[j].rows == groups[i].rows)
            ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(groups[i].bits) + "b " + std::to_string(j - i) + "x"
            + std::to_string(groups[i].rows);
        i = j;
    }
    return out;
}

std::vector<RowGroup> parseRowGroups(std::string_view text, uint64_t maxRows)
{
    std::vector<RowGroup> out;
    uint64_t total = 0, words = 0;
    size_t at = 0;
    // Digits at `at` (at most maxRows), then `end` unless it is 0.
    const auto number = [&](char end, uint64_t& v) {
        v = 0;
        const size_t from = at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9' && v <= maxRows)
            v = v * 10 + uint64_t(text[at++] - '0');
        if (at == from || v > maxRows)
            return false;
        return end == 0 || (at < text.size() && text[at++] == end);
    };
    while (at < text.size()) {
        uint64_t bits = 0, count = 0, rows = 0;
        if (!number('b', bits) || at >= text.size() || text[at++] != ' ' || !number('x', count) || !number(0, rows)
            || bits == 0 || bits > 32 || count == 0 || rows == 0 || count > maxRows / rows
            || total + count * rows > maxRows)
            return {};
        for (uint64_t i = 0; i < count; ++i) {
            out.push_back({int(bits), rows, total, words});
            total += rows;
            words += ceilDiv(rows * bits, 32);
        }
        if (at < text.size() && (text.compare(at, 2, ", ") != 0 || (at += 2) >= text.size()))
            return {};
    }
    return out;
}

const RowGroup& rowGroupOf(const std::vector<RowGroup>& groups, uint64_t row)
{
    const auto it = std::upper_bound(groups.begin(), groups.end(), row,
                                     [](uint64_t r, const RowGroup& g) { return r < g.firstRow; });
    return it == groups.begin() ? groups.front() : *(it - 1);
}

void LayoutRegistry::add(LayoutSpec spec)
{
    const auto it = std::find_if(m_specs.begin(), m_specs.end(), [&](const LayoutSpec& s) { return s.id == spec.id; });
    if (it != m_specs.end())
        *it = std::move(spec);
    else
        m_specs.push_back(std::move(spec));
}

const LayoutSpec* LayoutRegistry::find(std::string_view id) const
{
    for (const LayoutSpec& s : m_specs)
        if (s.id == id)
            return &s;
    return nullptr;
}

const LayoutRegistry& layoutRegistry()
{
    static const LayoutRegistry registry = [] {
        LayoutRegistry r;
        for (const FamilyRow& family : familyRows())
            family.registerLayouts(r);
        return r;
    }();
    return registry;
}

const LayoutSpec* findLayoutSpec(std::string_view id)
{
    return layoutRegistry().find(id);
}

} // namespace qs
