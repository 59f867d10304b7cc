#pragma once
// Finding a float reference of the same model beside a quantized checkpoint: the files and
// folders in its folder (for a folder, its siblings) that hold some of its quantized weights as
// float tensors, paired by the one name matching (namemap.h). The Error view offers what this
// finds; a command could use it the same way.
#include <atomic>
#include <cstddef>
#include <string>

namespace qs {

class Checkpoint;

// How many quantized weights of `ckpt` `other` holds as float tensors (matchWeights pairs).
size_t floatReferencePairs(const Checkpoint& ckpt, const Checkpoint& other);

struct ReferenceSearch {
    std::string path; // the candidate pairing the most weights; "" when none pairs any
    size_t pairs = 0; // how many it pairs
    size_t looked = 0; // candidates opened (at most maxLooked)
};
// Opens each .gguf / .safetensors file inside `ckpt` when it is a folder, then each file and
// folder beside it (never ckpt's own files), in name order, at most `maxLooked` of them; what does not open is no
// reference. `cancel` stops the search between candidates, with what was found so far.
ReferenceSearch findFloatReferenceBeside(const Checkpoint& ckpt, const std::atomic<bool>* cancel = nullptr,
                                         size_t maxLooked = 64);

} // namespace qs
