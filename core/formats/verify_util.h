#pragma once
// The checks that several families' verify functions (<family>_verify.cpp) share: a sink that
// files findings under one weight, the byte comparison of stored data with its repacking,
// counts of non-finite scales, g_idx group sizes, and member shapes against the LayoutSpec.
#include "container/checkpoint.h"
#include "formats/findings.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// Files findings about one weight.
struct FindingSink {
    const LogicalWeight& w;
    VerifyReport& rep;
    void operator()(std::string check, Message msg, bool warning = false) const
    {
        rep.findings.push_back({w.name, std::move(check), std::move(msg), warning});
    }
    // Text no template describes (an error's what()): shown as it is. A template goes in a Message.
    void operator()(std::string check, const char* text, bool warning = false) const
    {
        (*this)(std::move(check), Message::verbatim(text), warning);
    }
};

// A finding `check` when the stored bytes differ from their repacking, naming the first
// differing 32-bit word (unit 4) or byte (unit 1): `differ` is the message template, "stored
// ... differ from their repacking ...: %1", %1 the first difference.
void checkRoundTrip(const FindingSink& add, const char* check, std::span<const uint8_t> stored,
                    const std::vector<uint8_t>& repacked, const char* differ, size_t unit = 4);
// A "scale" finding when `bad` of `total` values are NaN or Inf: `message` is "%1 of %2 ... are NaN or Inf".
void countNonFinite(const FindingSink& add, uint64_t bad, uint64_t total, const char* message);
// Each group holds at most groupSize channels (act-order permutes, never grows a group).
void checkGroups(const FindingSink& add, uint64_t K, uint64_t G, uint64_t groupSize,
                 const std::function<uint64_t(uint64_t)>& groupOf);
// Stored member shapes against the format's LayoutSpec, where it describes them.
// `roles`: only these (the members whose shape has one form); empty: every member the spec lists.
void checkSpecShapes(const FindingSink& add, const Checkpoint& ckpt, const LogicalWeight& w, uint64_t K, uint64_t N,
                     int bits, uint64_t groupSize, std::initializer_list<std::string_view> roles = {});

} // namespace qs
