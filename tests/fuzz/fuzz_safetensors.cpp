// libFuzzer target: the safetensors reader. The first input byte chooses the shape of the
// checkpoint: even, the rest is one .safetensors file; odd, the rest is the
// model.safetensors.index.json of a folder whose two shards are small valid files.
#include "container/safetensors.h"
#include "fuzzcommon.h"

#include <filesystem>

namespace {

void writeShards(const std::string& dir)
{
    static const std::vector<uint8_t> ones(16, 0x3c);
    qs::SafetensorsTensor a;
    a.name = "model.layers.0.mlp.up_proj.weight";
    a.dtype = qs::DType::F16;
    a.shape = {2, 4};
    a.data = ones;
    qs::SafetensorsTensor b = a;
    b.name = "model.layers.0.mlp.down_proj.weight";
    qs::writeSafetensors(dir + "/" + qs::shardFileName(0, 2), {a});
    qs::writeSafetensors(dir + "/" + qs::shardFileName(1, 2), {b});
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const std::string& dir = qsfuzz::workDir();
    if ((data[0] & 1) == 0) {
        const std::string path = dir + "/input.safetensors";
        qsfuzz::writeFile(path, data + 1, size - 1);
        qsfuzz::exercise(path);
        return 0;
    }
    const std::string folder = dir + "/sharded";
    static const bool once = [&] {
        std::filesystem::create_directories(folder);
        writeShards(folder);
        return true;
    }();
    (void)once;
    qsfuzz::writeFile(folder + "/model.safetensors.index.json", data + 1, size - 1);
    qsfuzz::exercise(folder);
    return 0;
}
