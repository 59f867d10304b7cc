#pragma once
// What the operating system is asked about the machine and the process, in one place: Linux is
// what is built and tested here; each call has a fallback (0: unknown) so that another system's
// build is not blocked by these calls (macOS and Windows builds are not tested here).
#include <cstdint>

namespace qs::platform {

// The memory page size in bytes (4096 when unknown).
uint64_t pageSize();
// The machine's physical memory in bytes; 0 when unknown.
uint64_t physicalMemoryBytes();
// How many bytes of [data, data + size), a mapping of ours, are resident in RAM now (mincore);
// 0 when unknown.
uint64_t residentBytes(const void* data, uint64_t size);
// This process's private resident memory (anonymous pages, without mapped files); 0 when unknown.
uint64_t privateResidentBytes();
// Hands the memory the allocator keeps after frees back to the system (glibc keeps it: a closed
// checkpoint of a million tensors left hundreds of MiB counted as the process's own).
void returnFreedMemory();
// Whether standard error is a terminal (the CLI's progress lines).
bool stderrIsTerminal();
// The threads on the whole machine that are running or waiting for a core now, the caller
// included (Linux: /proc/loadavg's fourth field); 0 when unknown.
int runnableThreads();

} // namespace qs::platform
