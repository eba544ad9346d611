-- sliding_window_counter: hash {c = clock (us), b = window index, p = previous window's count,
-- n = current window's count}. e = now - b*W; admit iff p*(W - e) + (n + cost - 1)*W < L*W
-- (exact: W and e are whole us, so it is compared in us), then n += cost. The waits are formed in
-- us and scaled to ns exactly (quotient and remainder apart).
local function sliding_window_counter(key, L, Wu)
  local self = {quota = L, delay = 0}
  local s = redis.call('HMGET', key, 'c', 'b', 'p', 'n')
  self.clock = tonumber(s[1])
  local b, e, prev, cur
  local function scaled() return prev * (Wu - e) + cur * Wu end
  -- ns1000 returns floor(1000 * x / d) + 1 for x >= 0, without forming 1000 * x.
  local function ns1000(x, d)
    local q, r = divmod(x, d)
    return q * 1000 + divmod(r * 1000, d) + 1
  end
  function self.at(now)
    b, e = divmod(now, Wu)
    local stored = tonumber(s[2])
    prev, cur = 0, 0
    if stored == b then
      prev, cur = tonumber(s[3]), tonumber(s[4])
    elseif stored == b - 1 then
      prev = tonumber(s[4])
    end
  end
  function self.admit(k)
    if k > L or scaled() + (k - 1) * Wu >= L * Wu then return false end
    cur = cur + k
    self.dirty = true
    return true
  end
  function self.wait(k) -- ns
    if scaled() + (k - 1) * Wu < L * Wu then return 0 end
    local m = L - k + 1
    if cur >= m then -- only the next window helps: there prev' = cur and cur*(W - e') < m*W
      return (Wu - e) * 1000 + ns1000((cur - m) * Wu, cur)
    end
    -- the previous window's weight decays by prev per ns: prev*(W - e - d) < (m - cur)*W
    return math.min(ns1000(prev * (Wu - e) - (m - cur) * Wu, prev), (Wu - e) * 1000)
  end
  function self.remaining()
    local x = scaled()
    if x >= L * Wu then return 0 end
    return ceildiv(L * Wu - x, Wu)
  end
  function self.save(now)
    redis.call('HSET', key, 'c', num(now), 'b', num(b), 'p', num(prev), 'n', num(cur))
    expireAt(key, now, 2 * Wu - e) -- after the next window both counts are 0
  end
  return self
end
