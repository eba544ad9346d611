// AttemptLog: the engine's decided attempts, appended in chunks that double from 1 Ki entries up
// to 64 Ki, so a log that outgrows its guess never copies itself (a vector's doubling holds the
// old and the new buffer at once: three times the log at its peak), a short run allocates little,
// and a long one holds at most one part-filled chunk of slack.
#pragma once

#include "engine/chunk_pool.h"
#include "limiters/limiter.h"

#include <bit>
#include <cstddef>
#include <utility>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ratelab {

// LoggedAttempt is one decided attempt, in 40 bytes: enough to write it, draw it and rebuild
// its Decision (a delay and a retry_after are never both set, so they share `wait`).
struct LoggedAttempt {
    Nanos t = 0;           // true time
    Nanos wait = 0;        // admitted: its delay; denied: its retry_after (kRetryNever: never)
    double level = 0;      // the first layer's level after it, as its node saw it
    std::int32_t request = 0;
    std::int32_t client = 0;
    std::int32_t remaining = 0;
    std::uint8_t attempt = 0;     // 0 for the first
    std::uint8_t node = 0;
    std::uint8_t allowed = 0;
    std::uint8_t headerLayer = 0; // the layer with the least remaining: what X-RateLimit-* describe

    // decision rebuilds the Decision the policy answered.
    Decision decision() const
    {
        Decision d;
        d.allowed = allowed != 0;
        (d.allowed ? d.delay : d.retryAfter) = wait;
        d.level = level;
        d.remaining = remaining;
        return d;
    }
};
static_assert(sizeof(LoggedAttempt) == 40);

template <typename T>
class ChunkedLog {
    static_assert(std::is_trivially_destructible_v<T>, "a chunk is freed without destroying what it holds");
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "a chunk has operator new's alignment");

public:
    static constexpr std::size_t kFirst = std::size_t(1) << 10; // chunk c < kGrowing holds kFirst << c
    static constexpr std::size_t kGrowing = 7;
    static constexpr std::size_t kChunk = kFirst << (kGrowing - 1); // then every chunk: 64 Ki
    static constexpr std::size_t kInGrowing = kFirst * ((std::size_t(1) << kGrowing) - 1);

    ChunkedLog() = default;
    // A log moved from is empty, and takes pushes into chunks of its own.
    ChunkedLog(ChunkedLog&& o) noexcept
        : m_chunks(std::move(o.m_chunks)), m_size(std::exchange(o.m_size, 0)),
          m_tail(std::exchange(o.m_tail, nullptr)), m_tailEnd(std::exchange(o.m_tailEnd, nullptr))
    {
        o.m_chunks.clear();
    }
    ChunkedLog& operator=(ChunkedLog&& o) noexcept
    {
        if (this != &o) {
            m_chunks = std::move(o.m_chunks);
            o.m_chunks.clear();
            m_size = std::exchange(o.m_size, 0);
            m_tail = std::exchange(o.m_tail, nullptr);
            m_tailEnd = std::exchange(o.m_tailEnd, nullptr);
        }
        return *this;
    }

    void push_back(const T& v)
    {
        if (m_tail == m_tailEnd) [[unlikely]]
            addChunk();
        ::new (static_cast<void*>(m_tail++)) T(v);
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T& operator[](std::size_t i) { return const_cast<T&>(std::as_const(*this)[i]); }
    // at is operator[] that throws std::out_of_range past the end, as a vector's at does.
    const T& at(std::size_t i) const
    {
        if (i >= m_size)
            throw std::out_of_range("ChunkedLog::at");
        return (*this)[i];
    }
    const T& operator[](std::size_t i) const
    {
        if (i >= kInGrowing) {
            const std::size_t j = i - kInGrowing;
            return m_chunks[kGrowing + j / kChunk][j % kChunk];
        }
        const std::size_t c = std::size_t(std::bit_width(i / kFirst + 1)) - 1; // kFirst * (2^c - 1) <= i
        return m_chunks[c][i - kFirst * ((std::size_t(1) << c) - 1)];
    }

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
    // A chunk is raw storage from the pool (chunk_pool.h) that push_back copies into: T's
    // default member initializers (a LoggedAttempt's zeros) would write every byte of it once
    // more before its use.
    struct FreeChunk {
        std::size_t bytes = 0;
        void operator()(T* p) const { keepChunk(p, bytes); }
    };
    using Chunk = std::unique_ptr<T[], FreeChunk>;

    [[gnu::noinline]] void addChunk()
    {
        const std::size_t c = m_chunks.size();
        const std::size_t n = c < kGrowing ? kFirst << c : kChunk;
        m_chunks.push_back(Chunk(static_cast<T*>(takeChunk(n * sizeof(T))), FreeChunk{n * sizeof(T)}));
        m_tail = m_chunks.back().get();
        m_tailEnd = m_tail + n;
    }

    std::vector<Chunk> m_chunks;
    std::size_t m_size = 0;
    // The last chunk's next free slot and its end: a push is a store and an increment, not
    // operator[]'s search for the chunk. Null in a log with no chunk.
    T* m_tail = nullptr;
    T* m_tailEnd = nullptr;
};

} // namespace ratelab
