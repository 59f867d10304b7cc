#pragma once
// Shared by the libFuzzer targets: the fuzz input becomes one or more files in memory (never on
// disk, so a target runs thousands of inputs a second), which are opened as a folder, listed,
// detected, verified, dequantized, analysed and compared as the CLI would.
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
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace qsfuzz {

// Which weights a target decodes. First the product's own guard: whyNotDecoded (a shape that
// detection refused, kRefusedShapeNote, or a format without a dequantizer), as dequant and stats
// ask it. Detection promises (detect.h) that a shape it leaves decodable neither overflows nor
// spans more than its stored bytes can hold: a weight that breaks the promise is a finding
// (abort), never skipped as "too big". Then a fuzz-only cap on the span (elements, each 0 counted
// as 1) so that every execution stays small: kMaxDequantElements for the dequantizers (libFuzzer's
// RSS limit is for unbounded allocation, not a large but consistent weight), and
// kMaxAnalysedElements for stats and diff, whose per-element work is several passes (histograms,
// requantizing, the default activations [16, K]). What the caps leave out is large but
// consistent: the product's guard has already passed it, and the unit tests cover such weights.
constexpr uint64_t kMaxDequantElements = uint64_t(1) << 22;
constexpr uint64_t kMaxAnalysedElements = uint64_t(1) << 14;

inline bool decodable(const qs::LogicalWeight& w, uint64_t cap)
{
    if (!qs::whyNotDecoded(w).empty())
        return false;
    const std::optional<uint64_t> span = qs::shapeSpan(w.shape);
    if (!span || *span > qs::maxShapeSpan(w.storedBytes)) {
        std::fprintf(stderr,
                     "qsfuzz: detection left weight '%s' (%s) a shape of %zu dimensions spanning %s elements over %llu "
                     "stored bytes\n",
                     w.name.c_str(), w.format.c_str(), w.shape.size(),
                     span ? std::to_string(*span).c_str() : "2^64 or more",
                     static_cast<unsigned long long>(w.storedBytes));
        abort();
    }
    return *span <= cap;
}

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

// Opens the in-memory folder `files` (no file is written) as the CLI opens a path: read, then
// detect. qs::Error is the expected way to refuse.
inline std::shared_ptr<const qs::Checkpoint> openDetected(const std::vector<qs::MemoryFile>& files)
{
    std::shared_ptr<qs::Checkpoint> opened = qs::Checkpoint::readMemory(files);
    opened->weights = qs::detectWeights(*opened);
    return opened;
}

// The Hugging Face configs a one-file input may get beside its model.safetensors (filesFromInput).
inline constexpr const char* kConfigs[] = {
    nullptr,
    R"({"quantization_config":{"quant_method":"gptq","bits":4,"group_size":32,"desc_act":false,"sym":false,"checkpoint_format":"gptq"}})",
    R"({"quantization_config":{"quant_method":"awq","bits":4,"group_size":32,"zero_point":true,"version":"gemm"}})",
    R"({"quantization_config":{"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true}})",
    R"({"quantization_config":{"quant_method":"compressed-tensors","format":"pack-quantized","config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int","symmetric":false,"strategy":"group","group_size":32}}}}})",
};
inline constexpr size_t kConfigCount = sizeof kConfigs / sizeof kConfigs[0];
// The first byte's low 3 bits choose the layout (its high 5 bits are left to the target):
// below kConfigCount, the rest is a model.safetensors beside kConfigs[pick] (none, GPTQ, AWQ,
// bitsandbytes, compressed-tensors), so detection reaches each family's rules; from kConfigCount
// on, the rest is a packed folder (unpackFolder: any files, configs and GGUF included). The
// packed corpus entries and folder seeds use layout 5.
inline constexpr uint8_t kPackedFolderLayout = 5;
inline std::vector<qs::MemoryFile> filesFromInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return {};
    const size_t pick = data[0] % 8;
    if (pick >= kConfigCount)
        return unpackFolder(data + 1, size - 1);
    std::vector<qs::MemoryFile> files{{"model.safetensors", {data + 1, size - 1}}};
    if (kConfigs[pick])
        files.push_back(
            {"config.json",
             {reinterpret_cast<const uint8_t*>(kConfigs[pick]), std::char_traits<char>::length(kConfigs[pick])}});
    return files;
}

// Opens `files` and does everything a user can do with it without writing: list, show metadata,
// verify, dequantize (both paths, compared) and read codes. qs::Error is the expected way to
// refuse; any other exception escapes and libFuzzer reports it as a crash.
inline void exercise(const std::vector<qs::MemoryFile>& files)
{
    try {
        const std::shared_ptr<const qs::Checkpoint> ckpt = openDetected(files);
        for (const auto& [key, value] : ckpt->metadata)
            (void)value.toDisplayString();
        for (const auto& t : ckpt->tensors)
            (void)ckpt->bytes(t);
        (void)qs::summarizeBits(ckpt->weights);
        (void)qs::verifyCheckpoint(*ckpt);
        for (const auto& w : ckpt->weights) {
            if (!decodable(w, kMaxDequantElements))
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
                    if (std::memcmp(&fast[i], &ref[i], sizeof(float)) != 0
                        && !(std::isnan(fast[i]) && std::isnan(ref[i])))
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
