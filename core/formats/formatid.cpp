#include "formats/formatid.h"

#include "base/asciicase.h"
#include "base/error.h"
#include "formats/family.h"

#include <cctype>
#include <vector>

namespace qs {
namespace {

// What a user typed, as ids are spelled: lowercase, without surrounding blanks.
std::string formatKey(std::string_view text)
{
    size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
        --e;
    return asciiLower(text.substr(b, e - b));
}

// The listing formatInfos() promises: plain element types, GGUF's types, the other families'
// ids in table order, the ids listed after them, "unknown".
std::vector<FormatInfo> buildRegistry()
{
    std::vector<FormatList> lists;
    for (const FamilyRow& row : familyRows()) {
        lists.emplace_back(row.family);
        if (row.formats)
            row.formats(lists.back());
    }
    std::vector<FormatInfo> out;
    const auto append = [&out](std::vector<FormatInfo>& formats) {
        for (FormatInfo& f : formats)
            out.push_back(std::move(f));
    };
    const auto place = [](FormatFamily f) { return f == FormatFamily::Plain ? 0 : f == FormatFamily::Gguf ? 1 : 2; };
    for (int p = 0; p < 3; ++p)
        for (size_t i = 0; i < lists.size(); ++i)
            if (place(familyRows()[i].family) == p)
                append(lists[i].own);
    for (FormatList& l : lists)
        append(l.afterFamilies);
    FormatInfo unknown;
    unknown.id = "unknown";
    unknown.description = "not recognised: listed, never decoded";
    out.push_back(std::move(unknown));
    return out;
}

const std::vector<FormatInfo>& registry()
{
    static const std::vector<FormatInfo> r = buildRegistry();
    return r;
}

} // namespace

std::span<const FormatInfo> formatInfos()
{
    return registry();
}

const FormatInfo* findFormat(std::string_view id)
{
    // Without a lowered copy: the dispatcher asks once per row chunk.
    for (const auto& f : registry())
        if (equalsIgnoreCase(f.id, id))
            return &f;
    return nullptr;
}

namespace {

FormatInfo formatInfoOf(const FormatRow& row, FormatFamily family)
{
    FormatInfo f;
    f.id = std::string(row.id);
    f.description = std::string(row.description);
    f.family = family;
    f.bits = row.bits;
    f.quantized = true;
    f.storage = row.storage;
    f.colour = row.colour;
    f.integerCodes = row.integerCodes;
    f.affineCodes = row.affineCodes;
    f.requantize = row.requantize;
    f.quantizeTarget = row.quantizeTarget;
    f.repackTarget = row.repackTarget;
    f.alias = std::string(row.alias);
    return f;
}

} // namespace

void FormatList::add(FormatInfo format)
{
    format.family = m_family;
    own.push_back(std::move(format));
}

void FormatList::add(const FormatRow& row)
{
    own.push_back(formatInfoOf(row, m_family));
}

void FormatList::addAfterFamilies(const FormatRow& row)
{
    afterFamilies.push_back(formatInfoOf(row, m_family));
}

void FormatList::addNamedOnly(const FormatRow& row)
{
    afterFamilies.push_back(formatInfoOf(row, FormatFamily::Other));
}

const FormatInfo* resolveFormatId(std::string_view text)
{
    const std::string key = formatKey(text);
    const FormatInfo* f = findFormat(key);
    if (!f)
        for (const auto& a : registry())
            if (!a.alias.empty() && a.alias == key) {
                f = &a;
                break;
            }
    return f && f->family != FormatFamily::Unknown ? f : nullptr;
}

const FormatInfo& parseFormatId(std::string_view text, std::string_view option)
{
    if (const FormatInfo* f = resolveFormatId(text))
        return *f;
    const std::string key = formatKey(text);
    // Suggest ids that contain what was typed ("q4" -> "gguf-q4_0, gguf-q4_1, ..."), at most five.
    std::string hint;
    int shown = 0;
    if (!key.empty())
        for (const auto& f : registry())
            if (f.family != FormatFamily::Unknown && f.id.find(key) != std::string::npos && shown < 5)
                hint += (shown++ ? ", " : "") + f.id;
    std::string msg = std::string(option) + ": unknown format '" + std::string(text) + "'";
    msg += hint.empty() ? " (the README lists the format identifiers)" : " (did you mean " + hint + "?)";
    throw Error(msg);
}

} // namespace qs
