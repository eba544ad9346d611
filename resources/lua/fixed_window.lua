-- RateLab fixed_window: a fixed window counter, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:fixed_window   fields c (store clock, ns), b (window index), n (count)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for the key; a service passes at least ceil(W) in ms
-- Returns {allowed (0/1), remaining, retry_after_ns, delay_ns (always 0), level_num, level_den}:
-- level = level_num / level_den is the count in the current window.
--
-- The store clock never goes back: now = max(now_ns, c). Window b = floor(now / W); the count
-- resets when b changes; admit iff count < L, then count += 1. A denied request may retry after
-- W - (now - b*W) ns.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- Every integer formed here is at most max(now, W): keep now_ns and window_ns below 2^53
-- (times below about 104 days). Quotients are formed with math.fmod (exact), never a/b rounded.
local function divmod(a, b)
  local r = math.fmod(a, b)
  return (a - r) / b, r
end

local now, limit, w, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local s = redis.call('HMGET', KEYS[1], 'c', 'b', 'n')
local clock = tonumber(s[1])
if clock and clock > now then now = clock end
local b = divmod(now, w)
local n = 0
if tonumber(s[2]) == b then n = tonumber(s[3]) end
local allowed, remaining, retry = 0, 0, 0
if n < limit then
  n = n + 1
  allowed, remaining = 1, math.min(limit - n, 2000000000)
else
  retry = w - (now - b * w)
end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'b', string.format('%.0f', b), 'n', string.format('%.0f', n))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, remaining, retry, 0, n, 1}
