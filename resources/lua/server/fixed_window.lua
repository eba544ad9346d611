-- fixed_window: hash {c = clock (us), b = window index, n = count}. Window b = floor(now / W);
-- the count resets when b changes; admit iff n + cost <= L, then n += cost.
local function fixed_window(key, L, Wu)
  local self = {quota = L, delay = 0}
  local s = redis.call('HMGET', key, 'c', 'b', 'n')
  self.clock = tonumber(s[1])
  local b, e, n
  function self.at(now)
    b, e = divmod(now, Wu)
    n = 0
    if tonumber(s[2]) == b then n = tonumber(s[3]) end
  end
  function self.admit(k)
    if n + k > L then return false end
    n = n + k
    self.dirty = true
    return true
  end
  function self.wait(k) -- ns until k fit: the next window
    if n + k <= L then return 0 end
    return (Wu - e) * 1000
  end
  function self.remaining() return L - n end
  function self.save(now)
    redis.call('HSET', key, 'c', num(now), 'b', num(b), 'n', num(n))
    expireAt(key, now, Wu - e) -- a key whose window has passed is a fresh key
  end
  return self
end
