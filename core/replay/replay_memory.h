// What a replay holds per distinct key, so a log with more keys than the machine can hold is
// refused before the replay allocates them, never a std::bad_alloc.
//
// Measured (docs/logs.md; `ratelab bench --json`'s replay_bytes_per_key): a log of 1,000,000
// keys, one request each, against a log of 1,000,000 requests of 100 keys, peak resident size
// (/usr/bin/time -v, ratelab replay, Release): 162 B a key with fixed_window alone, 240 B with
// three algorithms, 300 B with the seven defaults. The estimate below is an upper bound of those.
#pragma once

#include "replay/replay.h"

#include <cstdint>

namespace ratelab {

// kReplayKeyBytes is a key's share of the read log: its name, its entry in the index of names,
// its request count.
inline constexpr std::int64_t kReplayKeyBytes = 160;
// kReplayRowBytesPerKey is a row's per key: its denials, its first denial, its limiter's state.
inline constexpr std::int64_t kReplayRowBytesPerKey = 40;
// kReplayLogBytesPerKey is what a sliding_window_log's key adds: its log of (time, cost) entries.
inline constexpr std::int64_t kReplayLogBytesPerKey = 120;

// kReplayRequestBytes is what a replay holds per request at most: its time, key, cost and path
// (24 B), the sort's order and copy of one array when the log is out of order (12 B), a run's
// decisions (12 B).
inline constexpr std::int64_t kReplayRequestBytes = 48;

// replayBytesPerKey returns the bytes a replay of `policy` holds at most per distinct key,
// `concurrent` rows' limiters at once (a sweep's threads).
std::int64_t replayBytesPerKey(const ReplayPolicy& policy, unsigned concurrent = 1);

// defaultMaxKeys returns how many distinct keys fit in half of `availableBytes` at
// `bytesPerKey` each (at least 1,000: a small machine still replays a small log).
std::int64_t defaultMaxKeys(std::int64_t availableBytes, std::int64_t bytesPerKey);

} // namespace ratelab
