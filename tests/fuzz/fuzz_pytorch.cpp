// libFuzzer target: the PyTorch reader. The first input byte chooses what the rest is: 0 (mod 3),
// a data.pkl for the restricted unpickler alone (container/torchpickle.h), which must refuse with a
// qs::Error or return storages and tensors whose fields it checked; 1, one pytorch_model.bin (zip
// directory, records, storages, tensors) opened and exercised as the CLI would; 2, a packed folder
// (qsfuzz::unpackFolder: shards, a pytorch_model.bin.index.json, configs).
#include "container/torchpickle.h"
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const std::span<const uint8_t> rest(data + 1, size - 1);
    switch (data[0] % 3) {
    case 0:
        try {
            const qs::TorchPickle p = qs::readTorchPickle(rest, "data.pkl");
            for (const qs::TorchTensor& t : p.tensors)
                if (t.storage >= p.storages.size() || t.size.size() != t.stride.size())
                    abort();
        } catch (const qs::Error&) {
        }
        break;
    case 1: qsfuzz::exercise({{"pytorch_model.bin", rest}}); break;
    default: qsfuzz::exercise(qsfuzz::unpackFolder(rest.data(), rest.size())); break;
    }
    return 0;
}
