# Runs the Python `limits` library (Debian's python3-limits) with its MemoryStorage on the arrival
# times read from stdin (decimal seconds, one a line), time.time() replaced by them as its own
# tests do, and the storage's background expiry timer held (it only drops what the strategies
# already treat as expired). Prints 1 (hit passed) or 0 per arrival.
# Usage: python3 limits_peer.py STRATEGY "LIMIT" < times_seconds
import sys
import time

import limits
import limits.storage
import limits.strategies

now = 0.0
time.time = lambda: now

strategy, text = sys.argv[1], sys.argv[2]
storage = limits.storage.MemoryStorage()
storage.timer.cancel()
storage._MemoryStorage__schedule_expiry = lambda: None
kind = {
    "fixed-window": limits.strategies.FixedWindowRateLimiter,
    "fixed-window-elastic-expiry": limits.strategies.FixedWindowElasticExpiryRateLimiter,
    "moving-window": limits.strategies.MovingWindowRateLimiter,
}[strategy]
limiter = kind(storage)
item = limits.parse(text)
out = []
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    now = float(line)
    out.append("1" if limiter.hit(item, "key") else "0")
sys.stdout.write("\n".join(out) + "\n")
