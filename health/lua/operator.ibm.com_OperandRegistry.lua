-- Argo CD health check for operator.ibm.com/OperandRegistry (odlm-render, health/), for
-- clusters that keep the ODLM controller. "Ready for Deployment" (no OperandRequest uses
-- the registry yet) and Running (requested) are Healthy; Failed is Degraded; Pending,
-- Initialized, Updating and "Waiting for CatalogSource being ready" are Progressing.
-- A True NotFound condition (e.g. a missing CatalogSource) is added to the message.
-- Uses only Lua's base and table libraries and checks every field's type.

local progressing = {
  Pending = true,
  Initialized = true,
  Updating = true,
  ["Waiting for CatalogSource being ready"] = true,
}

-- Sorted names of the requested operators (status.operatorsStatus is a map).
local function operators(v)
  local out = {}
  if type(v) == "table" then
    for k, _ in pairs(v) do
      if type(k) == "string" then out[#out + 1] = k end
    end
  end
  table.sort(out)
  return out
end

local function notFound(status)
  local out = {}
  for _, c in ipairs(items(status.conditions)) do
    if str(c.type) == "NotFound" and str(c.status) == "True" then
      local text = str(c.message)
      if text == "" then text = str(c.reason) end
      if text ~= "" then out[#out + 1] = text end
    end
  end
  return table.concat(out, "; ")
end

local function assess(obj)
  obj = tbl(obj) or {}
  local status = tbl(obj.status)
  local phase = ""
  if status ~= nil then phase = str(status.phase) end
  if phase == "" then
    return "Progressing", "Waiting for ODLM to reconcile the OperandRegistry"
  end
  local warning = notFound(status)

  if phase == "Failed" then
    return "Degraded", join(": ", "OperandRegistry failed", warning)
  end
  if phase == "Ready for Deployment" then
    return "Healthy", join("; ", "Ready for deployment; no OperandRequest uses it yet", warning)
  end
  if phase == "Running" then
    local names = operators(status.operatorsStatus)
    local msg = "Running"
    if #names > 0 then msg = "Requested operators: " .. table.concat(names, ", ") end
    return "Healthy", join("; ", msg, warning)
  end
  if progressing[phase] then
    return "Progressing", join("; ", phase, warning)
  end
  return "Unknown", "Unrecognised OperandRegistry phase " .. phase
end
