-- Every argument is checked before anything is read or written: a bad one is an error reply
-- naming it, and no key is touched.
local function refuse(what) return redis.error_reply('ratelab: ' .. what) end
if #KEYS ~= N then
  return refuse('KEYS: expected ' .. N .. ' key(s), one per layer, got ' .. #KEYS)
end
if N > 1 then -- Redis Cluster: one slot for every key, so one {hash tag} for every key
  local tag = hashtag(KEYS[1])
  if not tag then return refuse('KEYS[1]: "' .. KEYS[1] .. '" has no {hash tag}; every key of a layered policy needs the same one') end
  for i = 2, N do
    if hashtag(KEYS[i]) ~= tag then
      return refuse('KEYS[' .. i .. ']: "' .. KEYS[i] .. '" must carry the hash tag {' .. tag .. '} of KEYS[1]')
    end
    for j = 1, i - 1 do
      if KEYS[j] == KEYS[i] then return refuse('KEYS[' .. i .. ']: "' .. KEYS[i] .. '" is KEYS[' .. j .. '] again') end
    end
  end
end
if #ARGV > 1 then return refuse('ARGV: expected at most 1 argument (the cost), got ' .. #ARGV) end
local cost = 1
if #ARGV == 1 then
  local text = ARGV[1]
  if not string.match(text, '^[1-9][0-9]*$') or string.len(text) > 10 or tonumber(text) > 1000000000 then
    return refuse('ARGV[1] (cost): expected an integer from 1 to 1000000000, got "' .. text .. '"')
  end
  cost = tonumber(text)
end

-- The server's clock, in integer microseconds. A key never goes back in time: it is decided at
-- max(TIME, the clock its last write stored) (after a failover to a replica whose clock is
-- behind, the key waits for the clock to catch up rather than admitting twice).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local layers = policy()
local quota = layers[1].quota
for i = 1, N do
  if layers[i].clock and layers[i].clock > now then now = layers[i].clock end
  if layers[i].quota < quota then quota = layers[i].quota end
end
for i = 1, N do layers[i].at(now) end

-- Layers are asked in order; one that admits has consumed (a later denial does not refund it).
local allowed, delay = 1, 0
for i = 1, N do
  if not layers[i].admit(cost) then allowed = 0 break end
  if layers[i].delay > delay then delay = layers[i].delay end
end

local retry = 0
if allowed == 0 then
  delay = 0
  if cost > quota then
    retry = -1 -- never: the cost exceeds the quota
  else
    for i = 1, N do retry = math.max(retry, layers[i].wait(cost)) end
  end
end
-- The headers describe the layer with the least remaining (the first on a tie).
local h, remaining = 1, layers[1].remaining()
for i = 2, N do
  local r = layers[i].remaining()
  if r < remaining then h, remaining = i, r end
end
local reset = layers[h].wait(layers[h].quota)
-- Written last (every figure above read the keys as they were): only a layer that consumed
-- writes, so a denial that changes nothing writes nothing.
for i = 1, N do
  if layers[i].dirty then layers[i].save(now) end
end
local retryMs, retryS = retry, retry
if retry > 0 then retryMs, retryS = ceildiv(retry, 1000000), ceildiv(retry, 1000000000) end
return {allowed, remaining, retryMs, retryS, layers[h].quota, ceildiv(reset, 1000000), ceildiv(reset, 1000000000),
  ceildiv(now + ceildiv(reset, 1000), 1000000), ceildiv(delay, 1000000), now, retry, reset, delay}
