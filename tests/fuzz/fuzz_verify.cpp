// libFuzzer target: `verify` alone (open, detect, every format check and its messages), without
// the other targets' dequantizing and analyses, so that it runs many more inputs a second. The
// first byte picks the layout (qsfuzz::filesFromInput).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const auto ckpt = qsfuzz::openDetected(qsfuzz::filesFromInput(data, size));
        const qs::VerifyReport r = qs::verifyCheckpoint(*ckpt);
        size_t sink = r.errors() + r.checked.size() + r.unchecked.size();
        for (const qs::VerifyFinding& f : r.findings)
            sink += f.message.text().size() + f.weight.size() + f.check.size();
        for (const qs::LogicalWeight& w : ckpt->weights)
            for (const qs::Message& n : w.notes)
                sink += n.text().size();
        if (sink == size_t(-1))
            abort();
    } catch (const qs::Error&) {
    }
    return 0;
}
