// The pool of log chunks (chunk_pool.h).
#include "engine/chunk_pool.h"

#if defined(__SANITIZE_ADDRESS__)
#define RATELAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RATELAB_ASAN 1
#endif
#endif
#ifndef RATELAB_ASAN
#define RATELAB_ASAN 0
#endif
#if RATELAB_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace ratelab {

namespace {

struct Pool {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> kept; // (chunk, its bytes)
    std::size_t bytes = 0;
    std::uint64_t activity = 0;
};

// A kept chunk is poisoned for AddressSanitizer until it is taken again: a log read after it was
// freed still fails there, as it would with the allocator.
void poison([[maybe_unused]] void* chunk, [[maybe_unused]] std::size_t bytes)
{
#if RATELAB_ASAN
    __asan_poison_memory_region(chunk, bytes);
#endif
}

void unpoison([[maybe_unused]] void* chunk, [[maybe_unused]] std::size_t bytes)
{
#if RATELAB_ASAN
    __asan_unpoison_memory_region(chunk, bytes);
#endif
}

Pool& pool()
{
    static Pool* p = new Pool; // never destroyed: logs may be freed by static objects at exit
    return *p;
}

} // namespace

void* takeChunk(std::size_t bytes)
{
    Pool& p = pool();
    {
        const std::lock_guard lock(p.mutex);
        ++p.activity;
        for (std::size_t i = p.kept.size(); i-- > 0;)
            if (p.kept[i].second == bytes) {
                void* chunk = p.kept[i].first;
                p.kept[i] = p.kept.back();
                p.kept.pop_back();
                p.bytes -= bytes;
                unpoison(chunk, bytes);
                return chunk;
            }
    }
    return ::operator new(bytes);
}

void keepChunk(void* chunk, std::size_t bytes)
{
    Pool& p = pool();
    {
        const std::lock_guard lock(p.mutex);
        ++p.activity;
        if (p.bytes + bytes <= kChunkPoolBytes) {
            poison(chunk, bytes);
            p.kept.emplace_back(chunk, bytes);
            p.bytes += bytes;
            return;
        }
    }
    ::operator delete(chunk);
}

std::size_t releaseKeptChunks()
{
    std::vector<std::pair<void*, std::size_t>> kept;
    std::size_t bytes = 0;
    {
        Pool& p = pool();
        const std::lock_guard lock(p.mutex);
        kept.swap(p.kept);
        bytes = std::exchange(p.bytes, 0);
    }
    for (const auto& [chunk, size] : kept) {
        unpoison(chunk, size);
        ::operator delete(chunk);
    }
    return bytes;
}

std::uint64_t chunkPoolActivity()
{
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    return p.activity;
}

std::size_t keptChunkBytes()
{
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    return p.bytes;
}

} // namespace ratelab
