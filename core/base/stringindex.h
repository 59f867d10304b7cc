#pragma once
// Equal names found in one pass over many: an open-addressing table of (hash, position) slots,
// 16 bytes each at a load of at most one half, whose keys are read back from the caller's own
// storage (keyOf(position)). Used where a reader or detection meets each of a million names
// once: std::unordered_map<std::string_view, size_t> cost a node allocation (~50 bytes) and a
// cache miss or two per name, the better part of listing a file of a million tiny tensors.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace qs {

class StringIndex {
public:
    static constexpr size_t npos = SIZE_MAX;

    // `expected`: how many keys will be inserted (a hint; the table grows past it). Nothing is
    // allocated before the first key.
    explicit StringIndex(size_t expected = 0)
    {
        if (expected)
            reserve(expected);
    }

    // The position stored under a key equal to `key`, or npos after storing `position` under it.
    // keyOf(p) must give the key stored with position p for as long as the index is used.
    template <class KeyOf>
    size_t findOrInsert(std::string_view key, size_t position, const KeyOf& keyOf)
    {
        if (2 * (m_count + 1) > m_slots.size())
            grow();
        const uint64_t h = hashOf(key);
        for (size_t i = h & m_mask;; i = (i + 1) & m_mask) {
            Slot& s = m_slots[i];
            if (s.position == 0) {
                s = {h, position + 1};
                ++m_count;
                return npos;
            }
            if (s.hash == h && std::string_view(keyOf(s.position - 1)) == key)
                return s.position - 1;
        }
    }

    // The position stored under `key`, or npos.
    template <class KeyOf>
    size_t find(std::string_view key, const KeyOf& keyOf) const
    {
        if (m_count == 0)
            return npos;
        const uint64_t h = hashOf(key);
        for (size_t i = h & m_mask;; i = (i + 1) & m_mask) {
            const Slot& s = m_slots[i];
            if (s.position == 0)
                return npos;
            if (s.hash == h && std::string_view(keyOf(s.position - 1)) == key)
                return s.position - 1;
        }
    }

    size_t size() const { return m_count; }

    void reserve(size_t expected)
    {
        size_t capacity = 16;
        while (capacity < 2 * expected)
            capacity *= 2;
        if (capacity > m_slots.size())
            rehash(capacity);
    }

private:
    struct Slot {
        uint64_t hash = 0;
        size_t position = 0; // position + 1; 0 = empty
    };

    static uint64_t hashOf(std::string_view key)
    {
        // std::hash's bits mixed once more: the table takes the low bits.
        uint64_t h = std::hash<std::string_view>{}(key);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        return h;
    }

    void grow() { rehash(m_slots.empty() ? 16 : 2 * m_slots.size()); }

    void rehash(size_t capacity)
    {
        std::vector<Slot> old(capacity);
        old.swap(m_slots);
        m_mask = capacity - 1;
        for (const Slot& s : old) {
            if (s.position == 0)
                continue;
            size_t i = s.hash & m_mask;
            while (m_slots[i].position != 0)
                i = (i + 1) & m_mask;
            m_slots[i] = s;
        }
    }

    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    size_t m_count = 0;
};

} // namespace qs
