// ChunkPool: the large chunks of the engine's logs, kept when a log is freed and handed to the
// next log that grows. A frame of the app at 1M requests logs hundreds of MB; from fresh memory
// each of its pages costs the kernel a fault and a clear on first touch, which took more of a
// cluster's frame than deciding did. Kept chunks were touched already.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ratelab {

// kChunkPoolBytes is the most the pool keeps: chunks freed beyond it go back to the allocator.
inline constexpr std::size_t kChunkPoolBytes = std::size_t(512) << 20;

// takeChunk returns storage for `bytes` (aligned for any object), a kept chunk of that size when
// there is one. Thread-safe.
void* takeChunk(std::size_t bytes);
// keepChunk takes back storage from takeChunk of `bytes`, kept while the pool holds less than
// kChunkPoolBytes. Thread-safe.
void keepChunk(void* chunk, std::size_t bytes);
// releaseKeptChunks frees every kept chunk (the app, once it is idle) and returns their bytes.
std::size_t releaseKeptChunks();
// keptChunkBytes is what the pool holds now.
std::size_t keptChunkBytes();
// chunkPoolActivity counts the chunks taken and kept so far: unchanged between two looks, no log
// has grown or been freed in between (the app releases the pool once it is so for a while).
std::uint64_t chunkPoolActivity();

} // namespace ratelab
