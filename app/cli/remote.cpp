// What the CLI says about remote checkpoints: fetch progress, the total a whole run will fetch,
// and the bytes fetched.
#include "commands.h"
#include "base/counttext.h"

#include "base/platform.h"
#include "container/checkpoint.h"
#include "remote/http.h"
#include "remote/remotefile.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace qscli {

void installFetchProgress()
{
    if (!qs::platform::stderrIsTerminal())
        return;
    qs::remote::setFetchObserver([](const std::string& name, uint64_t done, uint64_t total) {
        static std::mutex lock;
        const std::lock_guard guard(lock);
        std::fprintf(stderr, "\rfetching %s: %s of %s\033[K%s", name.c_str(), sizeText(done).c_str(),
                     sizeText(total).c_str(), done >= total ? "\n" : "");
        std::fflush(stderr);
    });
}

void stateRemoteFetch(const qs::Checkpoint& ckpt)
{
    const qs::Checkpoint::RemoteBytes bytes = ckpt.remoteBytes();
    if (!bytes.any())
        return;
    std::set<uint32_t> members;
    for (const auto& w : ckpt.weights)
        for (const auto& [role, idx] : w.members)
            members.insert(idx);
    uint64_t missing = 0;
    for (uint32_t idx : members)
        missing += ckpt.missingBytes(ckpt.tensors[idx]);
    std::fprintf(stderr, "%s: fetching up to %s of the weights' bytes (the files hold %s, %s of them cached)\n",
                 ckpt.path.c_str(), sizeText(missing).c_str(), sizeText(bytes.size).c_str(),
                 sizeText(bytes.cached).c_str());
}

void printFetchSummary()
{
    if (const uint64_t requests = qs::remote::requestsSent())
        std::fprintf(
            stderr, "fetched %s (%s) in %s\n", qs::counted(qs::remote::bytesReceived(), "byte", "bytes").c_str(),
            sizeText(qs::remote::bytesReceived()).c_str(), qs::counted(requests, "request", "requests").c_str());
}

} // namespace qscli
