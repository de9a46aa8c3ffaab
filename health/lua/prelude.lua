-- Helpers every odlm-render health check starts with (prepended to each script:
-- argocd-cm holds self-contained scripts). They check every value's type.

local function str(v)
  if type(v) == "string" then return v end
  return ""
end

local function tbl(v)
  if type(v) == "table" then return v end
  return nil
end

-- The tables of the list v, in order.
local function items(v)
  local out = {}
  if type(v) == "table" then
    for _, item in ipairs(v) do
      if type(item) == "table" then out[#out + 1] = item end
    end
  end
  return out
end

-- The non-empty strings of the list v, in order.
local function strings(v)
  local out = {}
  if type(v) == "table" then
    for _, s in ipairs(v) do
      if type(s) == "string" and s ~= "" then out[#out + 1] = s end
    end
  end
  return out
end

-- The string keys of the map v, sorted.
local function keys(v)
  local out = {}
  if type(v) == "table" then
    for k, _ in pairs(v) do
      if type(k) == "string" then out[#out + 1] = k end
    end
  end
  table.sort(out)
  return out
end

-- The non-empty strings among the arguments, joined by sep.
local function join(sep, ...)
  local parts = {}
  for i = 1, select("#", ...) do
    local p = select(i, ...)
    if type(p) == "string" and p ~= "" then parts[#parts + 1] = p end
  end
  return table.concat(parts, sep)
end

-- "a, b, c, d, e and 2 more": the first max entries (five unless given).
local function list(entries, max)
  max = max or 5
  local shown = {}
  for i, e in ipairs(entries) do
    if i > max then break end
    shown[#shown + 1] = e
  end
  local text = table.concat(shown, ", ")
  if #entries > max then text = text .. " and " .. (#entries - max) .. " more" end
  return text
end

-- status.phase, or "" when there is no status (status is a table or nil, as tbl returns).
local function phaseOf(status)
  if status == nil then return "" end
  return str(status.phase)
end

-- The conditions of the list v whose status is wanted ("True", "False"), in order; all of
-- them when wanted is nil.
local function conditions(v, wanted)
  local out = {}
  for _, c in ipairs(items(v)) do
    if wanted == nil or str(c.status) == wanted then out[#out + 1] = c end
  end
  return out
end

-- The first condition of each type among the conditions cs, by type.
local function byType(cs)
  local found = {}
  for _, c in ipairs(cs) do
    local t = str(c.type)
    if t ~= "" and found[t] == nil then found[t] = c end
  end
  return found
end

-- "reason: message" of condition c, without a reason equal to skip (one that only repeats
-- the condition's type).
local function detail(c, skip)
  local reason = str(c.reason)
  if reason == skip then reason = "" end
  return join(": ", reason, str(c.message))
end
