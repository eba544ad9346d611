-- sliding_window_log: list of admitted entries, oldest first, each "T:S:K": T the time (us), K
-- its cost, S the running sum of the costs admitted on this key up to it. An entry is kept while
-- T > now - W; admit iff the kept costs + cost <= L, then record now. The newest entry is the
-- key's clock (only an admission writes). The kept costs are S(newest) - S(first kept) + K(first
-- kept), and the first kept entry and a denied request's wait are found by binary search: a
-- call reads O(log L) entries, not all of them.
local function sliding_window_log(key, L, Wu)
  local self = {quota = L, delay = 0}
  local size = redis.call('LLEN', key)
  local cache = {}
  local function entry(i) -- 0-based; {T, S, K}
    local e = cache[i]
    if not e then
      local text = redis.call('LINDEX', key, i)
      local t, sum, k = string.match(text, '^(%d+):(%d+):(%d+)$')
      e = {tonumber(t), tonumber(sum), tonumber(k)}
      cache[i] = e
    end
    return e
  end
  -- search returns the least i in [lo, size) with pred(entry(i)), or size.
  local function search(lo, pred)
    local hi = size
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if pred(entry(mid)) then hi = mid else lo = mid + 1 end
    end
    return lo
  end
  if size > 0 then self.clock = entry(size - 1)[1] end
  local first, used, newestSum, pushed = 0, 0, 0, nil
  function self.at(now)
    self.now = now
    first = search(0, function(e) return e[1] > now - Wu end)
    used = 0
    if size > 0 then newestSum = entry(size - 1)[2] end
    if first < size then used = newestSum - entry(first)[2] + entry(first)[3] end
  end
  function self.admit(k)
    if used + k > L then return false end
    used = used + k
    pushed = k
    self.dirty = true
    return true
  end
  function self.wait(k) -- ns until enough of the oldest entries have expired (each at T + W)
    if used + k <= L then return 0 end
    -- With the entries first..size-1 and the one just admitted (virtual index size, sum total):
    -- the least i whose expiry leaves total - S(i) <= L - k kept.
    local total = used + (first < size and entry(first)[2] - entry(first)[3] or 0)
    local i = search(first, function(e) return e[2] >= total + k - L end)
    if i >= size then return Wu * 1000 end -- only the entry admitted now: it expires W from now
    return (Wu - (self.now - entry(i)[1])) * 1000
  end
  function self.remaining() return L - used end
  function self.save(now)
    local sum = newestSum + pushed
    if first >= size then sum = pushed end -- everything expired: the running sum starts again
    if sum > 4503599627370496 then -- past 2^52: number the kept entries' sums again from 0 (rare)
      local kept, running = {}, 0
      for i = first, size - 1 do
        local e = entry(i)
        running = running + e[3]
        kept[#kept + 1] = num(e[1]) .. ':' .. num(running) .. ':' .. num(e[3])
      end
      redis.call('DEL', key)
      for from = 1, #kept, 1000 do
        redis.call('RPUSH', key, unpack(kept, from, math.min(from + 999, #kept)))
      end
      sum = running + pushed
    elseif first > 0 then
      redis.call('LTRIM', key, first, -1)
    end
    redis.call('RPUSH', key, num(now) .. ':' .. num(sum) .. ':' .. num(pushed))
    expireAt(key, now, Wu) -- the newest entry expires last
  end
  return self
end
