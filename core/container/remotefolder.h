#pragma once
// A remote location as the readers see a folder (container/folder.h): an http(s) URL's folder, in
// which only the named file is listed and the others (configs beside it, an index's shards, a
// GGUF set's other splits) are looked for one by one; or a hub repository's folder, listed by the
// hub's tree API. Every file opens as a remote file read by range into the cache.
#include "container/folder.h"

#include <string>

namespace qs {

struct RemoteLocation {
    FolderFiles folder;
    // The file the path names inside `folder`, or empty when it names the folder itself (hf://ORG/REPO).
    std::string file;
};
// Throws qs::Error naming `path` (not found, no token, not a checkpoint file, ...).
RemoteLocation remoteLocation(const std::string& path);

// The hub repository's files (paths inside it, sizes) as the tree API lists them, recursively;
// for the GUI's file picker.
struct HubFile {
    std::string path;
    uint64_t size = 0;
};
std::vector<HubFile> listHubRepository(const std::string& hubPath);

} // namespace qs
