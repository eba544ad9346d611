// Seeded random layers for the property tests: one of the eight algorithms with a small config
// (limit and capacity 1..6, window 1..4 s, rate 1..4 per second), from a reproducible stream.
#pragma once

#include "engine/layered.h"

#include <cstdint>
#include <iterator>
#include <random>

namespace ratelab::test {

inline constexpr Algorithm kLayerAlgorithms[] = {
    Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter, Algorithm::TokenBucket,
    Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue, Algorithm::Gcra,                 Algorithm::NginxLimitReq};

struct RandomLayer {
    std::mt19937_64 rng;
    explicit RandomLayer(std::uint64_t seed) : rng(seed) {}
    std::int64_t below(std::int64_t n) { return std::int64_t(rng() % std::uint64_t(n)); }

    Layer layer()
    {
        const LimiterConfig c = LimiterConfig::make(1 + below(6), (1 + below(4)) * kNanosPerSecond, 1 + below(6),
                                                    Rate::reduced(1 + below(4), kNanosPerSecond));
        return {kLayerAlgorithms[below(std::size(kLayerAlgorithms))], c};
    }
};

} // namespace ratelab::test
