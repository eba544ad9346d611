-- RateLab sliding_window_counter: the two-bucket approximation, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:sliding_window_counter   fields c (store clock, ns), b (window
--          index), p (previous window's count), n (current window's count)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for the key (integer >= 1); a service passes at least ceil(2 W) in ms
-- ARGV[5]  cost       optional, integer 1..1000000000 (default 1): admit iff
--          prev*(W - e) + (cur + cost - 1)*W < L*W, then cur += cost
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never), delay_ns (always 0), level_num, level_den}:
-- level = E = (prev * (W - e) + cur * W) / W.
--
-- The store clock never goes back: now = max(now_ns, c). Window b = floor(now / W), e = now - b*W.
-- Admit iff prev*(W - e) + cur*W < L*W (exact, scaled by W), then cur += 1.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- The largest integers formed are about (L + 1) * W (with a cost above 1, (2 L + 1) * W) and now:
-- keep them below 2^53. Quotients are formed with math.fmod (exact), never a/b rounded.
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
local A, err = args(1, {{'now_ns', 0, MAXI}, {'limit', 1, 1000000000}, {'window_ns', 1, MAXI}, {'ttl_ms', 1, MAXI},
  {'cost', 1, 1000000000, 1}})
if err then return err end
local now, limit, w, ttl, cost = A[1], A[2], A[3], A[4], A[5]
if cost == 1 then err = exact((limit + 1) * w, '(limit + 1) * window_ns')
else err = exact((2 * limit + 1) * w, '(2 * limit + 1) * window_ns (a cost above 1)') end
if err then return err end
local s = redis.call('HMGET', KEYS[1], 'c', 'b', 'p', 'n')
local clock = tonumber(s[1])
if clock and clock > now then now = clock end
local b = divmod(now, w)
local stored = tonumber(s[2])
local prev, cur = 0, 0
if stored == b then
  prev, cur = tonumber(s[3]), tonumber(s[4])
elseif stored == b - 1 then
  prev = tonumber(s[4])
end
local e = now - b * w
local bound = limit * w
local weighted = prev * (w - e)
local scaled = weighted + cur * w
local allowed, remaining, retry = 0, 0, 0
if scaled + (cost - 1) * w < bound then
  cur = cur + cost
  scaled = scaled + cost * w
  allowed = 1
elseif cost > limit then
  retry = -1
else
  local m = limit - cost + 1
  if cur >= m then
    -- only the next window helps: there prev' = cur, and cur*(W - e') < m*W needs e' as below
    retry = (w - e) + divmod((cur - m) * w, cur) + 1
  else
    -- the previous window's weight decays by prev per ns: prev*(W - e - d) < (m - cur)*W
    local inWindow = divmod(weighted - (m - cur) * w, prev) + 1
    retry = math.min(inWindow, w - e)
  end
end
if (allowed == 1 or cost > 1) and scaled < bound then remaining = math.min(ceildiv(bound - scaled, w), 2000000000) end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'b', string.format('%.0f', b),
  'p', string.format('%.0f', prev), 'n', string.format('%.0f', cur))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, remaining, retry, 0, scaled, w}
