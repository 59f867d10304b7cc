#include "base/valuekeys.h"
#include "base/lanesum.h"

#include <limits>

namespace qs {

ValueLanes::ValueLanes()
{
    for (int l = 0; l < 8; ++l) {
        lo[l] = std::numeric_limits<float>::infinity();
        hi[l] = -std::numeric_limits<float>::infinity();
    }
}

void ValueLanes::combine(double& sumOut, double& sumSqOut, float& loOut, float& hiOut) const
{
    sumOut = mergeLaneSums(sum);
    sumSqOut = mergeLaneSums(sumSq);
    loOut = lo[0];
    hiOut = hi[0];
    for (int l = 1; l < 8; ++l) {
        loOut = lo[l] < loOut ? lo[l] : loOut;
        hiOut = hi[l] > hiOut ? hi[l] : hiOut;
    }
}

KeyCounts::KeyCounts()
    : split(kKeyCount * kKeySplit, 0)
    , totals(kKeyCount, 0)
{
}

void KeyCounts::makeRoom(uint64_t n)
{
    // A copy gets at most ceil(elements / kKeySplit) counts per call; pending + n bounds it.
    if (pending + n > std::numeric_limits<uint32_t>::max())
        flush();
    pending += n;
}

void KeyCounts::flush()
{
    for (uint64_t k = 0; k < kKeyCount; ++k) {
        uint64_t t = 0;
        for (uint64_t c = 0; c < kKeySplit; ++c) {
            t += split[k * kKeySplit + c];
            split[k * kKeySplit + c] = 0;
        }
        totals[k] += t;
    }
    pending = 0;
}

} // namespace qs
