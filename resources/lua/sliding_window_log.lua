-- RateLab sliding_window_log: the exact sliding window, one atomic call per request.
--
-- KEYS[1]  hash {ratelab:KEY}:sliding_window_log       field c (store clock, ns)
-- KEYS[2]  list {ratelab:KEY}:sliding_window_log:log   admitted entries, oldest first: "T" (ns) or
--          "T:cost"; both keys carry the same {hash tag} (one Redis Cluster slot)
-- ARGV[1]  now_ns     the caller's clock, integer nanoseconds
-- ARGV[2]  limit      L, requests per window (integer >= 1)
-- ARGV[3]  window_ns  W, integer nanoseconds > 0
-- ARGV[4]  ttl_ms     PEXPIRE for both keys (integer >= 1); a service passes at least ceil(W) in ms
-- ARGV[5]  cost       optional, integer 1..1000000000 (default 1)
-- Every argument is checked first: a bad one is an error reply naming it, and nothing is written.
-- Returns {allowed (0/1), remaining, retry_after_ns (-1: never), delay_ns (always 0), level_num, level_den}:
-- level = entries inside the window.
--
-- The store clock never goes back: now = max(now_ns, c). An entry s is kept while s > now - W;
-- admit iff the kept entries' costs + cost <= L, then record (now, cost). A denied request may
-- retry once enough of the oldest entries have expired (each W after it was admitted).
--
-- Exact domain: Lua 5.1 numbers are doubles, exact for integers below 2^53 = 9007199254740992.
-- Every integer formed here is at most max(now, W): keep now_ns and window_ns below 2^53
-- (times below about 104 days).
-- @CHECKS@
local A, err = args(2, {{'now_ns', 0, MAXI}, {'limit', 1, 1000000000}, {'window_ns', 1, MAXI}, {'ttl_ms', 1, MAXI},
  {'cost', 1, 1000000000, 1}})
if err then return err end
local now, limit, w, ttl, cost = A[1], A[2], A[3], A[4], A[5]
local function tagOf(key) return string.match(key, '{([^}]+)}') end
if tagOf(KEYS[1]) == nil or tagOf(KEYS[1]) ~= tagOf(KEYS[2]) then
  return refuse('KEYS[2]: "' .. KEYS[2] .. '" must carry the {hash tag} of KEYS[1] "' .. KEYS[1] .. '" (one slot in Redis Cluster)')
end
local clock = tonumber(redis.call('HGET', KEYS[1], 'c'))
if clock and clock > now then now = clock end
local raw = redis.call('LRANGE', KEYS[2], 0, -1)
local ts, ks = {}, {}
for i = 1, #raw do
  local sep = string.find(raw[i], ':', 1, true)
  if sep then
    ts[i], ks[i] = tonumber(string.sub(raw[i], 1, sep - 1)), tonumber(string.sub(raw[i], sep + 1))
  else
    ts[i], ks[i] = tonumber(raw[i]), 1
  end
end
local first = #ts + 1
for i = 1, #ts do
  if ts[i] > now - w then first = i break end
end
if first > 1 then redis.call('LTRIM', KEYS[2], first - 1, -1) end
local used = 0
for i = first, #ts do used = used + ks[i] end
local allowed, remaining, retry = 0, 0, 0
if used + cost <= limit then
  local entry = string.format('%.0f', now)
  if cost > 1 then entry = entry .. ':' .. string.format('%.0f', cost) end
  redis.call('RPUSH', KEYS[2], entry)
  used = used + cost
  allowed = 1
elseif cost > limit then
  retry = -1
else
  local u = used
  for i = first, #ts do
    u = u - ks[i]
    if u + cost <= limit then retry = w - (now - ts[i]) break end
  end
end
if allowed == 1 or cost > 1 then remaining = math.min(limit - used, 2000000000) end
redis.call('HSET', KEYS[1], 'c', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], ttl)
if used > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {allowed, remaining, retry, 0, used, 1}
