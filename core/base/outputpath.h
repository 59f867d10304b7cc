#pragma once
// The output guard, one for every writer (the CLI's commands, the GUI's exports, CSV tables,
// reports and --screenshot): never over or into what the command read, never over files it did
// not write, never replacing anything but a regular file. The messages name the paths, for the
// CLI (exit 2) and the GUI alike. The writing itself is AtomicFile's (base/atomicfile.h).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// What an output is: a file (replaced whole by an AtomicFile) or a folder written into.
enum class OutputKind { File, Folder };

// Throws qs::Error naming both paths when `output` is one of `inputs`, lies inside one or
// contains one. Compared after resolving symlinks and by file identity (device and inode), so
// a symlink, a hard link or another mount of an input counts as that input. `inputs` are
// everything the command read: for a checkpoint Checkpoint::sources() (its path, the files it
// mapped and the side files it read: configs, index, splits). Then, naming what is there:
// a File output that exists must be a regular file (checkReplaceable: no symlink, folder,
// device, FIFO or socket); a Folder output must be a folder (a symlink to one is written into).
void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, OutputKind kind);

// A whole file written through the guard: checkOutputPath (File), then writeFileAtomically.
void writeOutputFile(const std::string& path, const std::vector<std::string>& inputs, std::string_view bytes);

// Creates the output folder `out` and runs `write`, which writes its files into it. A folder
// that already holds anything is refused unless `force`; even then `write` replaces only the
// files it writes itself and nothing is deleted: the names of the entries it left alone are
// returned, for the caller to say so. The temporary files a killed run left in it (stale:
// their writer is gone, base/tempfile.h) are removed first and count for nothing. When
// `write` throws and the folder did not exist before, the folder is removed again (the
// exception is rethrown).
std::vector<std::string> writeIntoFolder(const std::string& out, bool force, const std::function<void()>& write);

// "left alone in OUT (not written by this command): a, b": the note for writeIntoFolder's
// result, empty when there is nothing to say.
std::string leftAloneNote(const std::string& out, const std::vector<std::string>& names);

} // namespace qs
