#include "analysis/valuescan.h"

#include <cmath>
#include <cstring>
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
    sumOut = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
    sumSqOut = ((sumSq[0] + sumSq[1]) + (sumSq[2] + sumSq[3])) + ((sumSq[4] + sumSq[5]) + (sumSq[6] + sumSq[7]));
    loOut = lo[0];
    hiOut = hi[0];
    for (int l = 1; l < 8; ++l) {
        loOut = lo[l] < loOut ? lo[l] : loOut;
        hiOut = hi[l] > hiOut ? hi[l] : hiOut;
    }
}

void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint64_t* keyHist)
{
    scanValueRange(v, 0, n, lanes, keyHist);
}

void scanValueRange(const float* v, uint64_t from, uint64_t n, ValueLanes& L, uint64_t* keyHist)
{
    for (uint64_t i = from; i < n; ++i) {
        const float x = v[i];
        uint32_t u;
        std::memcpy(&u, &x, 4);
        ++keyHist[valueKey(u)];
        if (!std::isfinite(x))
            continue;
        const size_t l = size_t(i % 8);
        L.lo[l] = x < L.lo[l] ? x : L.lo[l];
        L.hi[l] = x > L.hi[l] ? x : L.hi[l];
        L.sum[l] += double(x);
        L.sumSq[l] += double(x) * double(x);
    }
}

} // namespace qs
