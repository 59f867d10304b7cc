#pragma once
// Mapped input files that change while they are read. A checkpoint is memory-mapped; when its file
// is truncated under the mapping (a converter rewriting its output in place), a read of a page past
// the new end raises SIGBUS, which would kill the process with no message. While a mapping is
// registered here, a SIGBUS inside it, on any thread, instead maps a zero page over the faulted
// page (the read goes on) and marks the mapping; a SIGBUS anywhere else still ends the process as
// before. Whatever was read from a changed file is then unfit to report: before a command reports
// a result or writes a file, checkMappedFilesUnchanged() fails if any registered mapping was hit,
// or if its file is no longer the one mapped (another inode, size or modification time: bytes
// rewritten in place raise no signal). A process whose every mapping is an input of what it
// writes (the CLI: one command) sets checkBeforeWrites, and AtomicFile::commit then refuses to put
// a file in place; the GUI, which keeps other checkpoints open, asks Checkpoint::changedOnDisk.
#include <cstdint>
#include <optional>
#include <string>

namespace qs::mapguard {

// Registers [data, data + size), mapped from `path` (just opened and fstat'ed as `dev`, `ino`,
// `bytes`, `mtimeNs`); returns the handle for unregister(). The first call installs the handler.
// -1 when the table is full (the mapping is then unguarded, as before this existed).
int registerMapping(const void* data, uint64_t size, const std::string& path, uint64_t dev, uint64_t ino,
                    uint64_t bytes, int64_t mtimeNs);
void unregisterMapping(int handle);

// Why the file of a registered mapping can no longer be trusted ("PATH changed while it was being
// read (now N bytes, was M)"), or nothing.
std::optional<std::string> changed(int handle);
// Throws qs::Error ("PATH changed while it was being read (now N bytes, was M): `consequence`")
// for the first registered mapping that changed.
void checkMappedFilesUnchanged(const char* consequence = "nothing was reported");
// The same over every mapping since the process started, those already unmapped included (a
// mapping that had changed when it was unregistered is remembered): what a command-line run
// checks before it shows its output.
void checkUnchangedSinceStart(const char* consequence = "nothing was reported");
// Whether AtomicFile::commit runs checkUnchangedSinceStart("nothing was written") first (off by
// default; the CLI turns it on).
void setCheckBeforeWrites(bool on);
void checkBeforeWrite();

} // namespace qs::mapguard
