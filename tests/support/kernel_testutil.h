#pragma once
// Helpers for the bnb / compressed-tensors / MLX / HQQ / float kernel suites: open a
// safetensors file as a Checkpoint, write small hand-made checkpoints, build a LogicalWeight
// by hand (so kernel tests do not depend on detection), run a DequantRowsFn, compare bits.
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "formats/layoutspec.h"
#include "formats/kernelutil.h"
#include "formats/kernel.h"
#include "testsupport.h"

#include <QTest>

#include <bit>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace qsk {

inline std::shared_ptr<qs::Checkpoint> openFile(const std::string& path)
{
    auto ckpt = std::make_shared<qs::Checkpoint>();
    ckpt->path = path;
    qs::readSafetensorsFile(*ckpt, path);
    ckpt->buildIndex();
    return ckpt;
}

// `file` ("model.safetensors", "ref.safetensors") of the fixture folder safetensors/<variant>.
inline std::shared_ptr<qs::Checkpoint> openFixture(const QString& variant, const char* file)
{
    return openFile(qstest::fixture(QStringLiteral("safetensors/") + variant + QLatin1Char('/') + QLatin1String(file))
                        .toStdString());
}

// The paths a kernel test runs on this machine: scalar, and each tier of the build's architecture
// the CPU has (QUANTSCOPE_SIMD does not lower this). The first call says which tiers the CPU lacks.
inline std::vector<qs::SimdPath> simdPaths()
{
    static const bool said = [] {
        if (qs::builtSimdPaths().size() > qs::cpuSimdPaths().size())
            qInfo("SIMD paths run here: %s", qs::simdSummary().c_str());
        return true;
    }();
    (void)said;
    return qs::cpuSimdPaths();
}

// The bits at `pieces` concatenated LSB first; ~0 when a piece lies outside `bytes`.
inline uint64_t readPieces(std::span<const uint8_t> bytes, uint32_t wordBits, const qs::BitPiece* pieces, int count)
{
    uint64_t v = 0;
    int shift = 0;
    for (int i = 0; i < count; ++i) {
        const uint64_t first = pieces[i].word * wordBits + pieces[i].bit;
        if ((first + pieces[i].width + 7) / 8 > bytes.size())
            return ~uint64_t(0);
        for (uint32_t b = 0; b < pieces[i].width; ++b) {
            const uint64_t at = first + b;
            v |= uint64_t((bytes[at / 8] >> (at % 8)) & 1) << (shift + int(b));
        }
        shift += pieces[i].width;
    }
    return v;
}

// A tensor to write: raw little-endian bytes.
struct T {
    std::string name;
    qs::DType dtype;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> data;
};

template <typename V>
std::vector<uint8_t> bytesOf(const std::vector<V>& v)
{
    std::vector<uint8_t> b(v.size() * sizeof(V));
    if (!v.empty())
        std::memcpy(b.data(), v.data(), b.size());
    return b;
}

inline std::vector<uint8_t> halfBytes(const std::vector<float>& v, qs::DType t)
{
    std::vector<uint16_t> h;
    for (float f : v)
        h.push_back(t == qs::DType::BF16 ? qs::floatToBf16(f) : qs::floatToHalf(f));
    return bytesOf(h);
}

inline std::string write(const QString& dir, const std::string& file, const std::vector<T>& tensors)
{
    const std::string path = (dir + QStringLiteral("/")).toStdString() + file;
    std::vector<qs::SafetensorsTensor> st;
    for (const auto& t : tensors)
        st.push_back({t.name, t.dtype, t.shape, std::span<const uint8_t>(t.data)});
    qs::writeSafetensors(path, st, {{"format", "pt"}});
    return path;
}

inline qs::LogicalWeight weight(const qs::Checkpoint& ckpt, const std::string& name, const std::string& format,
                                std::vector<uint64_t> shape,
                                const std::vector<std::pair<std::string, std::string>>& roles, int bits = 0,
                                int64_t groupSize = 0)
{
    qs::LogicalWeight w;
    w.name = name;
    w.format = format;
    w.shape = std::move(shape);
    w.bits = bits;
    w.groupSize = groupSize;
    for (const auto& [role, tensor] : roles) {
        const int i = ckpt.indexOf(tensor);
        if (i < 0)
            throw qs::Error("test: no tensor " + tensor);
        w.members.emplace_back(role, static_cast<size_t>(i));
    }
    return w;
}

inline std::vector<float> run(qs::DequantRowsFn fn, const qs::Checkpoint& ckpt, const qs::LogicalWeight& w,
                              qs::SimdPath path, uint64_t r0 = 0, uint64_t r1 = ~0ull)
{
    if (r1 == ~0ull)
        r1 = w.outFeatures();
    std::vector<float> out((r1 - r0) * w.inFeatures(), -12345.0f);
    fn(qs::WeightData{ckpt, w}, r0, r1, out.data(), path);
    return out;
}

inline std::vector<float> floats(const qs::Checkpoint& ckpt, const std::string& name)
{
    const qs::TensorEntry* e = ckpt.find(name);
    if (!e)
        throw qs::Error("test: no tensor " + name);
    const qs::FloatView v(ckpt.bytes(*e), e->dtype, name);
    std::vector<float> out(v.size());
    for (uint64_t i = 0; i < v.size(); ++i)
        out[i] = v.at(i);
    return out;
}

// Index of the first element whose bits differ (after rounding `ours` to `dtype`), or -1.
inline int64_t firstMismatch(const std::vector<float>& ours, const std::vector<float>& ref, qs::DType dtype)
{
    if (ours.size() != ref.size())
        return 0;
    for (size_t i = 0; i < ours.size(); ++i) {
        const float a = qs::roundToDtype(ours[i], dtype), b = ref[i];
        if (std::bit_cast<uint32_t>(a) != std::bit_cast<uint32_t>(b) && !(a != a && b != b))
            return static_cast<int64_t>(i);
    }
    return -1;
}

#define QSK_COMPARE_BITS(ours, ref, dtype)                                                                             \
    do {                                                                                                               \
        const int64_t bad_ = qsk::firstMismatch(ours, ref, dtype);                                                     \
        if (bad_ >= 0)                                                                                                 \
            QFAIL(qPrintable(                                                                                          \
                QStringLiteral("element %1: ours %2 (rounded %3), reference %4, sizes %5/%6")                          \
                    .arg(bad_)                                                                                         \
                    .arg(double(ours.size() > size_t(bad_) ? ours[bad_] : 0), 0, 'g', 9)                               \
                    .arg(double(ours.size() > size_t(bad_) ? qs::roundToDtype(ours[bad_], dtype) : 0), 0, 'g', 9)      \
                    .arg(double(ref.size() > size_t(bad_) ? ref[bad_] : 0), 0, 'g', 9)                                 \
                    .arg(ours.size())                                                                                  \
                    .arg(ref.size())));                                                                                \
    } while (0)

} // namespace qsk
