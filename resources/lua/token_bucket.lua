-- RateLab token_bucket: a token bucket with lazy refill, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:token_bucket   fields c (store clock and last refill, ns),
--          u (tokens, in units of 1/per_ns of a token)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  capacity   C, tokens (integer >= 1)
-- ARGV[3]  tokens     the rate is `tokens` tokens every `per_ns` nanoseconds, reduced
-- ARGV[4]  per_ns     (1 per second: 1, 1000000000; 3 per 7 s: 3, 7000000000)
-- ARGV[5]  ttl_ms     PEXPIRE for the key (integer >= 1); a service passes at least ceil(C / r) in ms
-- ARGV[6]  cost       optional, integer 1..1000000000 (default 1): admit iff tokens >= cost
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never), delay_ns (always 0), level_num, level_den}:
-- level = tokens = u / per_ns.
--
-- Tokens are counted exactly in units: one token is per_ns units, and dt ns add dt * tokens
-- units, capped at C * per_ns. A new key is full. The store clock never goes back:
-- now = max(now_ns, c). Admit iff at least one token, then take it. A denied request may retry
-- after ceil((per_ns - u) / tokens) ns.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- The largest integers formed are C * per_ns + tokens and now: keep capacity * per_ns + tokens
-- and now_ns below 2^53. Quotients are formed with math.fmod (exact), never a/b rounded.
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
err = exact(capacity * per + tokens, 'capacity * per_ns + tokens')
if err then return err end
local cap = capacity * per
local s = redis.call('HMGET', KEYS[1], 'c', 'u')
local last, u = tonumber(s[1]), tonumber(s[2])
if last == nil then
  last, u = now, cap
end
if last > now then now = last end
if u < cap then
  local dt = now - last
  if dt >= ceildiv(cap - u, tokens) then u = cap else u = u + dt * tokens end
end
local allowed, remaining, retry = 0, 0, 0
if cost <= capacity and u >= cost * per then
  u = u - cost * per
  allowed = 1
elseif cost > capacity then
  retry = -1
else
  retry = ceildiv(cost * per - u, tokens)
end
if allowed == 1 or cost > 1 then remaining = math.min(divmod(u, per), 2000000000) end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'u', string.format('%.0f', u))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, remaining, retry, 0, u, per}
