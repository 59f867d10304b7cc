#pragma once
// The layout report's seed probes (report/probes.cpp) place codes through a spec's locate().
// A family with its own packer or block map then checks them against it (FamilyRow::packProbe,
// <family>_probe.cpp): what it returns is listed under the probe's name.
#include "base/simd.h"
#include "formats/layoutspec.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

struct ProbeInput {
    const LayoutSpec& spec;
    const LayoutParams& params; // the probe shape
    const std::vector<uint8_t>& codes; // [N, K]: each element's code
    const std::vector<uint8_t>& placed; // the code tensor's bytes with the codes placed by locate()
    std::string_view codeRole; // that tensor's role
    int codeBits = 0; // code width, at most 8
    SimdPath fast = SimdPath::Scalar; // the path compared with the scalar reference
};

struct ProbeCheck {
    std::string check; // what was compared
    bool pass = false;
    std::string detail;
};

using PackProbeFn = std::vector<ProbeCheck> (*)(const ProbeInput& in);

// "(r, c)": an element in a probe's detail.
inline std::string probeCell(uint64_t r, uint64_t c)
{
    return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

// The scalar reference and the fast path wrote the same float bits.
inline ProbeCheck probeBitExact(const std::vector<float>& ref, const std::vector<float>& fast, SimdPath path)
{
    const bool eq = ref.size() == fast.size() && std::memcmp(ref.data(), fast.data(), ref.size() * sizeof(float)) == 0;
    return {std::string("scalar and ") + std::string(simdPathName(path)) + " dequantizers agree bit for bit", eq, ""};
}

} // namespace qs
