#pragma once
// The temporary files AtomicFile writes before it renames them over their target: named
// `.NAME.tmp-XXXXXX` beside the target NAME, locked (flock) by their writer for as long as it
// lives, and registered for removal when SIGINT, SIGTERM or SIGHUP ends the process. A run
// killed where no handler runs (SIGKILL, a power cut) leaves one behind; its lock went with
// its writer, so the next writer of that name or into that folder removes it as stale.
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// `name` (a file name, no folder) is one of our temporary files: `.NAME.tmp-XXXXXX`, six
// letters or digits at the end; of `forName` only, when given.
bool isTempFileName(std::string_view name, std::string_view forName = {});

// A temporary file `.NAME.tmp-XXXXXX` created beside `target` (mode 0600): `fd` to write it
// (read-write, close on exec), `lockFd` holding its lock (a descriptor of its own, so that
// closing `fd`, and seeing its error, comes before the rename while the lock still holds). The
// signal handlers are installed and the path registered before the file is made, so no signal
// can come between its creation and its registration. Throws qs::Error naming the target.
struct CreatedTempFile {
    std::string path;
    int fd = -1;
    int lockFd = -1; // -1 on a file system without flock
    int slot = -1; // the registry's slot, for releaseTempFile
};
CreatedTempFile createTempFile(const std::string& target);
// The temporary file is gone (renamed into place or unlinked): its path leaves the registry and
// its lock is dropped (`lockFd` closed).
void releaseTempFile(int slot, int lockFd);

// Removes `path` when it is a temporary file of ours whose writer is gone: a regular file
// of this user that nobody holds the lock of. True when it was removed.
bool removeIfStaleTempFile(const std::string& path);
// Every stale temporary file in `dir` (of `forName` only, when given): the names removed.
std::vector<std::string> removeStaleTempFiles(const std::string& dir, std::string_view forName = {});

} // namespace qs
