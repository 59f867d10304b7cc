// libFuzzer target: format detection and every dequantizer. The first input byte picks the
// Hugging Face config.json beside the fuzzed model.safetensors (none, GPTQ, AWQ, bitsandbytes,
// compressed-tensors), so detection reaches each family's rules; from 5 (mod 8) on, the rest
// is a packed folder (qsfuzz::unpackFolder) whose configs are fuzzed too (the seed maker
// writes one per quantize target: every family's config).
#include "fuzzcommon.h"

namespace {

const char* const kConfigs[] = {
    nullptr,
    R"({"quantization_config":{"quant_method":"gptq","bits":4,"group_size":32,"desc_act":false,"sym":false,"checkpoint_format":"gptq"}})",
    R"({"quantization_config":{"quant_method":"awq","bits":4,"group_size":32,"zero_point":true,"version":"gemm"}})",
    R"({"quantization_config":{"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true}})",
    R"({"quantization_config":{"quant_method":"compressed-tensors","format":"pack-quantized","config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int","symmetric":false,"strategy":"group","group_size":32}}}}})",
};
constexpr size_t kConfigCount = sizeof kConfigs / sizeof kConfigs[0];

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const size_t pick = data[0] % 8;
    if (pick >= kConfigCount) {
        qsfuzz::exercise(qsfuzz::unpackFolder(data + 1, size - 1));
        return 0;
    }
    std::vector<qs::MemoryFile> files{{"model.safetensors", {data + 1, size - 1}}};
    if (kConfigs[pick])
        files.push_back({"config.json", {reinterpret_cast<const uint8_t*>(kConfigs[pick]),
                                         std::char_traits<char>::length(kConfigs[pick])}});
    qsfuzz::exercise(files);
    return 0;
}
