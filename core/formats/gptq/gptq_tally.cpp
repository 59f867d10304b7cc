// The GPTQ row's statistics steps (formats/tally.h): the PackedLinear layouts' integer codes
// (codecount.h) and their per-group scales.
#include "formats/gptq/gptq_tally.h"

#include "base/error.h"
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/gptq/codecount.h"
#include "formats/gptq/gptq.h"

namespace qs {
namespace {

class PackedTally final : public WeightTally {
public:
    PackedTally(PackedLinear packed, int bits)
        : packed_(std::move(packed))
        , bits_(bits > 0 && bits <= 8 ? bits : 0)
        , scales_(size_t(packed_.groups * packed_.N))
    {
    }

    uint64_t rowAlign() const override { return kDequantRowBlock; }
    int codeBits() const override { return bits_; }
    void countCodes(uint64_t r0, uint64_t r1, std::vector<uint64_t>& counts) const override
    {
        qs::countCodes(packed_, r0, r1, counts);
    }
    bool hasScales() const override { return true; }
    void addScales(uint64_t r0, uint64_t r1, int) override
    {
        for (uint64_t g = 0; g < packed_.groups; ++g)
            for (uint64_t row = r0; row < r1; ++row)
                scales_[size_t(g * packed_.N + row)] = packed_.scaleAt(g, row);
    }
    void visitScales(const RowRanges& eachRows, const std::function<void(float, uint64_t)>& visit) const override
    {
        for (uint64_t g = 0; g < packed_.groups; ++g)
            eachRows(0, packed_.N, [&](uint64_t a, uint64_t b) {
                for (uint64_t row = a; row < b; ++row)
                    visit(scales_[size_t(g * packed_.N + row)], 1);
            });
    }

private:
    PackedLinear packed_;
    int bits_;
    std::vector<float> scales_; // [groups][N], each written by the thread counting its row
};

} // namespace

std::unique_ptr<WeightTally> gptqWeightTally(const Checkpoint& ckpt, const LogicalWeight& weight, int)
{
    const FormatInfo* format = findFormat(weight.format);
    if (!format || format->storage != StorageKind::PackedLinear)
        return nullptr;
    PackedLinear packed = withContext(ErrorContext{ckpt.path}, [&] {
        return describePacked(WeightData{ckpt, weight});
    });
    if (packed.N != weight.outFeatures() || packed.K != weight.inFeatures())
        return nullptr;
    return std::make_unique<PackedTally>(std::move(packed), weight.bits);
}

} // namespace qs
