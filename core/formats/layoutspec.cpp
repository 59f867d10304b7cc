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
