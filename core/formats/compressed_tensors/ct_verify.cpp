// verify's checks of compressed-tensors integer weights: shapes, scales, g_idx, the packed words
// and zero points against their repacking, and asymmetric zeros that are all 0.
#include "formats/compressed_tensors/ct.h"

#include "base/bitstream.h"
#include "base/error.h"
#include "base/intmath.h"
#include "formats/verify_util.h"

#include <cmath>
#include <cstring>

namespace qs {

void verifyCtWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    CtPacked s;
    try {
        s = ctPackedState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const uint64_t N = s.rows, K = s.cols, G = s.tensorScale ? 1 : s.groups;
    if (s.source == CtPacked::Source::Packed)
        checkSpecShapes(add, ckpt, w, K, N, s.bits, s.groupSize, {"weight_packed", "weight_g_idx"});
    // Non-finite scales are the health scan's (analysis/healthscan.h), with their places.
    uint64_t nonPositive = 0;
    for (uint64_t i = 0; i < s.scale.size(); ++i) {
        const float v = s.scale.at(i);
        nonPositive += std::isfinite(v) && v <= 0.0f;
    }
    if (nonPositive)
        add("scale",
            Message(QT_TRANSLATE_NOOP("qs::Message",
                                      "%1 scales are zero or negative (compressed-tensors clamps scales to eps)"),
                    {std::to_string(nonPositive)}));
    if (!s.gidx.empty())
        checkGroups(add, K, G, ceilDiv(K, G), [&](uint64_t k) { return s.group(k); });
    if (s.source == CtPacked::Source::Packed) {
        const int b = s.bits;
        const int off = 1 << (b - 1);
        std::vector<uint8_t> repacked;
        repacked.reserve(N * s.wordsPerRow * 4);
        std::vector<uint8_t> row(K);
        for (uint64_t n = 0; n < N; ++n) {
            for (uint64_t k = 0; k < K; ++k)
                row[k] = uint8_t(s.code(n, k) + off);
            const std::vector<uint8_t> words = bitstream::packSlots(row, b, 32);
            repacked.insert(repacked.end(), words.begin(), words.end());
        }
        checkRoundTrip(add, "qweight-roundtrip", s.packed, repacked,
                       QT_TRANSLATE_NOOP("qs::Message",
                                         "stored weight_packed words differ from their repacking (nonzero padding or "
                                         "sign-extended fields?): %1"));
        if (s.zpKind == CtPacked::Zp::Packed) {
            const uint64_t zw = ceilDiv(N, s.pf);
            std::vector<uint32_t> zp(zw * G, 0);
            std::vector<uint8_t> col(N);
            for (uint64_t g = 0; g < G; ++g) {
                for (uint64_t n = 0; n < N; ++n)
                    col[n] = uint8_t(s.zeroAt(n, g) + off);
                const std::vector<uint8_t> words = bitstream::packSlots(col, b, 32);
                for (uint64_t i = 0; i < zw; ++i)
                    std::memcpy(&zp[i * G + g], words.data() + i * 4, 4);
            }
            std::vector<uint8_t> zb(zp.size() * 4);
            std::memcpy(zb.data(), zp.data(), zb.size());
            checkRoundTrip(add, "qzeros-roundtrip", s.zp, zb,
                           QT_TRANSLATE_NOOP("qs::Message",
                                             "stored weight_zero_point words differ from their repacking (nonzero "
                                             "padding or sign-extended fields?): %1"));
        }
    }
    // Zero points: a symmetric scheme stores none; an asymmetric one whose zeros are all 0 is the
    // symmetric data mislabelled (or the zero point was dropped).
    if (s.zpKind != CtPacked::Zp::None) {
        bool allZero = true;
        for (uint64_t n = 0; n < N && allZero; ++n)
            for (uint64_t g = 0; g < G && allZero; ++g)
                allZero = s.zeroAt(n, g) == 0;
        if (allZero && N * G > 1)
            add("zero-convention",
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "every zero point is 0: the weight is symmetric data stored as asymmetric")),
                true);
    }
}

} // namespace qs
