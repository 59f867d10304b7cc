#pragma once
// Lookup tables of the ggml block types (values from ggml-common.h, stored as data), and the
// unpacking of the packed 6-bit sub-block scales (Q4_K/Q5_K, IQ4_XS) that the reference, the
// AVX2 path and the code-domain statistics share.
#include "base/half.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace qs::ggml {

// The 6-bit scale and min of sub-block s (0..7) of Q4_K/Q5_K from their 12 packed bytes S
// (gguf.md 2.4).
inline void scaleMinK4(const uint8_t* S, int s, int& sc, int& m)
{
    if (s < 4) {
        sc = S[s] & 63;
        m = S[s + 4] & 63;
    } else {
        sc = (S[s + 4] & 0xF) | ((S[s - 4] >> 6) << 4);
        m = (S[s + 4] >> 4) | ((S[s] >> 6) << 4);
    }
}

// The eight sub-block multipliers of a Q4_K block as the reference forms them, d1[s] =
// d * float(sc) and m1[s] = dmin * float(m) from its f16 d and dmin; false (and nothing
// written) when d or dmin is NaN or Inf.
inline bool subScalesK4(const uint8_t* block, float* d1, float* m1)
{
    const float d = halfAt(block), dmin = halfAt(block + 2);
    if (!std::isfinite(d) || !std::isfinite(dmin))
        return false;
    for (int s = 0; s < 8; ++s) {
        int sc = 0, m = 0;
        scaleMinK4(block + 4, s, sc, m);
        d1[s] = d * float(sc);
        m1[s] = dmin * float(m);
    }
    return true;
}

// The 6-bit scale ls of sub-block ib (0..7) of an IQ4_XS block (d, scales_h, scales_l, ...);
// the sub-block's multiplier is d * float(ls - 32) (gguf.md 2.7).
inline int iq4xsScale(const uint8_t* block, int ib)
{
    const unsigned high = unsigned(block[2] | (block[3] << 8));
    return ((block[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | int((high >> (2 * ib)) & 3) << 4;
}

// IQ1_M's super-scale: f16 bits assembled from the top nibbles of its four scale words.
uint16_t iq1mScaleBits(const uint8_t* scales);

// NVFP4's UE4M3 sub-block scale (bit 7 ignored, 0 and 0x7F read as zero), times 1/2 for the
// doubled FP4 table; and the same for all 256 bytes, for the fast paths (ggml_ref.cpp).
float ue4m3Half(uint8_t u);
const std::array<float, 256>& ue4m3HalfTable();

extern const uint8_t kKmaskIq2xs[8]; // kmask_iq2xs, CRC-32 0xe0631a53
inline constexpr uint32_t kKmaskIq2xsCrc = 0xe0631a53u;
extern const uint8_t kKsignsIq2xs[128]; // ksigns_iq2xs, CRC-32 0xffab7940
inline constexpr uint32_t kKsignsIq2xsCrc = 0xffab7940u;
extern const uint64_t kIq2xxsGrid[256]; // iq2xxs_grid, CRC-32 0x9924ff02
inline constexpr uint32_t kIq2xxsGridCrc = 0x9924ff02u;
extern const uint64_t kIq2xsGrid[512]; // iq2xs_grid, CRC-32 0xfa1e1bfd
inline constexpr uint32_t kIq2xsGridCrc = 0xfa1e1bfdu;
extern const uint64_t kIq2sGrid[1024]; // iq2s_grid, CRC-32 0x25ae5bf1
inline constexpr uint32_t kIq2sGridCrc = 0x25ae5bf1u;
extern const uint32_t kIq3xxsGrid[256]; // iq3xxs_grid, CRC-32 0x07ba9ed0
inline constexpr uint32_t kIq3xxsGridCrc = 0x07ba9ed0u;
extern const uint32_t kIq3sGrid[512]; // iq3s_grid, CRC-32 0xf576e4f3
inline constexpr uint32_t kIq3sGridCrc = 0xf576e4f3u;
extern const int8_t kValuesIq4nl[16]; // kvalues_iq4nl, CRC-32 0xbbe1a3fc
inline constexpr uint32_t kValuesIq4nlCrc = 0xbbe1a3fcu;
extern const int8_t kValuesFp4[16]; // kvalues_fp4, CRC-32 0x08e8de1e
inline constexpr uint32_t kValuesFp4Crc = 0x08e8de1eu;
extern const uint64_t kIq1sGrid[2048]; // iq1s_grid, CRC-32 0xb85e6ccf
inline constexpr uint32_t kIq1sGridCrc = 0xb85e6ccfu;

} // namespace qs::ggml
