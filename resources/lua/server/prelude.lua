-- Exact domain: Lua numbers are doubles, exact for integers below 2^53 = 9007199254740992. Times
-- are Redis TIME in integer microseconds (about 1.8e15 today: exact for about 285 years); the
-- config's scaled integers were checked below 2^53 when the script was generated. Quotients are
-- formed with math.fmod (exact), never a/b rounded.
if redis.replicate_commands then redis.replicate_commands() end -- Redis 5-6: replicate the writes, not the call to TIME
local function divmod(a, b)
  local r = math.fmod(a, b)
  return (a - r) / b, r
end
local function ceildiv(a, b)
  local q, r = divmod(a, b)
  if r > 0 then q = q + 1 end
  return q
end
local function num(x) return string.format('%.0f', x) end
-- hashtag returns what Redis Cluster hashes for a key: the text of its first {...}, if not empty.
local function hashtag(key)
  local open = string.find(key, '{', 1, true)
  if not open then return nil end
  local close = string.find(key, '}', open + 1, true)
  if not close or close == open + 1 then return nil end
  return string.sub(key, open + 1, close - 1)
end
-- expireAt sets the key to expire once its state is that of a fresh key: ttl_us after now, as an
-- absolute time in ms, rounded up and 1 ms later, so it is never dropped while it still matters.
local function expireAt(key, now, ttl_us)
  redis.call('PEXPIREAT', key, num(ceildiv(now + ttl_us, 1000) + 1))
end
