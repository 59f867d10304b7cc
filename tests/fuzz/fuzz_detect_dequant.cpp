// libFuzzer target: format detection and every dequantizer. The first input byte picks the
// layout (qsfuzz::filesFromInput): a model.safetensors beside each family's config.json, so
// detection reaches each family's rules, or a packed folder whose configs are fuzzed too (the
// seed maker writes one per quantize target: every family's config).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    qsfuzz::exercise(qsfuzz::filesFromInput(data, size));
    return 0;
}
