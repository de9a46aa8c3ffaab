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

local function items(v)
  local out = {}
  if type(v) == "table" then
    for _, item in ipairs(v) do
      if type(item) == "table" then out[#out + 1] = item end
    end
  end
  return out
end

local function join(sep, ...)
  local parts = {}
  for i = 1, select("#", ...) do
    local p = select(i, ...)
    if type(p) == "string" and p ~= "" then parts[#parts + 1] = p end
  end
  return table.concat(parts, sep)
end

local function list(entries)
  local shown = {}
  for i, e in ipairs(entries) do
    if i > 5 then break end
    shown[#shown + 1] = e
  end
  local text = table.concat(shown, ", ")
  if #entries > 5 then text = text .. " and " .. (#entries - 5) .. " more" end
  return text
end
