-- Every argument is checked before anything is read or written: a bad one is an error reply
-- naming it, and no key is touched.
local function refuse(what) return redis.error_reply('ratelab: ' .. what) end
local MAXI = 9007199254740991 -- 2^53 - 1
-- args reads ARGV as integers, one spec {name, lo, hi[, default]} each (a default makes it
-- optional); it returns the values, or nil and the error reply naming the first bad one.
local function args(nkeys, specs)
  if #KEYS ~= nkeys then return nil, refuse('KEYS: expected ' .. nkeys .. ' key(s), got ' .. #KEYS) end
  if #ARGV > #specs then return nil, refuse('ARGV: expected at most ' .. #specs .. ' arguments, got ' .. #ARGV) end
  local out = {}
  for i, s in ipairs(specs) do
    local text = ARGV[i]
    if text == nil and s[4] then
      out[i] = s[4]
    else
      if text == nil then return nil, refuse('ARGV[' .. i .. '] (' .. s[1] .. '): missing') end
      local v = nil
      if string.match(text, '^%d+$') and string.len(text) <= 16 then v = tonumber(text) end
      if v == nil or v < s[2] or v > s[3] then
        return nil, refuse('ARGV[' .. i .. '] (' .. s[1] .. '): expected an integer from ' .. string.format('%.0f', s[2])
          .. ' to ' .. string.format('%.0f', s[3]) .. ', got "' .. text .. '"')
      end
      out[i] = v
    end
  end
  return out
end
-- exact refuses a config or time whose integers would reach 2^53, naming what would.
local function exact(value, what)
  if value > MAXI then
    return refuse(what .. ' = ' .. string.format('%.0f', value) .. ' reaches 2^53 = 9007199254740992, where Lua (doubles) is no longer exact')
  end
end
