// The ggml row's statistics steps (formats/tally.h): GGUF block types' values counted in the
// code domain (codestats.h), their f16 block scales d counted per pattern, and the reference
// round trip through ggml's quantize_row_*_ref.
#include "formats/ggml/ggml_tally.h"

#include "base/error.h"
#include "base/half.h"
#include "container/checkpoint.h"
#include "formats/ggml/codestats.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/ggml/quantize_ggml.h"
#include "formats/target.h"

#include <cstring>

namespace qs {
namespace {

class GgufTally final : public WeightTally {
public:
    GgufTally(const Checkpoint& ckpt, const LogicalWeight& weight, int threads)
    {
        const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
        const TensorEntry& t = ckpt.tensors[size_t(weight.member("weight"))];
        // The f16 scale d of every block, counted per f16 pattern (per thread).
        gt_ = ggmlTypeTraits(t.ggmlType);
        bool found = false;
        if (gt_ && gt_->blockWeights > 1 && K % gt_->blockWeights == 0)
            for (const GgmlBlockField& f : ggmlBlockFields(t.ggmlType))
                if (f.kind == GgmlFieldKind::F16Scale) {
                    dOffset_ = f.offset;
                    found = true;
                    break;
                }
        blob_ = ckpt.bytes(t);
        if (!found || blob_.size() / gt_->blockBytes < N * (K / gt_->blockWeights) || N * K == 0)
            gt_ = nullptr;
        if (gt_) {
            perRow_ = K / gt_->blockWeights;
            halfCounts_.resize(size_t(threads));
        }
        // The types counted in the code domain, on the sizes dequantGgufWeightRows checks.
        const GgmlTypeInfo* info = ggmlTypeTraits(t.ggmlType);
        if (info && codeDomainStats(t.ggmlType) && K && K % info->blockWeights == 0) {
            codeRowBlocks_ = K / info->blockWeights;
            codeRowBytes_ = codeRowBlocks_ * info->blockBytes;
            if (N <= blob_.size() / codeRowBytes_)
                codeType_ = t.ggmlType;
        }
    }

    bool talliesValues() const override { return codeType_ >= 0; }
    void tallyValues(uint64_t r0, uint64_t r1, CodeTally& t, uint32_t* split, const RangeBins* range,
                     uint64_t* rangeCounts, SimdPath path) const override
    {
        tallyGgmlBlocks(codeType_, blob_.data() + r0 * codeRowBytes_, (r1 - r0) * codeRowBlocks_, t, split, range,
                        rangeCounts, path);
    }

    bool hasScales() const override { return gt_ != nullptr; }
    void addScales(uint64_t r0, uint64_t r1, int thread) override
    {
        std::vector<uint64_t>& hc = halfCounts_[size_t(thread)];
        if (hc.empty())
            hc.assign(65536, 0);
        for (uint64_t blk = r0 * perRow_; blk < r1 * perRow_; ++blk) {
            uint16_t d;
            std::memcpy(&d, blob_.data() + blk * gt_->blockBytes + dOffset_, 2);
            ++hc[d];
        }
    }
    void visitScales(const RowRanges&, const std::function<void(float, uint64_t)>& visit) const override
    {
        std::vector<uint64_t> merged(65536, 0);
        for (const std::vector<uint64_t>& hc : halfCounts_)
            for (size_t i = 0; i < hc.size(); ++i)
                merged[i] += hc[i];
        for (uint32_t d = 0; d < 65536; ++d)
            if (merged[d])
                visit(halfToFloat(uint16_t(d)), merged[d]);
    }

private:
    std::span<const uint8_t> blob_;
    const GgmlTypeInfo* gt_ = nullptr;
    uint32_t dOffset_ = 0;
    uint64_t perRow_ = 0;
    std::vector<std::vector<uint64_t>> halfCounts_;
    int codeType_ = -1;
    uint64_t codeRowBytes_ = 0, codeRowBlocks_ = 0;
};

// The ggml type id of a GGUF block format the ggml quantizers produce; -1 otherwise.
int quantizableGgmlType(const FormatInfo& format)
{
    const int t = ggufFormatType(format);
    return t >= 0 && ggmlQuantizeTarget(t) ? t : -1;
}

Requantizer ggmlRequantizer(const FormatInfo& format, const RequantizeSpec&, uint64_t K)
{
    const int ggml = quantizableGgmlType(format);
    Requantizer r;
    r.groupSize = ggmlQuantBlockWeights(ggml);
    if (K % r.groupSize != 0)
        throw Error("requantized to " + format.id + ": " + std::to_string(K)
                    + " input features are not a whole number of " + std::to_string(r.groupSize) + "-weight blocks");
    r.roundTrip = [ggml](const float* w, uint64_t rows, uint64_t K, float* q, SimdPath path) {
        static thread_local std::vector<uint8_t> bytes;
        bytes.resize(size_t(ggmlQuantizedBytes(ggml, rows, K)));
        quantizeGgmlInto(ggml, w, rows, K, bytes.data(), false);
        dequantizeGgmlRows(ggml, bytes.data(), rows, K, q, path);
    };
    return r;
}

} // namespace

std::unique_ptr<WeightTally> ggmlWeightTally(const Checkpoint& ckpt, const LogicalWeight& weight, int threads)
{
    if (weight.member("weight") < 0)
        return nullptr;
    return std::make_unique<GgufTally>(ckpt, weight, threads);
}

RequantizeFn ggmlRequantize(const FormatInfo& format)
{
    return format.requantize == RequantizeRule::Ggml && quantizableGgmlType(format) >= 0 ? ggmlRequantizer : nullptr;
}

} // namespace qs
