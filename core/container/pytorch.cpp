#include "container/pytorch.h"

#include "container/safetensors.h"
#include "container/torchpickle.h"
#include "base/cancel.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/message.h"
#include "base/progress.h"
#include "base/shapetext.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace qs {

namespace {

// The zip signatures (little-endian "PK\x01\x02", ...).
constexpr uint32_t kCentralEntry = 0x02014b50, kLocalHeader = 0x04034b50, kEndOfDirectory = 0x06054b50,
                   kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr size_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30, kZip64EndSize = 56, kZip64LocatorSize = 20;
// The legacy format starts with its magic number pickled as a 10-byte LONG1.
constexpr uint8_t kLegacyMagic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

uint64_t le(const uint8_t* p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
        v |= uint64_t(p[i]) << (8 * i);
    return v;
}

std::string num(uint64_t v)
{
    return std::to_string(v);
}

struct ZipEntry {
    std::string_view name; // in the mapped central directory
    uint64_t localHeader = 0;
    uint64_t compressedSize = 0;
    uint64_t size = 0;
    uint16_t method = 0;
    uint16_t flags = 0;
};

// A torch.save archive's central directory (zip64 included), read as its records are needed.
class Archive {
public:
    explicit Archive(const MappedFile& f)
        : m_f(f)
        , m_path(f.path())
    {
        readDirectory();
    }

    const std::string& prefix() const { return m_prefix; }
    const ZipEntry* find(const std::string& name) const
    {
        const auto it = m_byName.find(name);
        return it == m_byName.end() ? nullptr : &m_entries[it->second];
    }
    // Where a stored (uncompressed) record's bytes are in the file.
    uint64_t dataOffset(const ZipEntry& e) const
    {
        const std::string who = "record '" + std::string(e.name) + "'";
        if (e.flags & 1)
            fail(m_path, who + " is encrypted; torch.save never encrypts");
        if (e.method != 0)
            fail(m_path,
                 who + " is compressed (zip method " + num(e.method)
                     + "); torch.save stores its records uncompressed, and only those can be mapped: re-save it "
                       "with torch.save or as safetensors");
        if (e.compressedSize != e.size)
            fail(m_path,
                 who + " is stored uncompressed but its sizes disagree (" + num(e.compressedSize) + " and "
                     + num(e.size) + " bytes)");
        m_f.checkRange(e.localHeader, kLocalSize, who + "'s local header");
        m_f.ensure(e.localHeader, kLocalSize);
        const uint8_t* p = m_f.bytes().data() + e.localHeader;
        if (le(p, 4) != kLocalHeader)
            fail(m_path, who + ": no local header at byte " + num(e.localHeader) + " (truncated or damaged archive)");
        const uint64_t nameLen = le(p + 26, 2), extraLen = le(p + 28, 2);
        const uint64_t data = e.localHeader + kLocalSize + nameLen + extraLen;
        m_f.checkRange(e.localHeader + kLocalSize, nameLen, who + "'s local name");
        m_f.ensure(e.localHeader + kLocalSize, nameLen);
        const std::string_view localName(reinterpret_cast<const char*>(p + kLocalSize), size_t(nameLen));
        if (localName != e.name)
            fail(m_path, who + ": its local header names '" + std::string(localName) + "'");
        if (data > m_f.size() || e.size > m_f.size() - data)
            fail(m_path,
                 who + ": its " + num(e.size) + " bytes at byte " + num(data) + " run past the end of the file ("
                     + num(m_f.size()) + " bytes; truncated)");
        return data;
    }
    std::span<const uint8_t> read(const ZipEntry& e) const
    {
        const uint64_t at = dataOffset(e);
        return m_f.range(at, e.size, "record '" + std::string(e.name) + "'");
    }

private:
    void readDirectory()
    {
        const uint64_t size = m_f.size();
        refuseLegacy();
        if (size < kEndSize)
            notAnArchive();
        const uint64_t tail = std::min<uint64_t>(size, kEndSize + 0xffff);
        m_f.ensure(size - tail, tail);
        const uint8_t* base = m_f.bytes().data();
        uint64_t end = size - kEndSize + 1;
        bool found = false;
        while (end-- > size - tail) {
            if (le(base + end, 4) == kEndOfDirectory && end + kEndSize + le(base + end + 20, 2) <= size) {
                found = true;
                break;
            }
        }
        if (!found)
            notAnArchive();
        const uint8_t* e = base + end;
        uint64_t count = le(e + 10, 2), cdSize = le(e + 12, 4), cdOffset = le(e + 16, 4);
        if (le(e + 4, 2) != 0 || le(e + 6, 2) != 0)
            fail(m_path, "a zip archive split over several disks; torch.save writes one file");
        if (count == 0xffff || cdSize == 0xffffffff || cdOffset == 0xffffffff) {
            if (end >= kZip64LocatorSize)
                m_f.ensure(end - kZip64LocatorSize, kZip64LocatorSize);
            if (end < kZip64LocatorSize || le(base + end - kZip64LocatorSize, 4) != kZip64Locator)
                fail(m_path, "the zip end record asks for zip64, but no zip64 locator precedes it");
            const uint64_t at = le(base + end - kZip64LocatorSize + 8, 8);
            m_f.checkRange(at, kZip64EndSize, "the zip64 end record");
            m_f.ensure(at, kZip64EndSize);
            const uint8_t* z = base + at;
            if (le(z, 4) != kZip64End)
                fail(m_path, "no zip64 end record at byte " + num(at));
            count = le(z + 32, 8);
            cdSize = le(z + 40, 8);
            cdOffset = le(z + 48, 8);
        }
        if (cdOffset > size || cdSize > size - cdOffset)
            fail(m_path,
                 "the zip directory (" + num(cdSize) + " bytes at byte " + num(cdOffset) + ") runs past the end of the "
                     + num(size) + "-byte file (truncated)");
        if (count > cdSize / kCentralSize)
            fail(m_path,
                 "the zip directory claims " + num(count) + " records, more than its " + num(cdSize) + " bytes hold");
        m_f.ensure(cdOffset, cdSize);
        m_entries.reserve(size_t(count));
        uint64_t at = cdOffset;
        const uint64_t cdEnd = cdOffset + cdSize;
        for (uint64_t k = 0; k < count; ++k) {
            if (cdEnd - at < kCentralSize || le(base + at, 4) != kCentralEntry)
                fail(m_path, "zip directory record " + num(k) + " at byte " + num(at) + " is damaged");
            const uint8_t* c = base + at;
            ZipEntry z;
            z.flags = uint16_t(le(c + 8, 2));
            z.method = uint16_t(le(c + 10, 2));
            z.compressedSize = le(c + 20, 4);
            z.size = le(c + 24, 4);
            const uint64_t nameLen = le(c + 28, 2), extraLen = le(c + 30, 2), commentLen = le(c + 32, 2);
            z.localHeader = le(c + 42, 4);
            if (cdEnd - at - kCentralSize < nameLen + extraLen + commentLen)
                fail(m_path, "zip directory record " + num(k) + " runs past the directory");
            z.name = std::string_view(reinterpret_cast<const char*>(c + kCentralSize), size_t(nameLen));
            readZip64Extra(z, c + kCentralSize + nameLen, extraLen);
            at += kCentralSize + nameLen + extraLen + commentLen;
            if (!m_byName.emplace(z.name, m_entries.size()).second)
                fail(m_path, "the zip archive holds record '" + std::string(z.name) + "' twice");
            m_entries.push_back(z);
        }
        if (m_entries.empty())
            fail(m_path, "an empty zip archive: no torch.save records");
        // torch's reader: the archive's folder is the first record's.
        const std::string_view first = m_entries.front().name;
        const size_t slash = first.find('/');
        if (slash == std::string_view::npos || slash == 0)
            fail(m_path,
                 "not a torch.save archive: its first record '" + std::string(first) + "' is not inside a folder");
        m_prefix = std::string(first.substr(0, slash));
    }

    // The zip64 extra field (id 1): 8-byte sizes and offset for the 32-bit fields that are all ones.
    void readZip64Extra(ZipEntry& z, const uint8_t* extra, uint64_t length) const
    {
        uint64_t at = 0;
        while (length - at >= 4) {
            const uint64_t id = le(extra + at, 2), len = le(extra + at + 2, 2);
            if (len > length - at - 4)
                fail(m_path, "record '" + std::string(z.name) + "': its extra field runs past its end");
            if (id == 1) {
                const uint8_t* v = extra + at + 4;
                uint64_t left = len;
                for (uint64_t* field : {&z.size, &z.compressedSize, &z.localHeader}) {
                    if (*field != 0xffffffff)
                        continue;
                    if (left < 8)
                        fail(m_path, "record '" + std::string(z.name) + "': its zip64 field is too short");
                    *field = le(v, 8);
                    v += 8;
                    left -= 8;
                }
            }
            at += 4 + len;
        }
    }

    std::span<const uint8_t> head() const
    {
        const size_t n = size_t(std::min<uint64_t>(m_f.size(), 16));
        m_f.ensure(0, n);
        return m_f.bytes().first(n);
    }

    void refuseLegacy() const
    {
        const auto h = head();
        if (std::search(h.begin(), h.end(), std::begin(kLegacyMagic), std::end(kLegacyMagic)) != h.end())
            fail(m_path,
                 "the legacy torch.save format (PyTorch before 1.6, or _use_new_zipfile_serialization=False) is not "
                 "read: load it in PyTorch and save it again with torch.save, or as safetensors");
    }

    [[noreturn]] void notAnArchive() const
    {
        const auto h = head();
        if (h.size() >= 4 && le(h.data(), 4) == kLocalHeader)
            fail(m_path, "a zip archive without its end record (the last bytes of a zip): truncated or damaged");
        std::string hex;
        for (size_t i = 0; i < std::min<size_t>(h.size(), 8); ++i) {
            static constexpr char digits[] = "0123456789abcdef";
            hex += std::string(i ? " " : "") + digits[h[i] >> 4] + digits[h[i] & 15];
        }
        fail(m_path,
             "not a PyTorch checkpoint: no zip archive (torch.save since PyTorch 1.6) and not the legacy format; it "
             "starts with "
                 + (hex.empty() ? std::string("nothing (empty file)") : hex));
    }

    const MappedFile& m_f;
    const std::string& m_path;
    std::vector<ZipEntry> m_entries;
    std::unordered_map<std::string_view, size_t> m_byName;
    std::string m_prefix;
};

// Strides of a row-major tensor of `size`; a dimension of 1 may have any stride, and a tensor of no
// elements any strides (torch's rules).
bool contiguous(const Shape& size, const Shape& stride)
{
    if (std::find(size.begin(), size.end(), uint64_t(0)) != size.end())
        return true;
    uint64_t expected = 1;
    for (size_t d = size.size(); d-- > 0;) {
        if (size[d] != 1 && stride[d] != expected)
            return false;
        expected *= size[d]; // the element count was checked first
    }
    return true;
}

Shape contiguousStrides(const Shape& size)
{
    Shape out(size);
    uint64_t s = 1;
    for (size_t d = size.size(); d-- > 0;) {
        out[d] = s;
        s *= size[d];
    }
    return out;
}

} // namespace

bool isPytorchFileName(std::string_view name)
{
    return name.ends_with(".bin") || name.ends_with(".pt") || name.ends_with(".pth");
}

void readPytorchFile(Checkpoint& ckpt, const std::string& path)
{
    readPytorchMapped(ckpt, std::make_shared<MappedFile>(path));
}

void readPytorchMapped(Checkpoint& ckpt, std::shared_ptr<MappedFile> map)
{
    const std::string path = map->path();
    const Archive archive(*map);
    const std::string& prefix = archive.prefix();
    const ZipEntry* pickle = archive.find(prefix + "/data.pkl");
    if (!pickle) {
        if (archive.find(prefix + "/constants.pkl"))
            fail(path, "a TorchScript archive (torch.jit.save), not a torch.save checkpoint: it holds no data.pkl");
        fail(path, "not a torch.save archive: it holds no " + prefix + "/data.pkl");
    }
    if (const ZipEntry* order = archive.find(prefix + "/byteorder")) {
        const auto bytes = archive.read(*order);
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 16));
        if (text != "little")
            fail(path,
                 "its storages are in byte order '" + std::string(text)
                     + "' (the byteorder record); only little-endian archives are read");
    }
    if (pickle->size > kTorchPickleMax)
        fail(path,
             "data.pkl is " + num(pickle->size) + " bytes, more than the " + num(kTorchPickleMax)
                 + " this reader takes");
    TorchPickle content = readTorchPickle(archive.read(*pickle), path);

    // Each storage's record, its size checked against the persistent id's element count.
    std::vector<uint64_t> storageAt(content.storages.size()), storageBytes(content.storages.size());
    for (size_t s = 0; s < content.storages.size(); ++s) {
        throwIfCancelled(currentCancelFlag());
        const TorchStorage& st = content.storages[s];
        const std::string record = prefix + "/data/" + st.key;
        const ZipEntry* e = archive.find(record);
        if (!e)
            fail(path, "storage '" + st.key + "' has no record " + record);
        const std::string who = "storage '" + st.key + "' (" + st.typeName + " of " + num(st.numel) + " elements)";
        const std::optional<uint64_t> bytes = mulChecked(st.numel, dtypeBits(st.dtype) / 8);
        if (!bytes)
            fail(path, who + ": its byte size overflows 64 bits");
        if (e->size != *bytes)
            fail(path, who + " needs " + num(*bytes) + " bytes, but its record holds " + num(e->size));
        storageAt[s] = archive.dataOffset(*e);
        storageBytes[s] = *bytes;
    }

    const uint32_t file = ckpt.addFile(std::move(map));
    ckpt.tensors.reserve(ckpt.tensors.size() + content.tensors.size());
    for (TorchTensor& t : content.tensors) {
        throwIfCancelled(currentCancelFlag());
        const std::string who = "tensor '" + t.name + "'";
        const TorchStorage& st = content.storages[t.storage];
        const uint64_t item = dtypeBits(t.dtype) / 8;
        const std::optional<uint64_t> count = checkedProduct(t.size);
        if (!count)
            fail(path, who + ": size " + shapeText(t.size) + " overflows 64 bits");
        const std::optional<uint64_t> begin = mulChecked(t.storageOffset, item);
        // The last element's place past the first: the whole extent for a contiguous tensor.
        std::optional<uint64_t> span = *count == 0 ? 0 : 1;
        for (size_t d = 0; d < t.size.size() && span && *count != 0; ++d) {
            const std::optional<uint64_t> reach = mulChecked(t.size[d] - 1, t.stride[d]);
            span = reach && *reach <= UINT64_MAX - *span ? std::optional<uint64_t>(*span + *reach) : std::nullopt;
        }
        const std::optional<uint64_t> bytes = span ? mulChecked(*span, item) : std::nullopt;
        if (!begin || !bytes || *begin > storageBytes[t.storage] || *bytes > storageBytes[t.storage] - *begin)
            fail(path,
                 who + ": storage offset " + num(t.storageOffset) + ", size " + shapeText(t.size) + " and stride "
                     + shapeText(t.stride) + " of " + std::string(dtypeName(t.dtype)) + " reach past the "
                     + num(storageBytes[t.storage]) + " bytes of storage '" + st.key + "'");
        TensorEntry e;
        e.name = ckpt.keepName(t.name);
        e.dtype = t.dtype;
        e.typeName = dtypeName(t.dtype);
        e.file = file;
        e.offset = storageAt[t.storage] + *begin;
        e.nbytes = *bytes;
        if (!contiguous(t.size, t.stride)) {
            // Its elements are not in row-major order (transposed, expanded or overlapping): listed
            // over the bytes it spans, not decoded.
            e.known = false;
            e.note =
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "stored as a strided view of its storage (stride %1, where row-major order "
                                          "would be %2); listed, not decoded"),
                        {shapeText(t.stride), shapeText(contiguousStrides(t.size))});
        }
        e.shape = std::move(t.size);
        ckpt.tensors.push_back(std::move(e));
    }
    for (auto& [key, value] : content.metadata)
        if (!ckpt.meta(key))
            ckpt.metadata.emplace_back(std::move(key), std::move(value));
    if (content.skipped)
        ckpt.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                "%1: %2 values in data.pkl are neither tensors, numbers nor strings "
                                                "(tuples, bare storages); not listed"),
                              {path, num(content.skipped)}});
}

void readPytorchFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::vector<std::string>& chosen)
{
    if (!chosen.empty()) {
        for (const auto& f : chosen) {
            if (!folder.has(f))
                fail(folder.pathOf(f), "no such file in the folder");
            readPytorchMapped(ckpt, folder.open(f));
        }
        ckpt.openedAs = chosen.size() == 1 ? chosen.front() : "the " + std::to_string(chosen.size()) + " chosen files";
    } else {
        std::vector<std::string> indexes;
        for (const auto& name : folder.names)
            if (name.ends_with(".bin.index.json"))
                indexes.push_back(name);
        if (!indexes.empty()) {
            const auto preferred = std::find(indexes.begin(), indexes.end(), "pytorch_model.bin.index.json");
            const std::string index = preferred != indexes.end() ? *preferred : indexes.front();
            if (indexes.size() > 1)
                ckpt.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1: several *.bin.index.json files; using %2"),
                                      {folder.dir, index}});
            readIndexedShards(ckpt, folder, index, readPytorchMapped);
            ckpt.openedAs = index;
        } else if (folder.has("pytorch_model.bin")) {
            readPytorchMapped(ckpt, folder.open("pytorch_model.bin"));
            ckpt.openedAs = "pytorch_model.bin";
        } else {
            std::vector<FileSet> sets;
            for (const char* ext : {".bin", ".pt", ".pth"}) {
                std::vector<FileSet> more = fileSets(folder.names, ext);
                sets.insert(sets.end(), more.begin(), more.end());
            }
            std::sort(sets.begin(), sets.end(), [](const FileSet& a, const FileSet& b) { return a.label < b.label; });
            if (sets.empty())
                fail(folder.dir, "no PyTorch checkpoint in this folder (no *.bin, *.pt or *.pth file)");
            const FileSet& set = pickFileSet(folder.dir, sets, "PyTorch");
            for (const auto& f : set.files)
                readPytorchMapped(ckpt, folder.open(f));
            ckpt.openedAs = set.label;
        }
    }
    readHuggingFaceConfigs(ckpt, folder);
}

} // namespace qs
