-- RateLab sliding_window_log: the exact sliding window, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:sliding_window_log       field c (store clock, ns)
-- KEYS[2]  list {ratelab:KEY}:sliding_window_log:log   admitted times (ns), oldest first
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for both keys; a service passes at least ceil(W) in ms
-- Returns {allowed (0/1), remaining, retry_after_ns, delay_ns (always 0), level_num, level_den}:
-- level = entries inside the window.
--
-- The store clock never goes back: now = max(now_ns, c). An entry s is kept while s > now - W;
-- admit iff fewer than L entries are kept, then record now. A denied request may retry when the
-- oldest entry expires: after W - (now - oldest) ns.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- Every integer formed here is at most max(now, W): keep now_ns and window_ns below 2^53
-- (times below about 104 days).
local now, limit, w, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local clock = tonumber(redis.call('HGET', KEYS[1], 'c'))
if clock and clock > now then now = clock end
local cutoff = now - w
while true do
  local head = tonumber(redis.call('LINDEX', KEYS[2], 0))
  if head == nil or head > cutoff then break end
  redis.call('LPOP', KEYS[2])
end
local size = redis.call('LLEN', KEYS[2])
local allowed, remaining, retry = 0, 0, 0
if size < limit then
  redis.call('RPUSH', KEYS[2], string.format('%.0f', now))
  size = size + 1
  allowed, remaining = 1, math.min(limit - size, 2000000000)
else
  retry = w - (now - tonumber(redis.call('LINDEX', KEYS[2], 0)))
end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], ttl)
if size > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {allowed, remaining, retry, 0, size, 1}
