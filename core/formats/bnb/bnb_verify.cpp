// verify's checks of bitsandbytes weights: 4-bit shapes, padding nibble, absmax values and the
// stored quant maps against bitsandbytes' own tables; LLM.int8 row absmax values and -128 codes.
#include "formats/bnb/bnb.h"

#include "base/error.h"
#include "base/intmath.h"
#include "formats/bnb/quantize_bnb.h"
#include "formats/verify_util.h"

#include <algorithm>
#include <cmath>

namespace qs {

void verifyBnb4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    Bnb4 s;
    try {
        s = bnb4State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const uint64_t n = s.rows * s.cols;
    if (w.member("weight") >= 0 && ckpt.tensors[size_t(w.member("weight"))].dtype == DType::U8)
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, 4, s.blocksize,
                        {"weight", "absmax", "quant_map", "nested_quant_map"});
    else
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, 4, s.blocksize, {"absmax", "quant_map", "nested_quant_map"});
    // Nibble round trip: the only bits a repacking can change are the padding nibble of an odd count.
    std::vector<uint8_t> repacked(ceilDiv(n, 2), 0);
    for (uint64_t e = 0; e < n; ++e) {
        const uint8_t q = (s.packed[e / 2] >> (e % 2 ? 0 : 4)) & 0x0F;
        repacked[e / 2] |= uint8_t(q << (e % 2 ? 0 : 4));
    }
    checkRoundTrip(add, "qweight-roundtrip", s.packed.subspan(0, std::min<size_t>(s.packed.size(), repacked.size())),
                   repacked,
                   QT_TRANSLATE_NOOP(
                       "qs::Message",
                       "stored 4-bit codes differ from their repacking (nonzero padding or sign-extended fields?): %1"),
                   1);
    // Non-finite absmax values are the health scan's (analysis/healthscan.h), with their places
    // (or, where blocks straddle rows, the values they make NaN).
    uint64_t negative = 0;
    for (uint64_t b = 0; b < s.blocks(); ++b) {
        const float a = s.blockAbsmax(b);
        negative += std::isfinite(a) && a < 0.0f;
    }
    if (negative)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 block absmax values are negative"),
                    {std::to_string(negative)}));
    if (!std::isfinite(s.nestedOffset))
        add("scale", Message(QT_TRANSLATE_NOOP("qs::Message", "nested_offset is NaN or Inf")));
    // The stored maps must be the tables bitsandbytes computes with (it ignores the stored ones).
    // `what` names the table; its own message template each, so the GUI can translate them.
    const auto mapCheck = [&](std::string_view role, const float* table, size_t count, const char* sizeMessage,
                              const char* valueMessage) {
        const int idx = w.member(role);
        if (idx < 0)
            return;
        const TensorEntry& t = ckpt.tensors[size_t(idx)];
        try {
            const FloatView v(ckpt.bytes(t), t.dtype, std::string(t.name));
            if (v.size() != count) {
                add("shape",
                    Message(sizeMessage, {std::string(t.name), std::to_string(v.size()), std::to_string(count)}));
                return;
            }
            for (size_t i = 0; i < count; ++i)
                if (!(v.at(i) == table[i])) {
                    add("quant_map",
                        Message(valueMessage,
                                {std::string(t.name), std::to_string(i), std::to_string(v.at(i)),
                                 std::to_string(table[i])}));
                    return;
                }
        } catch (const Error& e) {
            add("shape", e.what());
        }
    };
    if (s.fp4)
        mapCheck("quant_map", s.table(), 16,
                 QT_TRANSLATE_NOOP("qs::Message", "%1 holds %2 values, bitsandbytes' FP4 table has %3"),
                 QT_TRANSLATE_NOOP("qs::Message", "%1[%2] is %3, bitsandbytes' FP4 table says %4"));
    else
        mapCheck("quant_map", s.table(), 16,
                 QT_TRANSLATE_NOOP("qs::Message", "%1 holds %2 values, bitsandbytes' NF4 table has %3"),
                 QT_TRANSLATE_NOOP("qs::Message", "%1[%2] is %3, bitsandbytes' NF4 table says %4"));
    if (s.nested)
        mapCheck("nested_quant_map", bnbDynamicMap().data(), 256,
                 QT_TRANSLATE_NOOP("qs::Message", "%1 holds %2 values, the signed dynamic map has %3"),
                 QT_TRANSLATE_NOOP("qs::Message", "%1[%2] is %3, the signed dynamic map says %4"));
}

void verifyBnbInt8Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    BnbInt8 s;
    try {
        s = bnbInt8State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    uint64_t bad = 0, negative = 0, minCodes = 0;
    for (uint64_t r = 0; r < s.rows; ++r) {
        const float v = s.scb.at(r);
        bad += !std::isfinite(v);
        negative += std::isfinite(v) && v < 0.0f;
    }
    for (uint8_t c : s.q)
        minCodes += c == 0x80;
    countNonFinite(add, bad, s.rows,
                   QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 row absmax values (SCB) are NaN or Inf"));
    if (negative)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 SCB values are negative"), {std::to_string(negative)}));
    if (minCodes)
        add("codes",
            Message(QT_TRANSLATE_NOOP("qs::Message",
                                      "%1 codes are -128: LLM.int8 rounds x * 127 / absmax, so codes lie in -127..127"),
                    {std::to_string(minCodes)}));
}

} // namespace qs
