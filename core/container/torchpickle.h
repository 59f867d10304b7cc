#pragma once
// A restricted reader of the pickle torch.save writes as an archive's data.pkl (protocols 2 to 5):
// it executes nothing and imports nothing. It knows the opcodes torch.save emits for dicts,
// ordered dicts, lists, tuples, numbers, strings, storages (persistent ids) and tensors, and an
// allow-list of globals (collections.OrderedDict, torch._utils._rebuild_tensor_v2/_v3 and
// _rebuild_parameter, the typed storage classes, torch.UntypedStorage and the dtypes v3 names);
// any other global or opcode is refused naming it and the file. The stack, the memo and every
// object live in flat arrays bounded by the pickle's size; nothing recurses.
#include "container/checkpoint.h"
#include "container/dtype.h"
#include "base/smallvector.h"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace qs {

// The largest data.pkl read (a state dict of 100,000 tensors pickles to about 10 MiB).
inline constexpr uint64_t kTorchPickleMax = uint64_t(64) << 20;

// A storage named by a persistent id ('storage', <storage class>, key, location, numel): the
// archive record data/<key> holds numel elements of dtype.
struct TorchStorage {
    std::string key;
    std::string location; // "cpu", "cuda:0", ...
    DType dtype = DType::U8; // U8 for torch.UntypedStorage (numel counts bytes)
    std::string typeName; // "FloatStorage", "UntypedStorage"
    uint64_t numel = 0;
};

// A tensor the pickle rebuilds from a storage: its elements start storageOffset elements of
// dtype into the storage, laid out by size and stride (in elements).
struct TorchTensor {
    std::string name; // the dict keys on its path, joined by '.'
    size_t storage = 0; // into TorchPickle::storages
    DType dtype = DType::U8;
    uint64_t storageOffset = 0;
    Shape size;
    Shape stride;
};

struct TorchPickle {
    std::vector<TorchStorage> storages;
    std::vector<TorchTensor> tensors; // in the dicts' order
    // The numbers, strings, booleans and Nones beside the tensors (an epoch, a version).
    std::vector<std::pair<std::string, MetaValue>> metadata;
    // Values that are none of those (a tuple, a bare storage): counted, not listed.
    size_t skipped = 0;
};

// Reads `pickle` (the bytes of `file`'s data.pkl) as torch.save wrote it: a dict, possibly of
// dicts and lists, of tensors. Throws qs::Error naming `file` and the opcode, global or value
// that is refused.
TorchPickle readTorchPickle(std::span<const uint8_t> pickle, const std::string& file);

} // namespace qs
