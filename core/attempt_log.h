// AttemptLog: the engine's decided attempts, appended in chunks of 64 Ki entries, so a log that
// outgrows its guess never copies itself (a vector's doubling holds the old and the new buffer
// at once: three times the log at its peak) and holds at most one part-filled chunk of slack.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace ratelab {

template <typename T>
class ChunkedLog {
public:
    static constexpr std::size_t kChunk = std::size_t(1) << 16;

    void push_back(const T& v)
    {
        if (m_size == m_chunks.size() * kChunk)
            m_chunks.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
        m_chunks.back()[m_size % kChunk] = v;
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T& operator[](std::size_t i) { return m_chunks[i / kChunk][i % kChunk]; }
    const T& operator[](std::size_t i) const { return m_chunks[i / kChunk][i % kChunk]; }

    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;
        const_iterator(const ChunkedLog* log, std::size_t i) : m_log(log), m_i(i) {}
        const T& operator*() const { return (*m_log)[m_i]; }
        const T* operator->() const { return &(*m_log)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator==(const const_iterator& o) const { return m_i == o.m_i; }

    private:
        const ChunkedLog* m_log;
        std::size_t m_i;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

private:
    std::vector<std::unique_ptr<T[]>> m_chunks;
    std::size_t m_size = 0;
};

} // namespace ratelab
