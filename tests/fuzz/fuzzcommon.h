#pragma once
// Shared by the libFuzzer targets: the fuzz input becomes a file in a private temporary
// folder, which is opened, listed, detected and dequantized exactly as the CLI would.
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/detect.h"
#include "formats/dequant.h"
#include "formats/kernel.h"
#include "formats/opencheckpoint.h"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace qsfuzz {

// Weights above this many elements are listed but not dequantized: libFuzzer's RSS limit is
// for unbounded allocation, not for a legitimately large (but consistent) weight.
constexpr uint64_t kMaxDequantElements = uint64_t(1) << 22;

inline const std::string& workDir()
{
    static const std::string dir = [] {
        char tmpl[] = "/tmp/qsfuzz-XXXXXX";
        const char* d = mkdtemp(tmpl);
        if (!d)
            abort();
        return std::string(d);
    }();
    return dir;
}

inline void writeFile(const std::string& path, const uint8_t* data, size_t size)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        abort();
    if (size && std::fwrite(data, 1, size, f) != size)
        abort();
    std::fclose(f);
}

// Opens `path` and does everything a user can do with it without writing. qs::Error is the
// expected way to refuse; any other exception escapes and libFuzzer reports it as a crash.
inline void exercise(const std::string& path)
{
    try {
        const auto ckpt = qs::openCheckpoint(path);
        for (const auto& [key, value] : ckpt->metadata)
            (void)value.toDisplayString();
        for (const auto& t : ckpt->tensors)
            (void)ckpt->bytes(t);
        (void)qs::summarizeBits(ckpt->weights);
        (void)qs::verifyCheckpoint(*ckpt);
        for (const auto& w : ckpt->weights) {
            if (!qs::canDequantize(w.format) || w.elementCount() > kMaxDequantElements)
                continue;
            try {
                const std::vector<float> fast = qs::dequantizeWeight(*ckpt, w, qs::bestSimdPath(), 1);
                const std::vector<float> ref = qs::dequantizeWeight(*ckpt, w, qs::SimdPath::Scalar, 1);
                // Bit-exact: the fast path must agree with the reference on any input it accepts,
                // except for which NaN comes out when a scale or an offset is NaN or infinite: x86
                // passes on the first operand's payload, and the paths may order the operands
                // differently (Q4_1 and Q5_1 do).
                if (fast.size() != ref.size())
                    abort();
                for (size_t i = 0; i < fast.size(); ++i)
                    if (std::memcmp(&fast[i], &ref[i], sizeof(float)) != 0 && !(std::isnan(fast[i]) && std::isnan(ref[i])))
                        abort();
            } catch (const qs::Error&) {
            }
            try {
                (void)qs::extractCodes(*ckpt, w);
            } catch (const qs::Error&) {
            }
        }
    } catch (const qs::Error&) {
    }
}

} // namespace qsfuzz
