#pragma once
// A vector that holds up to N elements inside itself and goes to the heap only past them: what
// a checkpoint keeps per tensor and per weight (a shape, a weight's members), so that the common
// record costs no allocation (a million std::vector shapes and one-member lists were ~80 MB of
// small blocks). Converts to and from std::vector (and to std::span, as any contiguous range),
// so code written for a vector reads the same.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace qs {

template <class T, uint32_t N>
class SmallVector {
public:
    using value_type = T;
    using size_type = size_t;
    using iterator = T*;
    using const_iterator = const T*;
    using const_reverse_iterator = std::reverse_iterator<const T*>;
    using reference = T&;
    using const_reference = const T&;

    SmallVector() noexcept { }
    SmallVector(std::initializer_list<T> items) { assign(items.begin(), items.end()); }
    SmallVector(const std::vector<T>& items) { assign(items.begin(), items.end()); }
    template <class It>
    SmallVector(It first, It last)
    {
        assign(first, last);
    }
    SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
    SmallVector(SmallVector&& o) noexcept { takeFrom(o); }
    ~SmallVector() { release(); }

    SmallVector& operator=(const SmallVector& o)
    {
        if (this != &o)
            assign(o.begin(), o.end());
        return *this;
    }
    SmallVector& operator=(SmallVector&& o) noexcept
    {
        if (this != &o) {
            release();
            takeFrom(o);
        }
        return *this;
    }
    SmallVector& operator=(std::initializer_list<T> items)
    {
        assign(items.begin(), items.end());
        return *this;
    }
    SmallVector& operator=(const std::vector<T>& items)
    {
        assign(items.begin(), items.end());
        return *this;
    }

    template <class It>
    void assign(It first, It last)
    {
        clear();
        if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                        typename std::iterator_traits<It>::iterator_category>)
            reserve(size_t(std::distance(first, last)));
        for (; first != last; ++first)
            push_back(*first);
    }

    operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

    T* data() { return onHeap() ? m_heap : inlineData(); }
    const T* data() const { return onHeap() ? m_heap : inlineData(); }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    size_t capacity() const { return m_capacity; }
    iterator begin() { return data(); }
    iterator end() { return data() + m_size; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + m_size; }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    T& at(size_t i) { return i < m_size ? data()[i] : outOfRange(); }
    const T& at(size_t i) const { return i < m_size ? data()[i] : outOfRange(); }
    T& front() { return data()[0]; }
    const T& front() const { return data()[0]; }
    T& back() { return data()[m_size - 1]; }
    const T& back() const { return data()[m_size - 1]; }

    void reserve(size_t n)
    {
        if (n <= m_capacity)
            return;
        if (n > UINT32_MAX)
            throw std::length_error("SmallVector: more than 2^32 elements");
        T* fresh = std::allocator<T>().allocate(n);
        T* old = data();
        std::uninitialized_move(old, old + m_size, fresh);
        std::destroy(old, old + m_size);
        if (onHeap())
            std::allocator<T>().deallocate(m_heap, m_capacity);
        m_heap = fresh;
        m_capacity = uint32_t(n);
    }
    template <class... Args>
    T& emplace_back(Args&&... args)
    {
        if (m_size == m_capacity)
            reserve(size_t(m_capacity) * 2);
        T* at = std::construct_at(data() + m_size, std::forward<Args>(args)...);
        ++m_size;
        return *at;
    }
    void push_back(const T& v) { emplace_back(v); }
    void push_back(T&& v) { emplace_back(std::move(v)); }
    void pop_back() { std::destroy_at(data() + --m_size); }
    void clear()
    {
        std::destroy(begin(), end());
        m_size = 0;
    }
    void resize(size_t n, const T& v = T())
    {
        while (m_size > n)
            pop_back();
        reserve(n);
        while (m_size < n)
            push_back(v);
    }
    iterator insert(const_iterator pos, const T& v)
    {
        const size_t at = size_t(pos - begin());
        push_back(v);
        std::rotate(begin() + at, end() - 1, end());
        return begin() + at;
    }
    iterator erase(const_iterator first, const_iterator last)
    {
        const size_t at = size_t(first - begin()), n = size_t(last - first);
        std::move(begin() + at + n, end(), begin() + at);
        for (size_t k = 0; k < n; ++k)
            pop_back();
        return begin() + at;
    }
    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }

    friend bool operator==(const SmallVector& a, const SmallVector& b)
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator==(const SmallVector& a, const std::vector<T>& b)
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    bool onHeap() const { return m_capacity > N; }
    T* inlineData() { return std::launder(reinterpret_cast<T*>(m_inline)); }
    const T* inlineData() const { return std::launder(reinterpret_cast<const T*>(m_inline)); }
    [[noreturn]] static T& outOfRange() { throw std::out_of_range("SmallVector::at"); }
    void release()
    {
        clear();
        if (onHeap())
            std::allocator<T>().deallocate(m_heap, m_capacity);
        m_capacity = N;
    }
    // Leaves `o` empty; this must hold nothing.
    void takeFrom(SmallVector& o) noexcept
    {
        if (o.onHeap()) {
            m_heap = o.m_heap;
            m_capacity = o.m_capacity;
            o.m_capacity = N;
        } else {
            std::uninitialized_move(o.begin(), o.end(), inlineData());
            std::destroy(o.begin(), o.end());
        }
        m_size = o.m_size;
        o.m_size = 0;
    }

    uint32_t m_size = 0;
    uint32_t m_capacity = N;
    union {
        alignas(T) unsigned char m_inline[N * sizeof(T)];
        T* m_heap;
    };
};

// A tensor's or weight's dimensions, outermost first: up to four without an allocation (every
// GGUF tensor, nearly every safetensors one).
using Shape = SmallVector<uint64_t, 4>;

} // namespace qs
