#!/usr/bin/env python3
# RateLab: a service's call of the server-clock limiter script (redis-py; Debian: python3-redis).
#   @COMMAND@ > ratelab.lua
#   REDIS_URL=redis://localhost:6379 RATELAB_SCRIPT=ratelab.lua python3 caller.py user:42 3
import os
import sys

import redis

LAYERS = @LAYERS@
r = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://localhost:6379"))
with open(os.environ.get("RATELAB_SCRIPT", "ratelab.lua")) as f:
    SCRIPT = f.read()
sha = r.script_load(SCRIPT)  # once; EVALSHA then sends 40 bytes instead of the script


def keys_for(ident):
    # One key per layer, all with the same {hash tag}: one slot in Redis Cluster.
    if LAYERS == 1:
        return ["rl:{%s}" % ident]
    return ["rl:{%s}:%d" % (ident, i + 1) for i in range(LAYERS)]


def check(ident, cost=1):
    """Decides one request of `ident`: returns the HTTP status and the headers to send."""
    keys = keys_for(ident)
    try:
        v = r.evalsha(sha, len(keys), *keys, cost)
    except redis.exceptions.NoScriptError:  # restarted or failed over: send the script itself
        v = r.eval(SCRIPT, len(keys), *keys, cost)
    allowed, remaining, retry_s, limit, reset_s, reset_at = v[0], v[1], v[3], v[4], v[6], v[7]
    headers = {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": str(reset_at),
        "RateLimit": '"default";r=%d;t=%d' % (remaining, reset_s),
    }
    if not allowed and retry_s > 0:  # -1: the cost exceeds the quota, no wait helps
        headers["Retry-After"] = str(retry_s)
    return (200 if allowed else 429), headers


if __name__ == "__main__":
    ident = sys.argv[1] if len(sys.argv) > 1 else "user:42"
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
        try:
            status, headers = check(ident)
        except redis.exceptions.RedisError as e:  # WRONGTYPE, OOM, no connection: not a denial
            sys.exit("caller.py: Redis answered an error, not a decision: %s" % e)
        print("HTTP/1.1 %d %s" % (status, "OK" if status == 200 else "Too Many Requests"))
        for name, value in headers.items():
            print("%s: %s" % (name, value))
        print()
