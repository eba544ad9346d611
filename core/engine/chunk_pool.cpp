// The pool of log chunks (chunk_pool.h).
#include "engine/chunk_pool.h"

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
};

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
        for (std::size_t i = p.kept.size(); i-- > 0;)
            if (p.kept[i].second == bytes) {
                void* chunk = p.kept[i].first;
                p.kept[i] = p.kept.back();
                p.kept.pop_back();
                p.bytes -= bytes;
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
        if (p.bytes + bytes <= kChunkPoolBytes) {
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
    for (const auto& [chunk, size] : kept)
        ::operator delete(chunk);
    return bytes;
}

std::size_t keptChunkBytes()
{
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    return p.bytes;
}

} // namespace ratelab
