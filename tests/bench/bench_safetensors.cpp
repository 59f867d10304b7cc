// Opening a large sharded safetensors checkpoint: a sparse folder of 8 shards, 336 tensors,
// about 5 GiB of (absent) data. Prints the time of openCheckpoint on the folder, the
// time of a baseline that only maps every shard and copies its header bytes, their ratio,
// and the peak RSS growth. Aim (issue 2): well under a second and under 64 MiB RSS.
#include "container/checkpoint.h"
#include "container/json.h"
#include "container/mappedfile.h"
#include "container/safetensors.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace {

long peakRssKiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

std::string le64(uint64_t n)
{
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return s;
}

// One shard: a real header, then a hole of `dataBytes` (the file is sparse).
void writeSparseShard(const std::string& path,
                      const std::vector<std::pair<std::string, std::vector<uint64_t>>>& tensors, uint64_t& dataBytes)
{
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
    dataBytes = 0;
    for (const auto& [name, shape] : tensors) {
        const uint64_t bytes = shape[0] * shape[1] * 2;
        header += ",";
        qs::json::appendQuoted(header, name);
        header += ":{\"dtype\":\"BF16\",\"shape\":[" + std::to_string(shape[0]) + "," + std::to_string(shape[1])
            + "],\"data_offsets\":[" + std::to_string(dataBytes) + "," + std::to_string(dataBytes + bytes) + "]}";
        dataBytes += bytes;
    }
    header += "}";
    header.append((8 - header.size() % 8) % 8, ' ');
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        const std::string prefix = le64(header.size());
        out.write(prefix.data(), 8);
        out.write(header.data(), std::streamsize(header.size()));
    }
    if (truncate(path.c_str(), off_t(8 + header.size() + dataBytes)) != 0)
        std::perror("truncate");
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

int main()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    constexpr int kShards = 8, kLayers = 48;
    std::map<std::string, std::string> weightMap;
    std::vector<std::string> shardPaths;
    uint64_t total = 0;
    int tensors = 0;
    for (int s = 0; s < kShards; ++s) {
        std::vector<std::pair<std::string, std::vector<uint64_t>>> list;
        for (int l = s * kLayers / kShards; l < (s + 1) * kLayers / kShards; ++l)
            for (const char* m : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                                  "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
                const bool mlp = std::string(m).starts_with("mlp");
                list.push_back({"model.layers." + std::to_string(l) + "." + m + ".weight",
                                {uint64_t(mlp ? 5632 : 2048), uint64_t(2048)}});
            }
        const std::string name = qs::shardFileName(size_t(s), kShards);
        for (const auto& t : list)
            weightMap[t.first] = name;
        uint64_t bytes = 0;
        shardPaths.push_back(d + "/" + name);
        writeSparseShard(shardPaths.back(), list, bytes);
        total += bytes;
        tensors += int(list.size());
    }
    std::string index = "{\"metadata\":{\"total_size\":" + std::to_string(total) + "},\"weight_map\":{";
    bool first = true;
    for (const auto& [name, file] : weightMap) {
        index += first ? "" : ",";
        first = false;
        qs::json::appendQuoted(index, name);
        index += ":";
        qs::json::appendQuoted(index, file);
    }
    index += "}}";
    std::ofstream(d + "/model.safetensors.index.json") << index;

    const long rssBefore = peakRssKiB();
    constexpr int kRuns = 5;
    // Baseline: map every shard and copy its header bytes, no parsing or validation.
    const auto b0 = std::chrono::steady_clock::now();
    size_t sink = 0;
    for (int r = 0; r < kRuns; ++r)
        for (const auto& p : shardPaths) {
            const qs::MappedFile f(p);
            uint64_t n = 0;
            for (int i = 7; i >= 0; --i)
                n = (n << 8) | f.bytes()[size_t(i)];
            const auto h = f.range(8, n, "header");
            sink += std::string(reinterpret_cast<const char*>(h.data()), h.size()).size();
        }
    const auto b1 = std::chrono::steady_clock::now();
    size_t listed = 0;
    for (int r = 0; r < kRuns; ++r)
        listed += qs::openCheckpoint(d)->tensors.size();
    const auto b2 = std::chrono::steady_clock::now();
    const long rssAfter = peakRssKiB();

    const double base = seconds(b0, b1) / kRuns, open = seconds(b1, b2) / kRuns;
    std::printf("sharded safetensors: %d shards, %d tensors, %.2f GiB of data (sparse), header bytes %zu\n", kShards,
                tensors, double(total) / double(1ull << 30), sink / kRuns);
    std::printf("openCheckpoint(folder): %.3f ms per open (%zu tensors listed)\n", open * 1e3, listed / kRuns);
    std::printf("baseline (map + copy headers): %.3f ms; open / baseline = %.1fx\n", base * 1e3, open / base);
    std::printf("peak RSS: %.1f MiB before, %.1f MiB after (growth %.1f MiB)\n", rssBefore / 1024.0, rssAfter / 1024.0,
                (rssAfter - rssBefore) / 1024.0);
    return listed == size_t(kRuns * tensors) ? 0 : 1;
}
