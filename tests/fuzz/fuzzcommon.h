#pragma once
// Shared by the libFuzzer targets: the fuzz input becomes one or more files in memory (never on
// disk, so a target runs thousands of inputs a second), which are opened as a folder, listed,
// detected and dequantized as the CLI would.
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/detect.h"
#include "formats/dequant.h"
#include "formats/kernel.h"
#include "formats/opencheckpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace qsfuzz {

// Weights above this many elements are listed but not dequantized: libFuzzer's RSS limit is
// for unbounded allocation, not for a legitimately large (but consistent) weight.
constexpr uint64_t kMaxDequantElements = uint64_t(1) << 22;

// A folder packed into one input (the seed maker writes them): repeated
// [name length: 1 byte][name][data length: 4 bytes little-endian][data]; a length past the end
// takes what is left. The files point into `data`.
inline std::vector<qs::MemoryFile> unpackFolder(const uint8_t* data, size_t size)
{
    std::vector<qs::MemoryFile> files;
    size_t at = 0;
    while (at < size && files.size() < 16) {
        const size_t nameLen = data[at++];
        if (nameLen > size - at)
            break;
        std::string name(reinterpret_cast<const char*>(data + at), nameLen);
        at += nameLen;
        uint32_t len = 0;
        for (int i = 0; i < 4 && at < size; ++i)
            len |= uint32_t(data[at++]) << (8 * i);
        const size_t n = std::min<size_t>(len, size - at);
        files.push_back({std::move(name), {data + at, n}});
        at += n;
    }
    return files;
}

inline void appendPacked(std::string& out, const std::string& name, std::span<const uint8_t> bytes)
{
    out += char(name.size());
    out += name;
    for (int i = 0; i < 4; ++i)
        out += char((bytes.size() >> (8 * i)) & 0xff);
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Opens the in-memory folder `files` (no file is written) and does everything a user can do
// with it without writing. qs::Error is the expected way to refuse; any other exception escapes
// and libFuzzer reports it as a crash.
inline void exercise(const std::vector<qs::MemoryFile>& files)
{
    try {
        std::shared_ptr<qs::Checkpoint> opened = qs::Checkpoint::readMemory(files);
        opened->weights = qs::detectWeights(*opened);
        const std::shared_ptr<const qs::Checkpoint> ckpt = opened;
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
