-- RateLab fixed_window: a fixed window counter, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:fixed_window   fields c (store clock, ns), b (window index), n (count)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for the key (integer >= 1); a service passes at least ceil(W) in ms
-- ARGV[5]  cost       optional, integer 1..1000000000 (default 1): admit iff count + cost <= L
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never, the cost exceeds L), delay_ns (always 0), level_num, level_den}:
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

-- @CHECKS@
local A, err = args(1, {{'now_ns', 0, MAXI}, {'limit', 1, 1000000000}, {'window_ns', 1, MAXI}, {'ttl_ms', 1, MAXI},
  {'cost', 1, 1000000000, 1}})
if err then return err end
local now, limit, w, ttl, cost = A[1], A[2], A[3], A[4], A[5]
local s = redis.call('HMGET', KEYS[1], 'c', 'b', 'n')
local clock = tonumber(s[1])
if clock and clock > now then now = clock end
local b = divmod(now, w)
local n = 0
if tonumber(s[2]) == b then n = tonumber(s[3]) end
local allowed, remaining, retry = 0, 0, 0
if n + cost <= limit then
  n = n + cost
  allowed = 1
elseif cost > limit then
  retry = -1
else
  retry = w - (now - b * w)
end
if allowed == 1 or cost > 1 then remaining = math.min(limit - n, 2000000000) end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'b', string.format('%.0f', b), 'n', string.format('%.0f', n))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, remaining, retry, 0, n, 1}
