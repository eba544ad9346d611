-- RateLab leaky_bucket_queue: the leaky bucket as a queue (shaper), one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:leaky_bucket_queue   fields c (store clock and last drain, ns),
--          v (water, in units of 1/per_ns of a request)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  capacity   C, requests (integer >= 1)
-- ARGV[3]  tokens     the drain rate is `tokens` requests every `per_ns` nanoseconds, reduced
-- ARGV[4]  per_ns     (1 per second: 1, 1000000000; 3 per 7 s: 3, 7000000000)
-- ARGV[5]  ttl_ms     PEXPIRE for the key (integer >= 1); a service passes at least ceil(C / r) in ms
-- ARGV[6]  cost       optional, integer 1..1000000000 (default 1): admit iff water + cost <= C
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never), delay_ns, level_num, level_den}:
-- delay_ns is how long an admitted request waits before it is sent on; level = requests waiting.
--
-- It admits exactly what leaky_bucket admits (same water, same rule); an admitted request waits
-- ceil(water_before / r) = ceil(v_before / tokens) ns, so requests leave at most at rate r.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- The largest integers formed are (C + 1) * per_ns and now: keep (capacity + 1) * per_ns and
-- now_ns below 2^53. Quotients are formed with math.fmod (exact), never a/b rounded.
local function divmod(a, b)
  local r = math.fmod(a, b)
  return (a - r) / b, r
end
local function ceildiv(a, b)
  local q, r = divmod(a, b)
  if r > 0 then q = q + 1 end
  return q
end

-- @CHECKS@
local A, err = args(1, {{'now_ns', 0, MAXI}, {'capacity', 1, 1000000000}, {'tokens', 1, MAXI}, {'per_ns', 1, MAXI},
  {'ttl_ms', 1, MAXI}, {'cost', 1, 1000000000, 1}})
if err then return err end
local now, capacity, tokens, per, ttl, cost = A[1], A[2], A[3], A[4], A[5], A[6]
if cost == 1 then err = exact((capacity + 1) * per, '(capacity + 1) * per_ns')
else err = exact(2 * capacity * per, '2 * capacity * per_ns (a cost above 1)') end
if err then return err end
local cap = capacity * per
local s = redis.call('HMGET', KEYS[1], 'c', 'v')
local last, v = tonumber(s[1]), tonumber(s[2])
if last == nil then
  last, v = now, 0
end
if last > now then now = last end
if v > 0 then
  local dt = now - last
  if dt >= ceildiv(v, tokens) then v = 0 else v = v - dt * tokens end
end
local allowed, remaining, retry, delay = 0, 0, 0, 0
if cost <= capacity and v + cost * per <= cap then
  delay = ceildiv(v, tokens)
  v = v + cost * per
  allowed = 1
elseif cost > capacity then
  retry = -1
else
  retry = ceildiv(v + cost * per - cap, tokens)
end
if allowed == 1 or cost > 1 then remaining = math.min(divmod(cap - v, per), 2000000000) end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'v', string.format('%.0f', v))
redis.call('PEXPIRE', KEYS[1], ttl)
local waiting = ceildiv(v, per) - 1
if waiting < 0 then waiting = 0 end
return {allowed, remaining, retry, delay, waiting, 1}
