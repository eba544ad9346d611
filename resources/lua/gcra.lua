-- RateLab gcra: the generic cell rate algorithm, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:gcra   fields c (store clock, ns), t (TAT, in units of 1/tokens ns)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  capacity   C, the burst (integer >= 1)
-- ARGV[3]  tokens     the rate is `tokens` requests every `per_ns` nanoseconds, reduced
-- ARGV[4]  per_ns     (1 per second: 1, 1000000000; 3 per 7 s: 3, 7000000000)
-- ARGV[5]  ttl_ms     PEXPIRE for the key (integer >= 1); a service passes at least ceil(C / r) in ms
-- ARGV[6]  cost       optional, integer 1..1000000000 (default 1): admit iff
--          max(TAT, now) + cost*T - now <= C*T, then TAT = max(TAT, now) + cost*T
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never), delay_ns (always 0), level_num, level_den}:
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

-- @CHECKS@
local A, err = args(1, {{'now_ns', 0, MAXI}, {'capacity', 1, 1000000000}, {'tokens', 1, MAXI}, {'per_ns', 1, MAXI},
  {'ttl_ms', 1, MAXI}, {'cost', 1, 1000000000, 1}})
if err then return err end
local now, capacity, tokens, per, ttl, cost = A[1], A[2], A[3], A[4], A[5], A[6]
if cost == 1 then err = exact(now * tokens + (capacity + 1) * per, 'now_ns * tokens + (capacity + 1) * per_ns')
else err = exact(now * tokens + 2 * capacity * per, 'now_ns * tokens + 2 * capacity * per_ns (a cost above 1)') end
if err then return err end
local s = redis.call('HMGET', KEYS[1], 'c', 't')
local clock, tat = tonumber(s[1]), tonumber(s[2])
if clock and clock > now then now = clock end
local nowScaled = now * tokens
local tau = (capacity - 1) * per
local x = nowScaled
if tat and tat > nowScaled then x = tat end
local allowed, remaining, retry = 0, 0, 0
local tolerance = tau - (cost - 1) * per
if cost <= capacity and x - nowScaled <= tolerance then
  tat = x + cost * per
  allowed = 1
elseif cost > capacity then
  retry = -1
else
  retry = ceildiv(x - nowScaled - tolerance, tokens)
end
if allowed == 1 or cost > 1 then
  local ahead = nowScaled
  if tat and tat > nowScaled then ahead = tat end
  local slack = tau - (ahead - nowScaled)
  if slack >= 0 then remaining = math.min(divmod(slack, per) + 1, 2000000000) end
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
