-- RateLab gcra: the generic cell rate algorithm, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:gcra   fields c (store clock, ns), t (TAT, in units of 1/tokens ns)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  capacity   C, the burst (integer >= 1)
-- ARGV[3]  tokens     the rate is `tokens` requests every `per_ns` nanoseconds, reduced
-- ARGV[4]  per_ns     (1 per second: 1, 1000000000; 3 per 7 s: 3, 7000000000)
-- ARGV[5]  ttl_ms     PEXPIRE for the key; a service passes at least ceil(C / r) in ms
-- Returns {allowed (0/1), remaining, retry_after_ns, delay_ns (always 0), level_num, level_den}:
-- level = backlog in seconds = level_num / level_den / 1e9 (TAT - now, clamped at 0).
--
-- Time is scaled by `tokens` so that the emission interval T = per_ns / tokens ns is the integer
-- per_ns, and the tolerance tau = (C - 1) * per_ns. x = max(TAT, now); admit iff x - now <= tau,
-- then TAT = x + T. The store clock never goes back: now = max(now_ns, c). A denied request may
-- retry after ceil((x - now - tau) / tokens) ns.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- The largest integer formed is TAT <= now * tokens + C * per_ns: keep
-- now_ns * tokens + (capacity + 1) * per_ns below 2^53. Quotients use math.fmod (exact).
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
local s = redis.call('HMGET', KEYS[1], 'c', 't')
local clock, tat = tonumber(s[1]), tonumber(s[2])
if clock and clock > now then now = clock end
local nowScaled = now * tokens
local tau = (capacity - 1) * per
local x = nowScaled
if tat and tat > nowScaled then x = tat end
local allowed, remaining, retry = 0, 0, 0
if x - nowScaled <= tau then
  tat = x + per
  allowed = 1
  local slack = tau - (tat - nowScaled)
  if slack >= 0 then remaining = math.min(divmod(slack, per) + 1, 2000000000) end
else
  retry = ceildiv(x - nowScaled - tau, tokens)
end
if tat then
  redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 't', string.format('%.0f', tat))
else
  redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now))
end
redis.call('PEXPIRE', KEYS[1], ttl)
local backlog = 0
if tat and tat > nowScaled then backlog = tat - nowScaled end
return {allowed, remaining, retry, 0, backlog, tokens}
