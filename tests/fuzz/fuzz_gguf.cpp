// libFuzzer target: the input is a .gguf file (header, metadata, tensor infos, data).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = qsfuzz::workDir() + "/input.gguf";
    qsfuzz::writeFile(path, data, size);
    qsfuzz::exercise(path);
    return 0;
}
