// The textbook token bucket and GCRA beside a product's advice (`advise --compare`): at the
// recommended rate, the least capacity at which they admit every request of the kept keys, and
// what they then deny, so that the product's own arithmetic (nginx's ms and thousandths, Envoy's
// whole fills, Traefik's maxDelay) can be told from the algorithm's.
//
// The least capacity, one pass: TokenBucket counts tokens exactly, in units of 1/perNanos of a
// token (rate tokens/perNanos). With d = capacity - tokens in those units, each request of cost c
// makes d = max(0, d - elapsed * tokens) + c * perNanos and is admitted iff d <= capacity *
// perNanos; with every request admitted d does not depend on the capacity, so the least is
// ceil(max d / perNanos), at least 1. GCRA with tolerance (C - 1) / rate admits exactly what a
// token bucket of capacity C admits (gcra.h), so it needs the same C; its row measures that
// rather than assume it.
#pragma once

#include "advise/advise.h"
#include "limiters/limiter.h"

namespace ratelab {

// bucketCapacityNeeded is the least capacity at which TokenBucket at `rate` admits every request
// of the trace.
std::int64_t bucketCapacityNeeded(KeyTrace trace, Rate rate);

struct TextbookRow {
    Algorithm algorithm = Algorithm::TokenBucket;
    std::int64_t capacity = 0;
    DenialCount denied;
};

// textbookRows are the token bucket's and GCRA's rows at `rate`: the capacity the kept keys need
// (the most any of them needs), each algorithm's own model run on every limited key at it.
std::vector<TextbookRow> textbookRows(const KeyedTraces& traces, const std::vector<std::uint8_t>& kept, Rate rate);

} // namespace ratelab
