-- sliding_window_counter: hash {c = clock (us), b = window index, p = previous window's count,
-- n = current window's count}. e = now - b*W; admit iff p*(W - e) + (n + cost - 1)*W < L*W
-- (exact, in ns scaled by W), then n += cost.
local function sliding_window_counter(key, L, Wu)
  local self = {quota = L, delay = 0}
  local W = Wu * 1000
  local s = redis.call('HMGET', key, 'c', 'b', 'p', 'n')
  self.clock = tonumber(s[1])
  local b, e, prev, cur
  local function scaled() return prev * (W - e) + cur * W end
  function self.at(now)
    local eu
    b, eu = divmod(now, Wu)
    e = eu * 1000
    local stored = tonumber(s[2])
    prev, cur = 0, 0
    if stored == b then
      prev, cur = tonumber(s[3]), tonumber(s[4])
    elseif stored == b - 1 then
      prev = tonumber(s[4])
    end
  end
  function self.admit(k)
    if scaled() + (k - 1) * W >= L * W then return false end
    cur = cur + k
    self.dirty = true
    return true
  end
  function self.wait(k)
    if scaled() + (k - 1) * W < L * W then return 0 end
    local m = L - k + 1
    if cur >= m then -- only the next window helps: there prev' = cur and cur*(W - e') < m*W
      return (W - e) + divmod((cur - m) * W, cur) + 1
    end
    -- the previous window's weight decays by prev per ns: prev*(W - e - d) < (m - cur)*W
    local inWindow = divmod(prev * (W - e) - (m - cur) * W, prev) + 1
    return math.min(inWindow, W - e)
  end
  function self.remaining()
    local x = scaled()
    if x >= L * W then return 0 end
    return ceildiv(L * W - x, W)
  end
  function self.save(now)
    redis.call('HSET', key, 'c', num(now), 'b', num(b), 'p', num(prev), 'n', num(cur))
    expireAt(key, now, 2 * Wu - (e / 1000)) -- after the next window both counts are 0
  end
  return self
end
