// libFuzzer target: the input is a .gguf file (header, metadata, tensor infos, data).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    qsfuzz::exercise({{"input.gguf", {data, size}}});
    return 0;
}
