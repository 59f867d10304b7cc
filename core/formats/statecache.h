#pragma once
// A per-thread, one-entry cache of a family's parsed weight state (Bnb4, PackedLinear, ...),
// so that dequantizing a weight chunk by chunk parses its JSON, validates its g_idx and
// checks its shapes once per thread instead of once per chunk.
//
// The state is a pure function of the LogicalWeight's fields, the members' entries (dtype,
// shape, where their bytes are mapped) and the CONTENT of the few members the parser reads
// (quant_state JSON, g_idx, scalar tensors): the key holds all of that, contents compared
// byte for byte, so a different weight, checkpoint or file mapped at the same address never
// gets a stale state. A hit compares those members' mapped bytes with the cached copy in place
// (a K-entry g_idx copied and compared per chunk cost GPTQ-4 about 6% of its chunk time).
#include "formats/kernel.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

struct StateKey {
    const Checkpoint* ckpt = nullptr; // null: matches no real key
    std::string path;
    std::string name;
    std::string format;
    std::vector<uint64_t> shape;
    int bits = 0;
    int64_t groupSize = 0;
    std::vector<std::pair<std::string, std::string>> params;
    struct Member {
        std::string role;
        const uint8_t* data = nullptr;
        uint64_t size = 0;
        DType dtype = DType::U8;
        std::vector<uint64_t> shape;
        bool operator==(const Member&) const = default;
    };
    std::vector<Member> members;
    std::vector<std::span<const uint8_t>> content; // the parsed members' bytes, in member order
    // Every field but content, whose bytes sameContent compares.
    bool operator==(const StateKey& o) const
    {
        return ckpt == o.ckpt && path == o.path && name == o.name && format == o.format && shape == o.shape && bits == o.bits
            && groupSize == o.groupSize && params == o.params && members == o.members;
    }
};

// `contentRoles`: the members whose bytes the parser reads (beyond their size).
inline StateKey stateKey(const WeightData& w, std::initializer_list<std::string_view> contentRoles)
{
    StateKey k;
    k.ckpt = &w.ckpt;
    k.path = w.ckpt.path;
    k.name = w.weight.name;
    k.format = w.weight.format;
    k.shape = w.weight.shape;
    k.bits = w.weight.bits;
    k.groupSize = w.weight.groupSize;
    k.params.assign(w.weight.params.begin(), w.weight.params.end());
    for (const auto& [role, index] : w.weight.members) {
        if (index >= w.ckpt.tensors.size()) {
            k.members.push_back({role, nullptr, ~uint64_t(0), DType::U8, {}});
            continue;
        }
        const TensorEntry& e = w.ckpt.tensors[index];
        const std::span<const uint8_t> b = w.ckpt.bytes(e);
        k.members.push_back({role, b.data(), b.size(), e.dtype, e.shape});
        for (std::string_view r : contentRoles)
            if (r == role)
                k.content.push_back(b);
    }
    return k;
}

// Whether `bytes` is the concatenation of `pieces`.
inline bool sameContent(const std::vector<uint8_t>& bytes, const std::vector<std::span<const uint8_t>>& pieces)
{
    size_t at = 0;
    for (std::span<const uint8_t> piece : pieces) {
        if (piece.size() > bytes.size() - at || (!piece.empty() && std::memcmp(bytes.data() + at, piece.data(), piece.size()) != 0))
            return false;
        at += piece.size();
    }
    return at == bytes.size();
}

// The state `parse(w)` gives, from this thread's cache when the key matches.
template <typename State, typename Parse>
const State& cachedState(const WeightData& w, std::initializer_list<std::string_view> contentRoles, Parse parse)
{
    struct Slot {
        StateKey key;                 // its content spans are not kept: the mapping may go
        std::vector<uint8_t> content; // a copy of the bytes they held
        std::optional<State> state;
    };
    thread_local Slot slot;
    StateKey key;
    try {
        key = stateKey(w, contentRoles);
    } catch (const std::exception&) {
        key = {}; // unreadable members: let the parser report them, and cache nothing
    }
    if (!key.ckpt || !slot.state || !(slot.key == key) || !sameContent(slot.content, key.content)) {
        slot.state.reset();
        slot.key = {};
        slot.content.clear();
        slot.state.emplace(parse(w)); // a throw leaves the slot empty
        for (std::span<const uint8_t> piece : key.content)
            slot.content.insert(slot.content.end(), piece.begin(), piece.end());
        key.content.clear();
        slot.key = std::move(key);
    }
    return *slot.state;
}

} // namespace qs
