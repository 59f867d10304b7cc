#include "remote/url.h"

#include "base/error.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace qs::remote {

namespace {

std::string env(const char* name)
{
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// "scheme://host:port" of a URL, lower-cased scheme and host, the default port made explicit.
std::string origin(const std::string& url)
{
    const size_t colon = url.find("://");
    if (colon == std::string::npos)
        return {};
    std::string scheme = url.substr(0, colon);
    const size_t hostStart = colon + 3;
    const size_t end = url.find_first_of("/?#", hostStart);
    std::string host = url.substr(hostStart, end == std::string::npos ? std::string::npos : end - hostStart);
    if (const size_t at = host.rfind('@'); at != std::string::npos)
        host = host.substr(at + 1);
    for (char& c : scheme)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    for (char& c : host)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (host.find(':', host.rfind(']') == std::string::npos ? 0 : host.rfind(']')) == std::string::npos)
        host += scheme == "https" ? ":443" : ":80";
    return scheme + "://" + host;
}

std::string trimmed(std::string s)
{
    const size_t b = s.find_first_not_of(" \t\r\n");
    const size_t e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string tokenFile()
{
    if (std::string p = env("HF_TOKEN_PATH"); !p.empty())
        return p;
    if (std::string h = env("HF_HOME"); !h.empty())
        return h + "/token";
    if (std::string x = env("XDG_CACHE_HOME"); !x.empty())
        return x + "/huggingface/token";
    return env("HOME") + "/.cache/huggingface/token";
}

} // namespace

bool isRemotePath(std::string_view path)
{
    return path.starts_with("http://") || path.starts_with("https://") || isHubPath(path);
}

bool isHubPath(std::string_view path)
{
    return path.starts_with("hf://");
}

HubPath parseHubPath(const std::string& path)
{
    const auto bad = [&](const std::string& why) {
        fail(path, "not a hub path (hf://ORG/REPO[@REVISION][/FILE]): " + why);
    };
    if (!isHubPath(path))
        bad("it does not start with hf://");
    std::string rest = path.substr(5);
    HubPath hub;
    const size_t orgEnd = rest.find('/');
    if (orgEnd == 0 || orgEnd == std::string::npos)
        bad("no ORG/REPO");
    size_t repoEnd = rest.find_first_of("@/", orgEnd + 1);
    hub.repo = rest.substr(0, repoEnd);
    if (hub.repo.size() == orgEnd + 1)
        bad("no repository name after " + hub.repo);
    hub.revision = "main";
    if (repoEnd != std::string::npos && rest[repoEnd] == '@') {
        // A pull request's revision holds slashes (refs/pr/N), as the hub client's file system reads it.
        size_t revEnd = rest.find('/', repoEnd + 1);
        if (rest.compare(repoEnd + 1, 8, "refs/pr/") == 0)
            revEnd = rest.find('/', repoEnd + 9);
        hub.revision = rest.substr(repoEnd + 1, revEnd == std::string::npos ? std::string::npos : revEnd - repoEnd - 1);
        if (hub.revision.empty())
            bad("an empty revision after '@'");
        repoEnd = revEnd;
    }
    if (repoEnd != std::string::npos)
        hub.file = rest.substr(repoEnd + 1);
    while (hub.file.ends_with('/'))
        hub.file.pop_back();
    if (hub.file.find("..") != std::string::npos || hub.file.starts_with('/'))
        bad("the file " + hub.file + " is not a path inside the repository");
    return hub;
}

std::string hubEndpoint()
{
    std::string e = env("HF_ENDPOINT");
    if (e.empty())
        e = "https://huggingface.co";
    while (e.ends_with('/'))
        e.pop_back();
    return e;
}

std::string encodePath(std::string_view name)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/')
            out += char(c);
        else
            out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

std::string hubFileUrl(const HubPath& hub, const std::string& file)
{
    // The revision is one path segment: refs/pr/1 is sent as refs%2Fpr%2F1, as the hub client does.
    std::string rev;
    for (char c : encodePath(hub.revision))
        rev += c == '/' ? std::string("%2F") : std::string(1, c);
    return hubEndpoint() + "/" + hub.repo + "/resolve/" + rev + "/" + encodePath(file);
}

std::string hubTreeUrl(const HubPath& hub, const std::string& folder)
{
    std::string rev;
    for (char c : encodePath(hub.revision))
        rev += c == '/' ? std::string("%2F") : std::string(1, c);
    return hubEndpoint() + "/api/models/" + hub.repo + "/tree/" + rev
        + (folder.empty() ? "" : "/" + encodePath(folder));
}

std::optional<std::string> hubToken()
{
    if (std::string t = trimmed(env("HF_TOKEN")); !t.empty())
        return t;
    std::ifstream in(tokenFile());
    if (!in)
        return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string t = trimmed(ss.str());
    if (t.empty())
        return std::nullopt;
    return t;
}

std::string tokenHint()
{
    return "the server asks for a token: set HF_TOKEN (or log in with 'huggingface-cli login', which writes "
        + tokenFile() + ")" + (hubToken() ? "; the token that was sent is not accepted for this file" : "");
}

bool sendsToken(const std::string& url)
{
    return origin(url) == origin(hubEndpoint());
}

std::string urlParent(const std::string& url)
{
    std::string u = url.substr(0, url.find_first_of("?#"));
    const size_t slash = u.rfind('/');
    return slash == std::string::npos ? u : u.substr(0, slash);
}

std::string urlFileName(const std::string& url)
{
    std::string u = url.substr(0, url.find_first_of("?#"));
    const size_t slash = u.rfind('/');
    return slash == std::string::npos ? u : u.substr(slash + 1);
}

} // namespace qs::remote
