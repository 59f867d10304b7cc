#pragma once
// PyTorch checkpoints: torch.save's zip archive (pytorch_model.bin, *.pt, *.pth: <archive>/data.pkl,
// <archive>/data/<key>, version, byteorder), one file or shards with a pytorch_model.bin.index.json.
// data.pkl is read by the restricted unpickler (container/torchpickle.h), which executes nothing;
// each tensor maps from its storage record as a safetensors tensor maps from its file. Refused
// with the reason: the legacy pre-1.6 format, a compressed or encrypted record, big-endian
// storages, a tensor past its storage. A strided view is listed with a note and not decoded.
#include "container/checkpoint.h"
#include "container/folder.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// Whether `name` is a file this reader opens by its name (.bin, .pt, .pth).
bool isPytorchFileName(std::string_view name);

// Maps one torch.save archive and appends its tensors (in the state dict's order; offsets absolute
// in the file) and its non-tensor values as metadata to `ckpt`. Touches no tensor data.
void readPytorchFile(Checkpoint& ckpt, const std::string& path);
void readPytorchMapped(Checkpoint& ckpt, std::shared_ptr<MappedFile> map);
// A folder's PyTorch checkpoint: a *.bin.index.json validated against its shards (as safetensors'),
// pytorch_model.bin, one shard set or the one file (container/folder.h), or the `chosen` files;
// plus the configs. Sets ckpt.openedAs.
void readPytorchFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::vector<std::string>& chosen = {});

} // namespace qs
