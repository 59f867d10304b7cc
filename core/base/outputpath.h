#pragma once
// Guards for what a command writes: never over its own input, never over files it did not
// write. The messages name the paths, for the CLI (exit 2) and the GUI alike.
#include <functional>
#include <string>
#include <vector>

namespace qs {

// Throws qs::Error naming both paths when `output` is one of `inputs`, lies inside one or
// contains one. Compared after resolving symlinks and by file identity (device and inode), so
// a symlink, a hard link or another mount of an input counts as that input.
void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs);

// Creates the output folder `out` and runs `write`, which writes its files into it. A folder
// that already holds anything is refused unless `force`; even then `write` replaces only the
// files it writes itself and nothing is deleted: the names of the entries it left alone are
// returned, for the caller to say so. When `write` throws and the folder did not exist
// before, the folder is removed again (the exception is rethrown).
std::vector<std::string> writeIntoFolder(const std::string& out, bool force, const std::function<void()>& write);

// "left alone in OUT (not written by this command): a, b": the note for writeIntoFolder's
// result, empty when there is nothing to say.
std::string leftAloneNote(const std::string& out, const std::vector<std::string>& names);

} // namespace qs
