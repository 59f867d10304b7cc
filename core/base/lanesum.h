#pragma once
// The scans (valuescan, diffscan) keep eight double lanes per sum and merge them in one fixed
// order, ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)), so every SIMD path gives the
// scalar reference's bits.
namespace qs {

inline double mergeLaneSums(const double* l)
{
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

} // namespace qs
