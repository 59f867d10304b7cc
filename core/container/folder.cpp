#include "container/folder.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace qs {
namespace fs = std::filesystem;

bool FolderFiles::has(std::string_view name) const
{
    return std::binary_search(names.begin(), names.end(), name, std::less<>()) || (probe && probe(std::string(name)));
}

std::string FolderFiles::pathOf(const std::string& name) const
{
    return (fs::path(dir.empty() ? "." : dir) / name).string();
}

FolderFiles diskFolder(const std::string& dir, const std::vector<std::string>& only)
{
    FolderFiles f;
    f.dir = dir;
    f.open = [dir](const std::string& name) {
        return std::make_shared<MappedFile>((fs::path(dir.empty() ? "." : dir) / name).string());
    };
    if (!only.empty()) {
        for (const auto& name : only) {
            std::error_code fileEc;
            if (fs::is_regular_file(f.pathOf(name), fileEc))
                f.names.push_back(name);
        }
        std::sort(f.names.begin(), f.names.end());
        return f;
    }
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fileEc;
        if (fs::is_regular_file(it->path(), fileEc))
            f.names.push_back(it->path().filename().string());
    }
    if (ec)
        fail(dir, "cannot list the folder: " + ec.message());
    std::sort(f.names.begin(), f.names.end());
    return f;
}

FolderFiles memoryFolder(const std::vector<MemoryFile>& files)
{
    FolderFiles f;
    f.dir = "<memory>";
    auto bytes = std::make_shared<std::map<std::string, std::span<const uint8_t>>>();
    for (const auto& m : files)
        if (bytes->emplace(m.name, m.bytes).second)
            f.names.push_back(m.name);
    std::sort(f.names.begin(), f.names.end());
    f.open = [bytes, dir = f.dir](const std::string& name) {
        const auto it = bytes->find(name);
        if (it == bytes->end())
            fail(dir + "/" + name, "cannot open: no such file");
        return std::make_shared<MappedFile>(dir + "/" + name, it->second);
    };
    return f;
}

namespace {

// "<prefix>-00002-of-00003<ext>" -> prefix, 2, 3 (five digits each, as transformers and
// llama.cpp write them).
bool splitShardName(std::string_view name, std::string_view ext, std::string& prefix, int& no, int& count)
{
    constexpr size_t digitsLen = 15; // "-NNNNN-of-NNNNN"
    if (!name.ends_with(ext) || name.size() <= ext.size() + digitsLen)
        return false;
    const std::string_view t = name.substr(name.size() - ext.size() - digitsLen, digitsLen);
    auto digits = [&](size_t at, int& v) {
        v = 0;
        for (size_t i = at; i < at + 5; ++i) {
            if (t[i] < '0' || t[i] > '9')
                return false;
            v = v * 10 + (t[i] - '0');
        }
        return true;
    };
    if (t[0] != '-' || t.substr(6, 4) != "-of-" || !digits(1, no) || !digits(10, count) || no < 1 || no > count)
        return false;
    prefix = std::string(name.substr(0, name.size() - ext.size() - digitsLen));
    return true;
}

std::string shardName(const std::string& prefix, int no, int count, std::string_view ext)
{
    char digits[32];
    std::snprintf(digits, sizeof digits, "-%05d-of-%05d", no, count);
    return prefix + digits + std::string(ext);
}

std::string listed(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

std::vector<FileSet> fileSets(const std::vector<std::string>& names, std::string_view ext)
{
    std::vector<FileSet> out;
    std::map<std::pair<std::string, int>, std::map<int, std::string>> sets; // (prefix, count) -> no -> name
    for (const auto& n : names) {
        std::string prefix;
        int no = 0, count = 0;
        if (splitShardName(n, ext, prefix, no, count))
            sets[{prefix, count}].emplace(no, n);
        else if (n.ends_with(ext))
            out.push_back({n, {n}, {}, false});
    }
    for (const auto& [key, shards] : sets) {
        const auto& [prefix, count] = key;
        FileSet s;
        s.label = prefix + "-NNNNN-of-" + shardName("", count, count, ext).substr(10);
        s.sharded = true;
        for (const auto& [no, name] : shards)
            s.files.push_back(name);
        s.missingCount = size_t(count) - shards.size();
        for (int k = 1; k <= count && s.missing.size() < 8 && s.missing.size() < s.missingCount; ++k)
            if (!shards.count(k))
                s.missing.push_back(shardName(prefix, k, count, ext));
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const FileSet& a, const FileSet& b) { return a.label < b.label; });
    return out;
}

const FileSet& pickFileSet(const std::string& dir, const std::vector<FileSet>& sets, std::string_view what)
{
    std::vector<const FileSet*> sharded;
    for (const auto& s : sets)
        if (s.sharded)
            sharded.push_back(&s);
    const FileSet* pick = sharded.size() == 1 ? sharded.front()
        : sharded.empty() && sets.size() == 1 ? &sets.front()
                                              : nullptr;
    if (pick) {
        if (pick->missingCount) {
            const size_t more = pick->missingCount - pick->missing.size();
            fail(dir,
                 "the shard set " + pick->label + " is incomplete: " + listed(pick->missing)
                     + (more ? " and " + std::to_string(more) + " more" : std::string())
                     + (pick->missingCount == 1 ? " is" : " are") + " missing");
        }
        return *pick;
    }
    std::vector<FolderCandidate> candidates;
    std::vector<std::string> labels;
    for (const auto& s : sets) {
        candidates.push_back({s.label, s.files});
        labels.push_back(s.sharded ? s.label + " (" + std::to_string(s.files.size()) + " shards)" : s.label);
    }
    throw FolderChoiceError(dir + ": holds " + std::to_string(sets.size()) + " " + std::string(what)
                                + " checkpoints and nothing that says which to open (no *.safetensors.index.json, "
                                  "no model.safetensors, not exactly one shard set): "
                                + listed(labels) + "; open one of the files, or the folder in the GUI to pick one",
                            std::move(candidates));
}

} // namespace qs
