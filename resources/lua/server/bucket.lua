-- token_bucket, leaky_bucket, leaky_bucket_queue and gcra keep one quantity, exact in units of
-- 1/per of a request: the rate is `tok` requests every `per` ns, so 1 ns moves tok units and a
-- request is per units. The water v (leaky), the missing tokens C*per - u (token bucket) and the
-- backlog TAT - now scaled by tok (gcra) are the same number: all four admit the same requests.
-- hash {c = clock (us), FIELD = the stored quantity}; a new key is empty (a full token bucket).
-- Admit iff v + cost*per <= C*per, then v += cost*per; the queue's request waits ceil(v_before / tok) ns.
local function bucket(key, C, tok, per, field, full, queue)
  local self = {quota = C, delay = 0}
  local cap = C * per
  local s = redis.call('HMGET', key, 'c', field)
  self.clock = tonumber(s[1])
  local v = 0
  if self.clock then
    v = tonumber(s[2])
    if full then v = cap - v end -- the token bucket stores the tokens u = C*per - v
  end
  function self.at(now)
    if v > 0 then -- drain: (now - c) us move (now - c)*1000*tok units, floored at 0
      local need, dt = ceildiv(v, tok), (now - self.clock) * 1000
      if dt >= need then v = 0 else v = v - dt * tok end
    end
  end
  function self.admit(k)
    if k > C or v + k * per > cap then return false end
    if queue then self.delay = ceildiv(v, tok) end
    v = v + k * per
    self.dirty = true
    return true
  end
  function self.wait(k)
    local over = v + k * per - cap
    if over <= 0 then return 0 end
    return ceildiv(over, tok)
  end
  function self.remaining() return divmod(cap - v, per) end
  function self.save(now)
    local stored = v
    if full then stored = cap - v end
    redis.call('HSET', key, 'c', num(now), field, num(stored))
    expireAt(key, now, ceildiv(ceildiv(v, tok), 1000)) -- empty (full) again: a fresh key
  end
  return self
end
