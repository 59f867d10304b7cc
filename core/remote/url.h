#pragma once
// Where a remote checkpoint lives: http(s) URLs and hf://ORG/REPO[@REVISION][/FILE], resolved as
// the Hugging Face hub's own client resolves them (HF_ENDPOINT, HF_TOKEN and the token file).
#include <optional>
#include <string>
#include <string_view>

namespace qs::remote {

// Whether `path` names a remote location (http://, https:// or hf://) rather than a local path.
bool isRemotePath(std::string_view path);
bool isHubPath(std::string_view path);

struct HubPath {
    std::string repo; // "ORG/REPO"
    std::string revision; // "main" unless given
    std::string file; // inside the repository; empty for the repository itself
};
// Throws qs::Error naming `path` when it is not hf://ORG/REPO[@REVISION][/FILE].
HubPath parseHubPath(const std::string& path);
// HF_ENDPOINT without a trailing slash, https://huggingface.co when unset.
std::string hubEndpoint();
// {endpoint}/ORG/REPO/resolve/REVISION/FILE and {endpoint}/api/models/ORG/REPO/tree/REVISION[/FOLDER].
std::string hubFileUrl(const HubPath& hub, const std::string& file);
std::string hubTreeUrl(const HubPath& hub, const std::string& folder);

// The hub token: HF_TOKEN, else the hub client's token file (HF_TOKEN_PATH, else HF_HOME/token,
// else $XDG_CACHE_HOME/huggingface/token or ~/.cache/huggingface/token); nothing when neither.
// Sent only to the hub's endpoint (never to another host, a redirect's CDN included), never
// printed and never written anywhere.
std::optional<std::string> hubToken();
// What a 401/403 tells the user to set.
std::string tokenHint();
// Whether a request to `url` carries the token: its scheme, host and port are HF_ENDPOINT's.
bool sendsToken(const std::string& url);

// "https://host/a/b.gguf" -> "https://host/a" and "b.gguf" (query and fragment dropped from the name).
std::string urlParent(const std::string& url);
std::string urlFileName(const std::string& url);
// `name` (a file name, '/' kept) percent-encoded for a URL path.
std::string encodePath(std::string_view name);

} // namespace qs::remote
