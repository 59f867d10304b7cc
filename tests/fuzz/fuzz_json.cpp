// libFuzzer target: the strict JSON parser behind safetensors headers and index files.
#include "container/json.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const qs::json::Value v = qs::json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
        (void)qs::json::toQJsonValue(v);
    } catch (const qs::json::ParseError&) {
    }
    return 0;
}
