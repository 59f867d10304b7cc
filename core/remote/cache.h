#pragma once
// The on-disk cache of remote files: $XDG_CACHE_HOME/quantscope (~/.cache/quantscope), one folder
// per remote file and validator, named by a hash of the two. Capped in size (QUANTSCOPE_CACHE_MB,
// default 20480): opening an entry removes the least recently opened others until the cache fits,
// never one that a process has open (each holds a shared lock on its entry's `lock` file).
#include <cstdint>
#include <string>

namespace qs::remote {

std::string cacheRoot();
uint64_t cacheLimitBytes();
// The folder of the entry for `url` with `validator` and `size` (not created).
std::string cacheEntryDir(const std::string& url, const std::string& validator, uint64_t size);
// Removes least recently used entries other than `keep` while the cache holds more than the limit.
void trimCache(const std::string& keep);

} // namespace qs::remote
