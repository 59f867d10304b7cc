#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/bnb/bnb.h"

namespace qs {
namespace {

DequantRowsFn bnbDequant(const FormatInfo& format)
{
    if (format.id == "bnb-nf4" || format.id == "bnb-fp4")
        return dequantBnb4Rows;
    if (format.id == "bnb-int8")
        return dequantBnbInt8Rows;
    return nullptr;
}

bool bnbCodes(const WeightData& data, WeightCodes& c)
{
    if (data.weight.format == "bnb-int8") {
        const BnbInt8 s = bnbInt8State(data);
        c.rows = s.rows;
        c.cols = s.cols;
        c.codes.resize(s.rows * s.cols);
        for (uint64_t e = 0; e < c.codes.size(); ++e)
            c.codes[e] = uint8_t(s.q[e] ^ 0x80);
        rowGroups(c, s.cols, [&](uint64_t n) { return s.scb.at(n); });
        c.zeros.assign(s.rows, 128);
        return true;
    }
    const Bnb4 s = bnb4State(data);
    c.rows = s.rows;
    c.cols = s.cols;
    c.codes.resize(s.rows * s.cols);
    for (uint64_t e = 0; e < c.codes.size(); ++e)
        c.codes[e] = (e & 1) ? (s.packed[e / 2] & 0x0F) : (s.packed[e / 2] >> 4);
    rowGroups(c, s.blocksize, [&](uint64_t b) { return s.blockAbsmax(b); });
    return true;
}

} // namespace

const FamilyRow& bnbFamily()
{
    static const FamilyRow row{FormatFamily::Bitsandbytes, "bnb", registerBnbLayouts, bnbDequant, bnbCodes,
                               // detection
                               nullptr, detect::bnbGroup, nullptr};
    return row;
}

} // namespace qs
