// The server-clock scripts (semantics.md, "Scripts for production: the server's clock"): what a
// service deploys. Unlike the injected-time scripts the simulation runs (redis_store.h), they read
// Redis TIME in integer microseconds, carry their config inside (generated from a policy of one or
// more layers), check every argument, write only when a layer consumed, expire their keys once
// they are as good as fresh, and return what the response headers need.
#pragma once

#include "engine/layered.h"

#include <span>
#include <string>

namespace ratelab::io {

// ServerClockReply names the fields the script returns, in order (1-based in Lua, 0-based here).
enum ServerClockReply : int {
    kReplyAllowed,      // 1 admitted, 0 denied
    kReplyRemaining,    // requests of cost 1 still admitted now (X-RateLimit-Remaining)
    kReplyRetryMs,      // denied: ceil(retry_after) in ms; 0 admitted; -1 never (cost above the quota)
    kReplyRetryS,       // denied: Retry-After, ceil(retry_after) in whole seconds (>= 1); 0; -1 never
    kReplyLimit,        // X-RateLimit-Limit: the quota of the layer the headers describe
    kReplyResetMs,      // that layer's reset (back to its full quota), ceil in ms
    kReplyResetS,       // the same in whole seconds, rounded up (RateLimit: t=)
    kReplyResetAtS,     // X-RateLimit-Reset: ceil(now + reset) in Unix seconds
    kReplyDelayMs,      // leaky_bucket_queue: how long the admitted request waits, ceil in ms
    kReplyNowUs,        // the time decided at: max(TIME, the key's stored clock), in us
    kReplyRetryNs,      // retry_after exactly, in ns (-1 never)
    kReplyResetNs,      // reset exactly, in ns
    kReplyDelayNs,      // delay exactly, in ns
    kReplyFields
};

// checkServerClockLayer throws InputError when a layer cannot be a server-clock script: nginx
// (nginx's own module), a window that is not a whole number of microseconds (TIME's unit), or a
// config whose scaled integers reach 2^53 (the bound is named).
void checkServerClockLayer(const Layer& layer);

// serverClockScript returns the script of a policy (layers asked in order, one key each; a
// single algorithm is a policy of one layer), with `command` (how it was generated) in its
// header. It throws InputError as checkServerClockLayer does, or for no layer.
std::string serverClockScript(std::span<const Layer> layers, const std::string& command = {});

} // namespace ratelab::io
