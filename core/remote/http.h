#pragma once
// HTTP(S) requests through libcurl: redirects followed (a ranged request keeps its Range on the
// way to a CDN), the system's certificates, connect and stall timeouts, retries with back-off on a
// dropped connection or a 5xx, and a clear error for everything else (401/403 name the token
// variable, 404 says not found). No hand-written HTTP.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace qs::remote {

struct HttpRequest {
    std::string url;
    bool head = false;
    // Bytes [offset, offset + length) of the file; the reply must be a 206 for exactly those.
    std::optional<std::pair<uint64_t, uint64_t>> range;
    // Called once the status and headers of the final response are in, before any body byte is
    // handed on: throws (qs::Error) to refuse the response, whose body is then never delivered.
    std::function<void(const struct HttpReply&)> checkHeaders;
    // Receives the body in order; without one the body is kept in HttpReply::body (at most maxBody).
    // `at` is the offset in the body: a retried request delivers its body again from 0.
    std::function<void(uint64_t at, const char* data, size_t size)> sink;
    uint64_t maxBody = 64ull << 20;
    // A 404/410 is returned as a reply (a probe for a file that may be absent) instead of thrown.
    bool notFoundIsReply = false;
    // Bytes of the body received so far and expected in all (0 when unknown); may throw to stop.
    std::function<void(uint64_t done, uint64_t total)> progress;
};

struct HttpReply {
    long status = 0;
    std::string url; // after redirects
    std::string etag; // as sent, quotes kept
    std::string lastModified;
    std::optional<uint64_t> contentLength;
    // Content-Range "bytes FIRST-LAST/TOTAL" (TOTAL may be '*', then unset).
    std::optional<uint64_t> rangeFirst, rangeLast, rangeTotal;
    bool acceptRanges = false; // "Accept-Ranges: bytes"
    std::string body; // when the request had no sink
};

// One request with retries: a transport failure (refused, reset, cut mid-body, timed out) or a 5xx
// is tried again after 0.5, 1 and 2 s; a reply of any other status is returned as it is, except
// that 401/403 and 404 throw (`what` names the file in messages). Throws qs::Error when the
// retries run out or the work on this thread is cancelled (base/cancel.h).
HttpReply httpRequest(const HttpRequest& request, const std::string& what);

// Bytes received from servers (bodies, every attempt counted) and requests sent, by this process.
uint64_t bytesReceived();
uint64_t requestsSent();

} // namespace qs::remote
