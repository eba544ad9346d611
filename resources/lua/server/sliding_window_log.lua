-- sliding_window_log: list of admitted entries, oldest first, "T" (cost 1) or "T:cost", T in us.
-- An entry is kept while T > now - W; admit iff the kept costs + cost <= L, then record now.
-- The newest entry is the key's clock (only an admission writes).
local function sliding_window_log(key, L, Wu)
  local self = {quota = L, delay = 0}
  local raw = redis.call('LRANGE', key, 0, -1)
  local ts, ks = {}, {}
  for i = 1, #raw do
    local sep = string.find(raw[i], ':', 1, true)
    if sep then
      ts[i], ks[i] = tonumber(string.sub(raw[i], 1, sep - 1)), tonumber(string.sub(raw[i], sep + 1))
    else
      ts[i], ks[i] = tonumber(raw[i]), 1
    end
  end
  self.clock = ts[#ts]
  local first, used, pushed = #ts + 1, 0, nil
  function self.at(now)
    first = #ts + 1
    for i = 1, #ts do
      if ts[i] > now - Wu then first = i break end
    end
    used = 0
    for i = first, #ts do used = used + ks[i] end
    self.now = now
  end
  function self.admit(k)
    if used + k > L then return false end
    used = used + k
    ts[#ts + 1], ks[#ks + 1] = self.now, k
    pushed = k
    self.dirty = true
    return true
  end
  function self.wait(k) -- ns until enough of the oldest entries have expired (each at T + W)
    if used + k <= L then return 0 end
    local u = used
    for i = first, #ts do
      u = u - ks[i]
      if u + k <= L then return (Wu - (self.now - ts[i])) * 1000 end
    end
    return 0
  end
  function self.remaining() return L - used end
  function self.save(now)
    if first > 1 then redis.call('LTRIM', key, first - 1, -1) end
    local entry = num(now)
    if pushed ~= 1 then entry = entry .. ':' .. num(pushed) end
    redis.call('RPUSH', key, entry)
    expireAt(key, now, Wu) -- the newest entry expires last
  end
  return self
end
