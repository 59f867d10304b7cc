#include "remote/http.h"

#include "base/cancel.h"
#include "base/error.h"
#include "remote/url.h"

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace qs::remote {

namespace {

std::atomic<uint64_t> g_received{0};
std::atomic<uint64_t> g_requests{0};

constexpr int kAttempts = 4;

bool equalsNoCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::optional<uint64_t> parseU64(std::string_view s)
{
    if (s.empty() || s.size() > 19)
        return std::nullopt;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    return v;
}

// One curl handle per thread, kept for its connections (a file's ranged reads reuse one).
struct Handle {
    CURL* curl = nullptr;
    Handle()
    {
        static std::once_flag once;
        std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
        curl = curl_easy_init();
    }
    ~Handle()
    {
        if (curl)
            curl_easy_cleanup(curl);
    }
};

struct Transfer {
    const HttpRequest* request = nullptr;
    HttpReply reply;
    uint64_t delivered = 0;
    bool headersChecked = false;
    std::exception_ptr failure; // thrown inside a callback, rethrown after curl returns
};

size_t onHeader(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    std::string_view line(data, n);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    if (line.starts_with("HTTP/")) {
        // A new response (the next hop of a redirect): only the last one's headers count.
        HttpReply fresh;
        const size_t sp = line.find(' ');
        if (sp != std::string_view::npos)
            fresh.status = long(parseU64(line.substr(sp + 1, 3)).value_or(0));
        t->reply = std::move(fresh);
        return n;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos)
        return n;
    const std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
    HttpReply& r = t->reply;
    if (equalsNoCase(name, "ETag"))
        r.etag = std::string(value);
    else if (equalsNoCase(name, "Last-Modified"))
        r.lastModified = std::string(value);
    else if (equalsNoCase(name, "Content-Length"))
        r.contentLength = parseU64(value);
    else if (equalsNoCase(name, "Accept-Ranges"))
        r.acceptRanges = equalsNoCase(value, "bytes");
    else if (equalsNoCase(name, "Content-Range") && value.starts_with("bytes ")) {
        value.remove_prefix(6);
        const size_t dash = value.find('-'), slash = value.find('/');
        if (dash != std::string_view::npos && slash != std::string_view::npos && dash < slash) {
            r.rangeFirst = parseU64(value.substr(0, dash));
            r.rangeLast = parseU64(value.substr(dash + 1, slash - dash - 1));
            r.rangeTotal = parseU64(value.substr(slash + 1));
        }
    }
    return n;
}

size_t onBody(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    g_received += n;
    // An error page is not the file: it is dropped, the status speaks.
    if (t->reply.status < 200 || t->reply.status > 299)
        return n;
    try {
        if (!t->headersChecked) {
            t->headersChecked = true;
            if (t->request->checkHeaders)
                t->request->checkHeaders(t->reply);
        }
        if (t->request->sink) {
            t->request->sink(t->delivered, data, n);
        } else {
            if (t->reply.body.size() + n > t->request->maxBody)
                throw Error(t->request->url + ": the reply is larger than " + std::to_string(t->request->maxBody)
                            + " bytes, more than a file of this kind holds");
            t->reply.body.append(data, n);
        }
        t->delivered += n;
    } catch (...) {
        t->failure = std::current_exception();
        return 0; // aborts the transfer
    }
    return n;
}

int onProgress(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t, curl_off_t)
{
    auto* t = static_cast<Transfer*>(user);
    if (cancelRequested())
        return 1;
    try {
        if (t->request->progress && dlnow > 0)
            t->request->progress(uint64_t(dlnow), uint64_t(dltotal > 0 ? dltotal : 0));
    } catch (...) {
        t->failure = std::current_exception();
        return 1;
    }
    return 0;
}

// A transport failure that another attempt may get past.
bool retryable(CURLcode code)
{
    switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
    }
}

// One attempt; throws what is not to be tried again, returns the reply or the failure text.
std::optional<HttpReply> attempt(CURL* curl, const HttpRequest& request, const std::string& what, std::string& failure,
                                 bool& retry)
{
    Transfer t;
    t.request = &request;
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "quantscope");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    // A stall of a minute (under a byte a second) ends the attempt; a slow but moving one goes on.
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    if (request.head)
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    std::string range;
    if (request.range) {
        const auto [offset, length] = *request.range;
        range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
        curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
    }
    curl_slist* headers = nullptr;
    std::string auth;
    if (sendsToken(request.url)) {
        if (const std::optional<std::string> token = hubToken()) {
            // curl sends a header set here to the first host only, never to the host a redirect
            // leads to (the hub's CDN links are signed).
            auth = "Authorization: Bearer " + *token;
            headers = curl_slist_append(headers, auth.c_str());
        }
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    char errorText[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorText);
    ++g_requests;
    const CURLcode code = curl_easy_perform(curl);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    std::fill(auth.begin(), auth.end(), '\0');
    if (t.failure)
        std::rethrow_exception(t.failure);
    if (code == CURLE_ABORTED_BY_CALLBACK && cancelRequested())
        throw Error(what + ": cancelled while fetching");
    if (code != CURLE_OK) {
        failure = errorText[0] ? std::string(errorText) : std::string(curl_easy_strerror(code));
        retry = retryable(code);
        return std::nullopt;
    }
    char* effective = nullptr;
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective);
    t.reply.url = effective ? effective : request.url;
    const long status = t.reply.status;
    if (status >= 500) {
        failure = "HTTP " + std::to_string(status);
        retry = true;
        return std::nullopt;
    }
    if (status == 401 || status == 403)
        throw Error(what + ": HTTP " + std::to_string(status) + " from the server: " + tokenHint());
    if ((status == 404 || status == 410) && !request.notFoundIsReply)
        throw Error(what + ": not found on the server (HTTP " + std::to_string(status) + ")");
    // A 2xx whose empty body never reached onBody was not checked yet.
    if (status >= 200 && status <= 299 && !t.headersChecked && request.checkHeaders)
        request.checkHeaders(t.reply);
    return t.reply;
}

} // namespace

HttpReply httpRequest(const HttpRequest& request, const std::string& what)
{
    thread_local Handle handle;
    if (!handle.curl)
        throw Error(what + ": cannot start an HTTP client (curl_easy_init failed)");
    std::string failure;
    int tried = 0;
    for (int k = 0; k < kAttempts; ++k) {
        if (k > 0) {
            // 0.5, 1, 2 s, in steps short enough to notice a cancel.
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500 << (k - 1));
            while (std::chrono::steady_clock::now() < until) {
                if (cancelRequested())
                    throw Error(what + ": cancelled while fetching");
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        bool retry = false;
        ++tried;
        if (std::optional<HttpReply> reply = attempt(handle.curl, request, what, failure, retry))
            return std::move(*reply);
        if (!retry)
            break;
    }
    throw Error(what + ": " + failure + (failure.starts_with("HTTP") ? " from the server" : "")
                + (tried > 1 ? " (tried " + std::to_string(tried) + " times)" : std::string()));
}

uint64_t bytesReceived()
{
    return g_received.load();
}

uint64_t requestsSent()
{
    return g_requests.load();
}

} // namespace qs::remote
