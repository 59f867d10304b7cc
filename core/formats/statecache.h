#pragma once
// A per-thread, one-entry cache of a family's parsed weight state (Bnb4, PackedLinear, ...),
// so that dequantizing a weight chunk by chunk parses its JSON, validates its g_idx and
// checks its shapes once per thread instead of once per chunk.
//
// The state is a pure function of the LogicalWeight's fields, the members' entries (dtype,
// shape, where their bytes are mapped) and those bytes. The key holds the weight's fields and
// the members' entries, and names the checkpoint by its serial, unique to each Checkpoint
// object: the same serial and the same mapped place are the same bytes (a checkpoint never
// rewrites or remaps its files), so a different weight, checkpoint, or file mapped at the
// same address never gets a stale state, and no member's bytes are read to know it (comparing
// a GPTQ weight's K-entry g_idx on every chunk cost about a tenth of a 16-row chunk).
#include "formats/kernel.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace qs {

struct StateKey {
    uint64_t serial = 0; // the Checkpoint's; 0 matches no real key
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
    bool operator==(const StateKey&) const = default;
};

inline StateKey stateKey(const WeightData& w)
{
    StateKey k;
    k.serial = w.ckpt.serial;
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
    }
    return k;
}

// The state `parse(w)` gives, from this thread's cache when the key matches.
template <typename State, typename Parse>
const State& cachedState(const WeightData& w, Parse parse)
{
    struct Slot {
        StateKey key;
        std::optional<State> state;
    };
    thread_local Slot slot;
    StateKey key;
    try {
        key = stateKey(w);
    } catch (const std::exception&) {
        key = {}; // unreadable members: let the parser report them, and cache nothing
    }
    if (!key.serial || !slot.state || !(slot.key == key)) {
        slot.state.reset();
        slot.key = {};
        slot.state.emplace(parse(w)); // a throw leaves the slot empty
        slot.key = std::move(key);
    }
    return *slot.state;
}

} // namespace qs
