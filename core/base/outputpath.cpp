#include "base/outputpath.h"

#include "base/atomicfile.h"
#include "base/error.h"
#include "base/tempfile.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

namespace qs {

namespace fs = std::filesystem;

namespace {

fs::path withoutTrailingSeparator(fs::path p)
{
    return !p.has_filename() && p.has_relative_path() ? p.parent_path() : p;
}

fs::path absolutePath(const std::string& p)
{
    std::error_code ec;
    return withoutTrailingSeparator(fs::absolute(p, ec).lexically_normal());
}

// Absolute, with the symlinks of its existing part resolved.
fs::path resolvedPath(const std::string& p)
{
    std::error_code ec;
    const fs::path r = fs::weakly_canonical(absolutePath(p), ec);
    return ec ? absolutePath(p) : withoutTrailingSeparator(r);
}

// " (P resolves to R)" when a symlink is on the way, else empty.
std::string symlinkNote(const std::string& p, const fs::path& resolved)
{
    return resolved == absolutePath(p) ? std::string() : " (" + p + " resolves to " + resolved.string() + ")";
}

bool sameFile(const fs::path& a, const fs::path& b)
{
    std::error_code ec;
    return fs::equivalent(a, b, ec) && !ec;
}

// `inner` is `outer` or lies inside it: `inner` or one of its folders is `outer` by name or by
// identity (an existing path reached another way: a hard link, a bind mount).
bool isOrInside(const fs::path& inner, const fs::path& outer)
{
    for (fs::path p = inner;; p = p.parent_path()) {
        if (p == outer || sameFile(p, outer))
            return true;
        if (!p.has_relative_path())
            return false;
    }
}

// Each entry of `dir` by name, with the identity of the entry itself (a symlink, not its target).
std::map<std::string, std::pair<dev_t, ino_t>> folderEntries(const fs::path& dir)
{
    std::map<std::string, std::pair<dev_t, ino_t>> entries;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        struct stat st { };
        if (::lstat(e.path().c_str(), &st) == 0)
            entries[e.path().filename().string()] = {st.st_dev, st.st_ino};
    }
    return entries;
}

// A folder output must be a folder, or nothing yet: else an error naming what is there.
void checkFolderOutput(const std::string& out)
{
    std::error_code ec;
    const fs::file_status linked = fs::symlink_status(out, ec);
    if (ec || !fs::exists(linked) || fs::is_directory(linked))
        return;
    if (fs::is_symlink(linked) && fs::is_directory(fs::status(out, ec)))
        return; // written into, as a folder reached by its path
    std::string kind = nonRegularKind(out);
    if (kind.empty())
        kind = "a file";
    fail(out,
         "refusing to write: the output is " + kind
             + ", not a folder; choose a folder, or a path that does not exist yet");
}

} // namespace

void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, OutputKind kind)
{
    const fs::path out = resolvedPath(output);
    for (const std::string& input : inputs) {
        const fs::path in = resolvedPath(input);
        const char* relation = nullptr;
        if (out == in)
            relation = "is";
        else if (sameFile(out, in))
            relation = "is the same file (a hard link or another mount) as";
        else if (isOrInside(out, in))
            relation = "lies inside";
        else if (isOrInside(in, out))
            relation = "contains";
        if (relation)
            fail(output,
                 std::string("refusing to write: the output ") + relation + " the input " + input
                     + symlinkNote(output, out) + symlinkNote(input, in)
                     + "; choose an output outside the input, which stays untouched");
    }
    if (kind == OutputKind::File)
        checkReplaceable(output);
    else
        checkFolderOutput(output);
}

void writeOutputFile(const std::string& path, const std::vector<std::string>& inputs, std::string_view bytes)
{
    checkOutputPath(path, inputs, OutputKind::File);
    writeFileAtomically(path, bytes);
}

std::vector<std::string> writeIntoFolder(const std::string& out, bool force, const std::function<void()>& write)
{
    const fs::path dir(out);
    checkFolderOutput(out);
    std::error_code ec;
    const bool existed = fs::exists(dir, ec);
    if (existed)
        removeStaleTempFiles(out);
    const auto before = existed ? folderEntries(dir) : std::map<std::string, std::pair<dev_t, ino_t>>{};
    if (!before.empty() && !force) {
        std::string names;
        size_t shown = 0;
        for (const auto& entry : before)
            if (shown++ < 5)
                names += (names.empty() ? "" : ", ") + entry.first;
        if (before.size() > 5)
            names += ", ...";
        fail(out,
             "the output folder is not empty (" + std::to_string(before.size())
                 + (before.size() == 1 ? " entry: " : " entries: ") + names
                 + "); use --force to write into it anyway (only the files this command writes are replaced, "
                   "nothing is deleted)");
    }
    fs::create_directories(dir, ec);
    if (ec) // the system's reason: permission, a read-only file system, no space, ...
        fail(out, "cannot create the output folder: " + ec.message());
    if (!fs::is_directory(dir, ec))
        fail(out, "cannot create the output folder: something that is not a folder is in the way");
    try {
        write();
    } catch (...) {
        if (!existed)
            fs::remove_all(dir, ec);
        throw;
    }
    // Every file written went in by rename, so an entry that is still the same file was not ours.
    const auto after = folderEntries(dir);
    std::vector<std::string> leftAlone;
    for (const auto& [name, id] : before)
        if (const auto it = after.find(name); it != after.end() && it->second == id)
            leftAlone.push_back(name);
    return leftAlone;
}

std::string leftAloneNote(const std::string& out, const std::vector<std::string>& names)
{
    if (names.empty())
        return {};
    std::string s = "left alone in " + out + " (not written by this command): ";
    for (size_t i = 0; i < names.size(); ++i)
        s += (i ? ", " : "") + names[i];
    return s;
}

} // namespace qs
