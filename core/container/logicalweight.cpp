#include "container/logicalweight.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/shapetext.h"

#include <algorithm>
#include <stdexcept>

namespace qs {

namespace {

bool keyLess(const WeightParams::value_type& item, std::string_view key)
{
    return item.first < key;
}

} // namespace

const std::vector<WeightParams::value_type>& WeightParams::items() const
{
    static const std::vector<value_type> none;
    return m_items ? *m_items : none;
}

std::vector<WeightParams::value_type>& WeightParams::own()
{
    if (!m_items)
        m_items = std::make_shared<std::vector<value_type>>();
    else if (m_items.use_count() > 1)
        m_items = std::make_shared<std::vector<value_type>>(*m_items);
    return *m_items;
}

std::string& WeightParams::operator[](std::string_view key)
{
    std::vector<value_type>& items = own();
    const auto it = std::lower_bound(items.begin(), items.end(), key, keyLess);
    if (it != items.end() && it->first == key)
        return it->second;
    return items.insert(it, {std::string(key), std::string()})->second;
}

const std::string& WeightParams::at(std::string_view key) const
{
    const auto it = find(key);
    if (it == end())
        throw std::out_of_range("no parameter '" + std::string(key) + "'");
    return it->second;
}

WeightParams::const_iterator WeightParams::find(std::string_view key) const
{
    const std::vector<value_type>& items = this->items();
    const auto it = std::lower_bound(items.begin(), items.end(), key, keyLess);
    return it != items.end() && it->first == key ? it : items.end();
}

uint64_t LogicalWeight::inFeatures() const
{
    return shape.empty() ? 1 : shape.back();
}

// Detection refuses a shape whose products overflow (formats/detect.cpp); a weight made
// elsewhere that still has one is an error here, never a wrapped count.
uint64_t LogicalWeight::outFeatures() const
{
    const auto n = checkedProduct(std::span<const uint64_t>(shape.data(), shape.empty() ? 0 : shape.size() - 1));
    if (!n)
        throw Error("weight '" + name + "': shape " + shapeText(shape) + " has more rows than 64 bits count");
    return *n;
}

uint64_t LogicalWeight::elementCount() const
{
    const auto n = checkedProduct(shape);
    if (!n)
        throw Error("weight '" + name + "': shape " + shapeText(shape) + " has more elements than 64 bits count");
    return *n;
}

double LogicalWeight::bitsPerWeight() const
{
    const uint64_t n = elementCount();
    return n ? double(storedBytes) * 8.0 / double(n) : 0.0;
}

int LogicalWeight::member(std::string_view role) const
{
    for (const auto& [r, idx] : members)
        if (r == role)
            return static_cast<int>(idx);
    return -1;
}

} // namespace qs
