-- RateLab sliding_window_counter: the two-bucket approximation, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:sliding_window_counter   fields c (store clock, ns), b (window
--          index), p (previous window's count), n (current window's count)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for the key; a service passes at least ceil(2 W) in ms
-- Returns {allowed (0/1), remaining, retry_after_ns, delay_ns (always 0), level_num, level_den}:
-- level = E = (prev * (W - e) + cur * W) / W.
--
-- The store clock never goes back: now = max(now_ns, c). Window b = floor(now / W), e = now - b*W.
-- Admit iff prev*(W - e) + cur*W < L*W (exact, scaled by W), then cur += 1.
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- The largest integers formed are about (L + 1) * W and now: keep (L + 1) * window_ns and now_ns
-- below 2^53. Quotients are formed with math.fmod (exact), never a/b rounded.
local function divmod(a, b)
  local r = math.fmod(a, b)
  return (a - r) / b, r
end
local function ceildiv(a, b)
  local q, r = divmod(a, b)
  if r > 0 then q = q + 1 end
  return q
end

local now, limit, w, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
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
if scaled < bound then
  cur = cur + 1
  scaled = scaled + w
  allowed = 1
  if scaled < bound then remaining = math.min(ceildiv(bound - scaled, w), 2000000000) end
elseif cur >= limit then
  -- only the next window helps: there prev' = cur, and cur*(W - e') < L*W needs e' as below
  retry = (w - e) + divmod((cur - limit) * w, cur) + 1
else
  -- the previous window's weight decays by prev per ns: prev*(W - e - d) < (L - cur)*W
  local inWindow = divmod(weighted - (limit - cur) * w, prev) + 1
  retry = math.min(inWindow, w - e)
end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now), 'b', string.format('%.0f', b),
  'p', string.format('%.0f', prev), 'n', string.format('%.0f', cur))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, remaining, retry, 0, scaled, w}
