#include "container/remotefolder.h"

#include "base/error.h"
#include "container/json.h"
#include "container/pytorch.h"
#include "remote/http.h"
#include "remote/remotefile.h"
#include "remote/url.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace qs {

namespace {

struct TreeEntry {
    std::string path;
    bool folder = false;
    uint64_t size = 0;
};

// The hub's tree API for one folder of the repository (recursive: every file under it).
std::vector<TreeEntry> hubTree(const remote::HubPath& hub, const std::string& folder, bool recursive,
                               const std::string& shown)
{
    remote::HttpRequest req;
    req.url = remote::hubTreeUrl(hub, folder) + (recursive ? "?recursive=true" : "");
    req.maxBody = 64ull << 20;
    const remote::HttpReply r = remote::httpRequest(req, shown);
    if (r.status != 200)
        fail(shown, "the hub answered HTTP " + std::to_string(r.status) + " to the request for its file list");
    json::Value root;
    try {
        root = json::parse(r.body, json::ParseOptions{16, SIZE_MAX, size_t(1) << 22});
    } catch (const json::ParseError& e) {
        fail(shown, std::string("the hub's file list is not valid JSON: ") + e.what());
    }
    if (!root.isArray())
        fail(shown, "the hub's file list is a JSON " + std::string(json::typeName(root.type)) + ", not an array");
    std::vector<TreeEntry> out;
    for (const json::Value& e : root.array) {
        const json::Value* type = e.find("type");
        const json::Value* path = e.find("path");
        if (!type || !type->isString() || !path || !path->isString())
            fail(shown, "the hub's file list holds an entry without a type and a path");
        TreeEntry t{path->string, type->string == "directory"};
        if (const json::Value* size = e.find("size"); size && size->type == json::Value::Type::UInt)
            t.size = size->uint;
        out.push_back(std::move(t));
    }
    return out;
}

std::string hubShown(const remote::HubPath& hub)
{
    return "hf://" + hub.repo + (hub.revision == "main" ? std::string() : "@" + hub.revision);
}

// A folder of remote files: `urlOf(name)` is what is requested, `dir + "/" + name` what messages say.
FolderFiles remoteFolderFiles(std::string dir, std::vector<std::string> names,
                              std::function<std::string(const std::string&)> urlOf, bool listed)
{
    FolderFiles f;
    f.dir = std::move(dir);
    f.names = std::move(names);
    std::sort(f.names.begin(), f.names.end());
    const std::string shownDir = f.dir;
    f.open = [urlOf, shownDir](const std::string& name) {
        return std::make_shared<MappedFile>(remote::RemoteFile::open(urlOf(name), shownDir + "/" + name));
    };
    if (!listed) {
        // No listing: a file is there when the server says so (HEAD), asked once per name.
        struct Probed {
            std::mutex lock;
            std::map<std::string, bool> known;
        };
        auto probed = std::make_shared<Probed>();
        f.probe = [urlOf, shownDir, probed](const std::string& name) {
            std::lock_guard guard(probed->lock);
            if (const auto it = probed->known.find(name); it != probed->known.end())
                return it->second;
            remote::HttpRequest req;
            req.url = urlOf(name);
            req.head = true;
            req.notFoundIsReply = true;
            const bool there = remote::httpRequest(req, shownDir + "/" + name).status == 200;
            probed->known[name] = there;
            return there;
        };
    }
    return f;
}

std::string folderOf(const std::string& file)
{
    const size_t slash = file.rfind('/');
    return slash == std::string::npos ? std::string() : file.substr(0, slash);
}

std::string baseName(const std::string& file)
{
    const size_t slash = file.rfind('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
}

} // namespace

RemoteLocation remoteLocation(const std::string& path)
{
    RemoteLocation loc;
    if (remote::isHubPath(path)) {
        const remote::HubPath hub = remote::parseHubPath(path);
        const std::string repoShown = hubShown(hub);
        // hub.file is a file or a folder of the repository: the listing of its parent says which.
        std::string folder = hub.file;
        if (!hub.file.empty()) {
            const std::vector<TreeEntry> parent = hubTree(hub, folderOf(hub.file), false, path);
            const auto it =
                std::find_if(parent.begin(), parent.end(), [&](const TreeEntry& e) { return e.path == hub.file; });
            if (it == parent.end())
                fail(path, "no such file or folder in the repository " + repoShown);
            if (!it->folder) {
                folder = folderOf(hub.file);
                loc.file = baseName(hub.file);
            }
        }
        std::vector<std::string> names;
        for (const TreeEntry& e : hubTree(hub, folder, false, path))
            if (!e.folder)
                names.push_back(baseName(e.path));
        const std::string prefix = folder.empty() ? std::string() : folder + "/";
        loc.folder = remoteFolderFiles(
            repoShown + (folder.empty() ? "" : "/" + folder), std::move(names),
            [hub, prefix](const std::string& name) { return remote::hubFileUrl(hub, prefix + name); }, true);
        return loc;
    }
    const std::string base = remote::urlParent(path);
    loc.file = remote::urlFileName(path);
    if (!loc.file.ends_with(".gguf") && !loc.file.ends_with(".safetensors")
        && !loc.file.ends_with(".safetensors.index.json") && !isPytorchFileName(loc.file)
        && !loc.file.ends_with(".bin.index.json"))
        fail(path,
             "a URL opens a .gguf, .safetensors, .bin, .pt or .pth file or a *.safetensors.index.json or "
             "*.bin.index.json (a folder has no listing over HTTP; an hf:// repository has)");
    const std::string named = path;
    loc.folder = remoteFolderFiles(
        base, {loc.file},
        [base, named, file = loc.file](const std::string& name) {
            // The file as given (its query kept); the others beside it.
            return name == file ? named : base + "/" + remote::encodePath(name);
        },
        false);
    return loc;
}

std::vector<HubFile> listHubRepository(const std::string& hubPath)
{
    const remote::HubPath hub = remote::parseHubPath(hubPath);
    std::vector<HubFile> files;
    for (const TreeEntry& e : hubTree(hub, hub.file, true, hubPath))
        if (!e.folder)
            files.push_back({e.path, e.size});
    std::sort(files.begin(), files.end(), [](const HubFile& a, const HubFile& b) { return a.path < b.path; });
    return files;
}

} // namespace qs
