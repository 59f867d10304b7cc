// libFuzzer target: the safetensors reader and the folder rules. The first input byte chooses
// the shape of the checkpoint: 0 (mod 3), the rest is one model.safetensors; 1, the rest is the
// model.safetensors.index.json of a folder whose two shards are small valid files; 2, the rest
// is a packed folder (qsfuzz::unpackFolder: shards, indexes, configs, stray files).
#include "fuzzcommon.h"

namespace {

// A valid one-tensor safetensors file: F16 [2, 4] of ones.
std::string shardBytes(const std::string& tensor)
{
    std::string header = "{\"" + tensor + "\":{\"dtype\":\"F16\",\"shape\":[2,4],\"data_offsets\":[0,16]}}";
    header.append((8 - header.size() % 8) % 8, ' ');
    std::string out;
    for (int i = 0; i < 8; ++i)
        out += char((uint64_t(header.size()) >> (8 * i)) & 0xff);
    out += header;
    for (int i = 0; i < 8; ++i)
        out += std::string("\x00\x3c", 2);
    return out;
}

std::span<const uint8_t> asSpan(const std::string& s)
{
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const std::span<const uint8_t> rest(data + 1, size - 1);
    switch (data[0] % 3) {
    case 0: qsfuzz::exercise({{"model.safetensors", rest}}); break;
    case 1: {
        static const std::string up = shardBytes("model.layers.0.mlp.up_proj.weight");
        static const std::string down = shardBytes("model.layers.0.mlp.down_proj.weight");
        qsfuzz::exercise({{"model.safetensors.index.json", rest},
                          {"model-00001-of-00002.safetensors", asSpan(up)},
                          {"model-00002-of-00002.safetensors", asSpan(down)}});
        break;
    }
    default: qsfuzz::exercise(qsfuzz::unpackFolder(rest.data(), rest.size())); break;
    }
    return 0;
}
