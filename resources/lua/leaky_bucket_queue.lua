-- RateLab leaky_bucket_queue: the leaky bucket as a queue (shaper), one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:leaky_bucket_queue   fields c (store clock and last drain, ns),
--          v (water, in units of 1/per_ns of a request)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  capacity   C, requests (integer >= 1)
-- ARGV[3]  tokens     the drain rate is `tokens` requests every `per_ns` nanoseconds, reduced
-- ARGV[4]  per_ns     (1 per second: 1, 1000000000; 3 per 7 s: 3, 7000000000)
-- ARGV[5]  ttl_ms     PEXPIRE for the key; a service passes at least ceil(C / r) in ms
-- Returns {allowed (0/1), remaining, retry_after_ns, delay_ns, level_num, level_den}:
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

local now, capacity, tokens, per, ttl =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
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
if v + per <= cap then
  delay = ceildiv(v, tokens)
  v = v + per
  allowed = 1
  remaining = math.min(divmod(cap - v, per), 2000000000)
else
  retry = ceildiv(v + per - cap, tokens)
end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'v', string.format('%.0f', v))
redis.call('PEXPIRE', KEYS[1], ttl)
local waiting = ceildiv(v, per) - 1
if waiting < 0 then waiting = 0 end
return {allowed, remaining, retry, delay, waiting, 1}
