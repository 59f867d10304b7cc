#include "container/checkpoint.h"

#include "container/folder.h"
#include "container/gguf.h"
#include "container/pytorch.h"
#include "container/remotefolder.h"
#include "remote/remotefile.h"
#include "remote/url.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "base/platform.h"
#include "base/progress.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace qs {

uint64_t Checkpoint::nextSerial()
{
    static std::atomic<uint64_t> last{0};
    return ++last;
}

std::string_view containerName(Container c)
{
    return c == Container::Gguf ? "gguf" : c == Container::Pytorch ? "pytorch" : "safetensors";
}

std::string_view metaTypeName(MetaValue::Type t)
{
    static constexpr std::string_view names[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                                 "bool", "string", "array", "u64", "i64", "f64"};
    return names[static_cast<size_t>(t)];
}

namespace {

// What `out << v` writes for each value type, without a stream per value (a stream's set-up
// was most of listing three million metadata records).
void appendDisplay(std::string& out, const MetaValue& m, size_t maxItems)
{
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::vector<MetaValue>>) {
                out += '[';
                for (size_t i = 0; i < v.size() && i < maxItems; ++i) {
                    if (i)
                        out += ", ";
                    appendDisplay(out, v[i], maxItems);
                }
                if (v.size() > maxItems)
                    out += ", ... (" + std::to_string(v.size()) + " items)";
                out += ']';
            } else if constexpr (std::is_same_v<T, bool>) {
                out += v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, std::string>) {
                out += v;
            } else if constexpr (std::is_same_v<T, double>) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%g", v); // an ostream's default: precision 6, %g
                out += buf;
            } else {
                out += std::to_string(v);
            }
        },
        m.value);
}

} // namespace

std::string MetaValue::toDisplayString(size_t maxItems) const
{
    std::string out;
    appendDisplay(out, *this, maxItems);
    return out;
}

uint64_t TensorEntry::elementCount() const
{
    uint64_t n = 1;
    for (uint64_t d : shape)
        n *= d;
    return n;
}

std::string_view NameArena::keep(std::string_view name)
{
    // Blocks growing from 1 to 64 KiB (a checkpoint of a few tensors stays small); a name of more
    // than a quarter of the largest block gets a block of its own.
    constexpr size_t kBlock = size_t(64) << 10;
    if (name.size() > m_left) {
        if (name.size() > kBlock / 4) {
            // The current block keeps its free space.
            m_blocks.push_back(std::make_unique<char[]>(name.size()));
            std::memcpy(m_blocks.back().get(), name.data(), name.size());
            return {m_blocks.back().get(), name.size()};
        }
        const size_t size = std::max(m_nextBlock, name.size());
        m_blocks.push_back(std::make_unique<char[]>(size));
        m_free = m_blocks.back().get();
        m_left = size;
        m_nextBlock = std::min(kBlock, m_nextBlock * 2);
    }
    if (name.empty())
        return {};
    std::memcpy(m_free, name.data(), name.size());
    const std::string_view kept(m_free, name.size());
    m_free += name.size();
    m_left -= name.size();
    return kept;
}

void NameArena::take(NameArena&& other)
{
    // Other's free space is given up; this arena goes on filling its own current block.
    m_blocks.insert(m_blocks.end(), std::make_move_iterator(other.m_blocks.begin()),
                    std::make_move_iterator(other.m_blocks.end()));
    other.m_blocks.clear();
    other.m_free = nullptr;
    other.m_left = 0;
}

uint32_t Checkpoint::addFile(std::shared_ptr<MappedFile> file)
{
    files.push_back(file->path());
    m_maps.push_back(std::move(file));
    return static_cast<uint32_t>(m_maps.size() - 1);
}

void Checkpoint::buildIndex()
{
    if (tensors.size() > UINT32_MAX)
        fail(files.empty() ? path : files.front(),
             std::to_string(tensors.size()) + " tensors are more than can be indexed");
    m_index.resize(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i)
        m_index[i] = static_cast<uint32_t>(i);
    // Stable: of two tensors with one name, the earlier in file order is found first.
    std::stable_sort(m_index.begin(), m_index.end(),
                     [this](uint32_t a, uint32_t b) { return tensors[a].name < tensors[b].name; });
    for (size_t k = 1; k < m_index.size(); ++k) {
        const auto& t = tensors[m_index[k]];
        if (t.name == tensors[m_index[k - 1]].name) {
            const auto& first = tensors[std::min(m_index[k], m_index[k - 1])];
            const auto& second = tensors[std::max(m_index[k], m_index[k - 1])];
            fail(files.at(second.file), "duplicate tensor name '" + std::string(first.name) + "'");
        }
    }
}

std::span<const uint8_t> Checkpoint::bytes(const TensorEntry& t) const
{
    return m_maps.at(t.file)->range(t.offset, t.nbytes, "tensor '" + std::string(t.name) + "'");
}

int Checkpoint::indexOf(std::string_view name) const
{
    const auto it = std::lower_bound(m_index.begin(), m_index.end(), name,
                                     [this](uint32_t i, std::string_view key) { return tensors[i].name < key; });
    return it == m_index.end() || tensors[*it].name != name ? -1 : static_cast<int>(*it);
}

const TensorEntry* Checkpoint::find(std::string_view name) const
{
    const int i = indexOf(name);
    return i < 0 ? nullptr : &tensors[static_cast<size_t>(i)];
}

const LogicalWeight* Checkpoint::findWeight(std::string_view nameOrMember) const
{
    for (const auto& w : weights)
        if (w.name == nameOrMember)
            return &w;
    for (const auto& w : weights)
        for (const auto& [role, idx] : w.members)
            if (tensors[idx].name == nameOrMember)
                return &w;
    return nullptr;
}

std::vector<std::string> Checkpoint::sources() const
{
    std::vector<std::string> all{path};
    all.insert(all.end(), files.begin(), files.end());
    all.insert(all.end(), sideFiles.begin(), sideFiles.end());
    return all;
}

std::optional<std::string> Checkpoint::changedOnDisk() const
{
    for (const auto& map : m_maps)
        if (std::optional<std::string> why = map->changed())
            return why;
    return std::nullopt;
}

Checkpoint::ReturnsFreedMemory::~ReturnsFreedMemory()
{
    platform::returnFreedMemory();
}

Checkpoint::RemoteBytes Checkpoint::remoteBytes() const
{
    RemoteBytes r;
    for (const auto& map : m_maps)
        if (const remote::RemoteFile* f = map->remoteFile()) {
            r.size += f->size();
            r.cached += f->cachedBytes();
        }
    return r;
}

uint64_t Checkpoint::missingBytes(const TensorEntry& t) const
{
    const remote::RemoteFile* f = m_maps.at(t.file)->remoteFile();
    return f ? f->missingBytes(t.offset, t.nbytes) : 0;
}

uint64_t Checkpoint::residentBytes() const
{
    uint64_t bytes = 0;
    for (const auto& map : m_maps)
        bytes += map->residentBytes();
    return bytes;
}

const MetaValue* Checkpoint::meta(std::string_view key) const
{
    for (const auto& [k, v] : metadata)
        if (k == key)
            return &v;
    return nullptr;
}

namespace {

// The first four bytes of a file (fewer when it is shorter).
// The first four bytes (fewer for a shorter file), read, not mapped: the reader maps the file once.
std::string magicOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    char magic[4];
    in.read(magic, 4);
    return std::string(magic, size_t(in.gcount()));
}

// The magic as text when it is printable, else as hex bytes.
std::string shownMagic(const std::string& magic)
{
    std::string text = "'", hex;
    bool printable = true;
    for (unsigned char ch : magic) {
        printable &= ch >= 0x20 && ch < 0x7f;
        text += char(ch);
        static constexpr char digits[] = "0123456789abcdef";
        hex += std::string(hex.empty() ? "" : " ") + digits[ch >> 4] + digits[ch & 15];
    }
    return printable ? text + "'" : hex;
}

// A file that is not GGUF goes to the safetensors reader. When it looks like a GGUF (its
// name, or the pre-release magic) both readings are reported in one message.
void readSafetensorsOrExplain(Checkpoint& ckpt, const std::string& path, const std::string& magic)
{
    const bool prerelease = magic == "FUGG";
    if (!prerelease && !path.ends_with(".gguf")) {
        readSafetensorsFile(ckpt, path);
        return;
    }
    try {
        readSafetensorsFile(ckpt, path);
    } catch (const Cancelled&) {
        throw;
    } catch (const Error& e) {
        // The safetensors reader's error names this file: said once, in front.
        ErrorContext inner = e.context();
        if (inner.file == path)
            inner.file.clear();
        std::string msg = "not a GGUF file: it starts with " + shownMagic(magic) + ", not 'GGUF'";
        if (prerelease)
            msg += " ('FUGG' is the magic of pre-release GGUF files that gguf.py wrote in July and August 2023, "
                   "before the format was released; llama.cpp refuses them too)";
        throw Error(ErrorContext{path},
                    msg + "; read as safetensors it fails as well: " + Error(inner, e.detail()).what());
    }
}

// A folder's checkpoint, as the loaders prefer: its safetensors checkpoint, else its GGUF, else its
// PyTorch one (or what `chosen` names); every other checkpoint file in it is listed as left out.
void readFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::vector<std::string>& chosen)
{
    const auto isSafetensors = [](const std::string& n) {
        return n.ends_with(".safetensors") || n.ends_with(".safetensors.index.json");
    };
    const auto isPytorch = [](const std::string& n) { return isPytorchFileName(n) || n.ends_with(".bin.index.json"); };
    const auto any = [&](const auto& is) { return std::any_of(folder.names.begin(), folder.names.end(), is); };
    const std::vector<FileSet> ggufs = fileSets(folder.names, ".gguf");
    const bool chosenGguf = !chosen.empty() && chosen.front().ends_with(".gguf");
    const bool chosenPytorch = !chosen.empty() && isPytorchFileName(chosen.front());
    const bool safetensors = chosen.empty() && any(isSafetensors);
    if (chosenGguf || (chosen.empty() && !safetensors && !ggufs.empty())) {
        // A split set opens from any of its splits (readGguf finds the siblings).
        std::string first;
        if (chosenGguf) {
            first = chosen.front();
            if (!folder.has(first))
                fail(folder.pathOf(first), "no such file in the folder");
            ckpt.openedAs = first;
        } else {
            const FileSet& set = pickFileSet(folder.dir, ggufs, "GGUF");
            first = set.files.front();
            ckpt.openedAs = set.label;
        }
        ckpt.container = Container::Gguf;
        readGguf(ckpt, folder.open(first), &folder);
    } else if (chosenPytorch || (chosen.empty() && !safetensors && any(isPytorch))) {
        ckpt.container = Container::Pytorch;
        readPytorchFolder(ckpt, folder, chosen);
    } else {
        ckpt.container = Container::Safetensors;
        readSafetensorsFolder(ckpt, folder, chosen);
    }
    std::set<std::string> read;
    for (const auto& f : ckpt.files)
        read.insert(std::filesystem::path(f).filename().string());
    for (const auto& name : folder.names)
        if ((isSafetensors(name) || isPytorch(name) || name.ends_with(".gguf")) && !read.count(name)
            && name != ckpt.openedAs)
            ckpt.leftOut.push_back(name);
}

// A URL or hf:// path: a repository or folder opens as a folder does; a file as the same file
// on disk would, its configs looked for beside it; an index as its folder.
void readRemote(Checkpoint& ckpt, const std::string& path, const std::vector<std::string>& chosen)
{
    RemoteLocation loc = remoteLocation(path);
    if (loc.file.empty()) {
        readFolder(ckpt, loc.folder, chosen);
        return;
    }
    if (!chosen.empty())
        fail(path, "not a folder, so no files can be chosen in it");
    const std::string& file = loc.file;
    if (file.ends_with(".safetensors.index.json")) {
        // This index, not another one beside it.
        std::erase_if(loc.folder.names,
                      [&](const std::string& n) { return n != file && n.ends_with(".safetensors.index.json"); });
        ckpt.container = Container::Safetensors;
        readSafetensorsFolder(ckpt, loc.folder);
        return;
    }
    if (file.ends_with(".bin.index.json")) {
        std::erase_if(loc.folder.names,
                      [&](const std::string& n) { return n != file && n.ends_with(".bin.index.json"); });
        ckpt.container = Container::Pytorch;
        readPytorchFolder(ckpt, loc.folder);
        return;
    }
    const std::shared_ptr<MappedFile> map = loc.folder.open(file);
    map->ensure(0, 4);
    const auto head = map->bytes().first(std::min<uint64_t>(4, map->size()));
    const std::string magic(reinterpret_cast<const char*>(head.data()), head.size());
    if (magic == "GGUF") {
        ckpt.container = Container::Gguf;
        readGguf(ckpt, map, &loc.folder);
    } else if (file.ends_with(".safetensors")) {
        ckpt.container = Container::Safetensors;
        readSafetensorsMapped(ckpt, map);
        readHuggingFaceConfigs(ckpt, loc.folder);
    } else if (isPytorchFileName(file)) {
        ckpt.container = Container::Pytorch;
        readPytorchMapped(ckpt, map);
        readHuggingFaceConfigs(ckpt, loc.folder);
    } else {
        fail(map->path(), "not a GGUF file: it starts with " + shownMagic(magic) + ", not 'GGUF'");
    }
}

} // namespace

std::shared_ptr<Checkpoint> Checkpoint::read(const std::string& path, const std::vector<std::string>& chosen)
{
    namespace fs = std::filesystem;
    auto ckpt = std::make_shared<Checkpoint>();
    ckpt->path = path;
    if (remote::isRemotePath(path)) {
        readRemote(*ckpt, path, chosen);
    } else if (isFolderPath(path)) {
        readFolder(*ckpt, diskFolder(path), chosen);
    } else if (!chosen.empty()) {
        fail(path, "not a folder, so no files can be chosen in it");
    } else if (const std::string magic = magicOf(path); magic == "GGUF") {
        ckpt->container = Container::Gguf;
        readGguf(*ckpt, path);
    } else if (magic == "PK\x03\x04" || isPytorchFileName(path)) {
        ckpt->container = Container::Pytorch;
        readPytorchFile(*ckpt, path);
        readHuggingFaceConfigs(*ckpt, fs::path(path).parent_path().string());
    } else {
        ckpt->container = Container::Safetensors;
        readSafetensorsOrExplain(*ckpt, path, magic);
        readHuggingFaceConfigs(*ckpt, fs::path(path).parent_path().string());
    }
    ckpt->buildIndex();
    return ckpt;
}

std::shared_ptr<Checkpoint> Checkpoint::readMemory(const std::vector<MemoryFile>& files)
{
    auto ckpt = std::make_shared<Checkpoint>();
    const FolderFiles folder = memoryFolder(files);
    ckpt->path = folder.dir;
    readFolder(*ckpt, folder, {});
    ckpt->buildIndex();
    return ckpt;
}

} // namespace qs
